/**
 * The frame of every console page: head, navigation, the signed-in account, and where a page's
 * notices (an error from an operation, a one-time secret) go. Pages are rendered on the server
 * (Preact's renderToString, which escapes every value); htmx, the console's script and the
 * charting and graph libraries are the only JavaScript, each a served asset.
 */
import type { ComponentChildren, JSX } from 'preact';
import { CONSOLE_PATHS, SITE_PATHS } from '../../operations/site-paths.js';
import type { AssetName } from '../assets.js';

/** The console's sections, in the order the navigation lists them. */
export const NAVIGATION = [
  { group: 'Home', items: [{ id: 'overview', label: 'Overview', path: CONSOLE_PATHS.root }] },
  {
    group: 'Build',
    items: [
      { id: 'compositions', label: 'Compositions', path: `${CONSOLE_PATHS.root}/compositions` },
      { id: 'skills', label: 'Skills', path: `${CONSOLE_PATHS.root}/skills` },
      { id: 'personas', label: 'Personas', path: `${CONSOLE_PATHS.root}/personas` },
      { id: 'workflows', label: 'Workflows', path: `${CONSOLE_PATHS.root}/workflows` },
      { id: 'context-cards', label: 'Context cards', path: `${CONSOLE_PATHS.root}/context-cards` },
    ],
  },
  {
    group: 'Run',
    items: [
      { id: 'playground', label: 'Playground', path: `${CONSOLE_PATHS.root}/playground` },
      { id: 'runs', label: 'Runs', path: `${CONSOLE_PATHS.root}/runs` },
      { id: 'judge', label: 'Judge', path: `${CONSOLE_PATHS.root}/judge` },
      { id: 'sanitiser', label: 'Sanitiser', path: `${CONSOLE_PATHS.root}/sanitiser` },
      { id: 'refine', label: 'Refine a prompt', path: CONSOLE_PATHS.refine },
    ],
  },
  {
    group: 'Settings',
    items: [
      { id: 'api-access', label: 'API access', path: `${CONSOLE_PATHS.root}/settings/api-access` },
      { id: 'webhooks', label: 'Webhooks', path: `${CONSOLE_PATHS.root}/settings/webhooks` },
      { id: 'sessions', label: 'Sessions', path: `${CONSOLE_PATHS.root}/settings/sessions` },
      { id: 'organisation', label: 'Organisation', path: `${CONSOLE_PATHS.root}/settings/organisation` },
    ],
  },
] as const;

export type SectionId = (typeof NAVIGATION)[number]['items'][number]['id'];

/** What the frame needs from the door for one page. */
export interface FrameProps {
  title: string;
  assetUrl(name: AssetName): string;
  /** The signed-in account, or null on the sign-in pages and the public refine page. */
  account: { email: string; plan: string } | null;
  csrfToken: string;
  active?: SectionId;
  /** Set on a page answering a POST: the GET address console.js puts in the address bar. */
  address?: string | undefined;
  children: ComponentChildren;
}

export function Page({ title, assetUrl, account, csrfToken, active, address, children }: FrameProps): JSX.Element {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        {/* htmx would otherwise add an inline <style>, which the content security policy refuses. */}
        <meta name="htmx-config" content='{"includeIndicatorStyles":false}' />
        <title>{`${title} — Porch console`}</title>
        <link rel="icon" type="image/svg+xml" href={SITE_PATHS.favicon} />
        <link rel="stylesheet" href={assetUrl('console.css')} />
        <script src={assetUrl('htmx.js')} defer />
        <script src={assetUrl('console.js')} type="module" />
      </head>
      <body hx-headers={JSON.stringify({ 'X-CSRF-Token': csrfToken })} data-address={address}>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        {account ? <SignedInFrame account={account} csrfToken={csrfToken} active={active} /> : <PublicHeader />}
        <main id="main" class={account ? 'with-nav' : 'narrow'}>
          {children}
        </main>
      </body>
    </html>
  );
}

function PublicHeader(): JSX.Element {
  return (
    <header class="topbar">
      <a class="brand" href={CONSOLE_PATHS.root}>
        Porch
      </a>
      <a href="/docs">Docs</a>
    </header>
  );
}

function SignedInFrame({ account, csrfToken, active }: { account: { email: string; plan: string }; csrfToken: string; active: SectionId | undefined }) {
  return (
    <>
      <header class="topbar">
        <a class="brand" href={CONSOLE_PATHS.root}>
          Porch
        </a>
        <span class="account">
          <span class="email">{account.email}</span> <span class="badge">{account.plan}</span>
        </span>
        <form method="post" action={CONSOLE_PATHS.signOut} class="inline">
          <input type="hidden" name="_csrf" value={csrfToken} />
          <button type="submit" class="link-button">
            Sign out
          </button>
        </form>
      </header>
      <nav class="sidebar" aria-label="Console">
        {/* Closed on a phone until asked for; console.js opens it on wide screens, where it is the sidebar. */}
        <details class="nav-menu">
          <summary>Menu</summary>
          {NAVIGATION.map((section) => (
            <div class="nav-group" key={section.group}>
              <h2>{section.group}</h2>
              <ul>
                {section.items.map((item) => (
                  <li key={item.id}>
                    <a href={item.path} aria-current={item.id === active ? 'page' : undefined}>
                      {item.label}
                    </a>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </details>
      </nav>
    </>
  );
}

/** A notice at the top of a page: an operation's error message, or what just happened. */
export function Notice({ kind, children }: { kind: 'error' | 'success' | 'info'; children: ComponentChildren }): JSX.Element {
  return (
    <div class={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'} tabIndex={kind === 'error' ? -1 : undefined}>
      {children}
    </div>
  );
}

/** A form that changes state: always POST, always with the session's CSRF token. */
export function PostForm({
  action,
  csrfToken,
  children,
  class: className,
}: {
  action: string;
  csrfToken: string;
  children: ComponentChildren;
  class?: string;
}) {
  return (
    <form method="post" action={action} class={className}>
      <input type="hidden" name="_csrf" value={csrfToken} />
      {children}
    </form>
  );
}

/**
 * A table that scrolls sideways on a narrow screen. Keyboard users must be able to scroll it too,
 * so the region is focusable and named (axe: scrollable-region-focusable). A `stacked` region, one
 * holding a `StackedTable`, instead shows each row as a card where it is narrow.
 */
export function TableWrap({ label, stacked, children }: { label: string; stacked?: boolean; children: ComponentChildren }): JSX.Element {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take the focus (WCAG 2.1.1, axe's scrollable-region-focusable).
    <section class={stacked ? 'table-wrap stacked' : 'table-wrap'} tabIndex={0} aria-label={label}>
      {children}
    </section>
  );
}

// biome-ignore-start lint/a11y/noRedundantRoles: the stacked tables state their parts' roles for WebKit (see StackedTable).
/**
 * A table of records with actions (API keys, connected apps, versions, webhook endpoints), headed
 * by `columns`, its rows `StackedRow`s. Where its region is narrow it shows each row as a card
 * (the `.table-wrap.stacked` rules in console.css): each cell headed by its column's name, which
 * the cell carries as `data-label`; a cell without one (the actions) spans the card.
 *
 * Every part states its table role (table, rowgroup, row, columnheader, rowheader, cell), although
 * each is its element's own: console.css displays the parts as blocks there, and WebKit (VoiceOver
 * on an iPhone, the very screen that stacks them) then reads them as no table, every cell without
 * the column that names it. A stated role keeps the table whatever its display.
 */
export function StackedTable({
  label,
  caption,
  columns,
  children,
}: {
  label: string;
  caption?: string;
  columns: readonly string[];
  children: ComponentChildren;
}): JSX.Element {
  return (
    <TableWrap label={label} stacked>
      <table role="table">
        {caption === undefined ? null : <caption class="muted">{caption}</caption>}
        <thead role="rowgroup">
          <tr role="row">
            {columns.map((column) => (
              <th scope="col" role="columnheader" key={column}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup">{children}</tbody>
      </table>
    </TableWrap>
  );
}

/** A row of a `StackedTable`, its role stated (see there). */
export function StackedRow({ children }: { children: ComponentChildren }): JSX.Element {
  return <tr role="row">{children}</tr>;
}

/** A row's own header in a `StackedTable` (a version's number), the title of its card; its role stated (see there). */
export function StackedRowHeader({ children }: { children: ComponentChildren }): JSX.Element {
  return (
    <th scope="row" role="rowheader">
      {children}
    </th>
  );
}

/**
 * A cell of a `StackedTable`, its role stated (see there). `label` is its column's name, shown
 * before it on a card; the actions cell has none and spans the card.
 */
export function StackedCell({ label, class: className, children }: { label?: string; class?: string; children: ComponentChildren }): JSX.Element {
  return (
    <td role="cell" class={className} data-label={label}>
      {children}
    </td>
  );
}
// biome-ignore-end lint/a11y/noRedundantRoles: only the stacked tables' parts.
