/**
 * Context cards: reusable prompt context (a card of category "persona" is a persona). Cards have
 * no versions, so their pages are a list with search, an editor, and delete with confirmation.
 */
import type { JSX } from 'preact';
import { PERSONA_CATEGORY } from '../../../core/context-cards/context-cards.js';
import { PorchError } from '../../../core/errors.js';
import { createContextCard } from '../../../operations/create-context-card.js';
import { deleteContextCard } from '../../../operations/delete-context-card.js';
import { getContextCard } from '../../../operations/get-context-card.js';
import { listContextCards } from '../../../operations/list-context-cards.js';
import { CONSOLE_PATHS } from '../../../operations/site-paths.js';
import { updateContextCard } from '../../../operations/update-context-card.js';
import { formBody, formValue, type PageContext, type PageRegistrar } from '../../console-pages.js';
import { dateTime } from '../format.js';
import { Notice, PostForm, TableWrap } from '../layout.js';
import { searchMatches } from './editor.js';
import {
  actionFor,
  BASE_FIELD,
  type Digests,
  digestsOf,
  encodeBase,
  MERGE_ATTEMPTS,
  mergeEdit,
  parseBase,
  savedSinceBase,
  untouchedFields,
} from './edit-base.js';
import { param, textOf } from './kinds.js';
import { CatalogSearch, errorNoticeText, Field, isPathWithin, issuesOf, tagsOf } from './form-parts.js';

const PATH = `${CONSOLE_PATHS.root}/context-cards`;

/**
 * The Category hint of a card that is a persona now: changing the category is allowed (a persona is
 * a card of category "persona", docs/decisions.md), but it removes the persona, so the editor says
 * so before the save rather than only "Saved." after it.
 */
const PERSONA_CATEGORY_WARNING =
  'Careful: this card is a persona. Changing its category from "persona" removes the persona: it leaves Personas (its page and GET /personas/{id} answer 404), and the workflows and clients that use it, by id or by label, stop finding it. The card itself stays.';

const FIELDS = [
  { name: 'title', label: 'Title', required: true },
  { name: 'description', label: 'Description (optional)' },
  { name: 'category', label: 'Category (optional)', hint: '"persona" makes the card a persona whose content is a system prompt.' },
  { name: 'emoji', label: 'Emoji (optional)' },
  { name: 'tags', label: 'Tags', hint: 'Comma-separated.' },
  { name: 'content', label: 'Content', rows: 12, required: true },
] as const;

type CardValues = Record<(typeof FIELDS)[number]['name'], string>;

async function renderList(ctx: PageContext): Promise<void> {
  const query = typeof ctx.req.query.q === 'string' ? ctx.req.query.q : '';
  const listed = await ctx.api.call(listContextCards);
  if (!listed.ok) throw listed.error;
  const cards = listed.data.items.filter((card) => searchMatches(query, [card.title, card.description ?? '', card.category ?? '', ...card.tags]));
  // A flag, never text from the address: a link could otherwise put any words in a success notice.
  const deleted = ctx.req.query.deleted === '1';
  ctx.render({
    title: 'Context cards',
    active: 'context-cards',
    body: (
      <section>
        <div class="page-head">
          <h1>Context cards</h1>
          <a class="button" href={`${PATH}/new`}>
            New context card
          </a>
        </div>
        <p class="lead">Reusable context for prompts. A card of category “persona” is also listed under Personas.</p>
        {deleted ? <Notice kind="success">Deleted the context card.</Notice> : null}
        <CatalogSearch action={PATH} label="Search context cards" query={query} placeholder="Title, description, category or tag" />
        {cards.length === 0 ? (
          <p class="empty">{query === '' ? 'No context cards yet.' : `No context cards match “${query}”.`}</p>
        ) : (
          <TableWrap label="Context cards">
            <table>
              <thead>
                <tr>
                  <th scope="col">Title</th>
                  <th scope="col">Category</th>
                  <th scope="col">Tags</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {cards.map((card) => (
                  <tr key={card.id}>
                    <td class="name">
                      <a href={`${PATH}/${card.id}`}>
                        {card.emoji ? `${card.emoji} ` : ''}
                        {card.title}
                      </a>
                    </td>
                    <td class="name">{card.category ?? ''}</td>
                    <td class="name">{card.tags.join(', ')}</td>
                    <td class="nowrap">{dateTime(card.updated_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </section>
    ),
  });
}

function CardEditor({
  ctx,
  id,
  values,
  base,
  error,
  notice,
  persona,
}: {
  ctx: PageContext;
  id?: string;
  values: CardValues;
  /** The digests of the fields as the edit started from (edit-base.ts). */
  base?: Digests | null;
  error?: PorchError;
  notice?: string;
  /** The card as saved is a persona: changing its category removes the persona. */
  persona?: boolean;
}): JSX.Element {
  const issues = issuesOf(error);
  return (
    <section>
      <p class="breadcrumb">
        <a href={PATH}>Context cards</a>
      </p>
      <h1>{id ? values.title || 'Context card' : 'New context card'}</h1>
      {notice ? <Notice kind="success">{notice}</Notice> : null}
      {error ? <Notice kind="error">{errorNoticeText(error.message, issues, (path) => FIELDS.some((field) => isPathWithin(path, field.name)))}</Notice> : null}
      <PostForm action={id ? actionFor(`${PATH}/${id}`, base) : `${PATH}/new`} csrfToken={ctx.signedIn.csrfToken} class="stack editor">
        {id && base ? <input type="hidden" name={BASE_FIELD} value={encodeBase(base)} /> : null}
        {FIELDS.map((field) => (
          <Field
            key={field.name}
            path={field.name}
            label={field.label}
            value={values[field.name]}
            issues={issues}
            required={'required' in field ? field.required : undefined}
            hint={field.name === 'category' && persona ? PERSONA_CATEGORY_WARNING : 'hint' in field ? field.hint : undefined}
            rows={'rows' in field ? field.rows : undefined}
          />
        ))}
        <div class="actions">
          <button type="submit">{id ? 'Save' : 'Create context card'}</button>
          {id ? <a href={`${PATH}/${id}/delete`}>Delete…</a> : null}
        </div>
      </PostForm>
    </section>
  );
}

const EMPTY: CardValues = { title: '', description: '', category: '', emoji: '', tags: '', content: '' };

function valuesFromForm(ctx: PageContext): CardValues {
  const body = formBody(ctx.req);
  return Object.fromEntries(FIELDS.map((field) => [field.name, textOf(body, field.name)])) as CardValues;
}

/** Optional fields: absent on create when empty, null on update (which clears them). */
function inputOf(values: CardValues, update: boolean): Record<string, unknown> {
  const optional = (value: string) => (value.trim() === '' ? (update ? null : undefined) : value);
  return {
    title: values.title,
    content: values.content,
    description: optional(values.description),
    category: optional(values.category),
    emoji: optional(values.emoji),
    tags: tagsOf(values.tags),
  };
}

async function fetchCard(ctx: PageContext, id: string) {
  const got = await ctx.api.call(getContextCard, { id });
  if (!got.ok) throw got.error;
  return got.data;
}

/** The card's fields as its editor shows them. */
function valuesOf(card: Awaited<ReturnType<typeof fetchCard>>): CardValues {
  return {
    title: card.title,
    description: card.description ?? '',
    category: card.category ?? '',
    emoji: card.emoji ?? '',
    tags: card.tags.join(', '),
    content: card.content,
  };
}

export function registerContextCardPages(pages: PageRegistrar): void {
  pages.page('GET', PATH, renderList);
  pages.page('GET', `${PATH}/new`, async (ctx) => {
    ctx.render({ title: 'New context card', active: 'context-cards', body: <CardEditor ctx={ctx} values={EMPTY} /> });
  });
  pages.page('POST', `${PATH}/new`, async (ctx) => {
    const values = valuesFromForm(ctx);
    const created = await ctx.api.call(createContextCard, inputOf(values, false));
    if (!created.ok) {
      ctx.render({
        title: 'New context card',
        active: 'context-cards',
        status: created.error.status,
        address: `${PATH}/new`,
        body: <CardEditor ctx={ctx} values={values} error={created.error} />,
      });
      return;
    }
    ctx.redirect(`${PATH}/${created.data.id}?saved=1`);
  });
  pages.page('GET', `${PATH}/:id`, async (ctx) => {
    const card = await fetchCard(ctx, param(ctx, 'id'));
    const values = valuesOf(card);
    ctx.render({
      title: card.title,
      active: 'context-cards',
      body: (
        <CardEditor
          ctx={ctx}
          id={card.id}
          values={values}
          base={digestsOf(values)}
          notice={ctx.req.query.saved ? 'Saved.' : undefined}
          persona={card.category === PERSONA_CATEGORY}
        />
      ),
    });
  });
  pages.page('POST', `${PATH}/:id`, async (ctx) => {
    const id = param(ctx, 'id');
    const values = valuesFromForm(ctx);
    const base = parseBase(formValue(formBody(ctx.req), BASE_FIELD));
    // Whether the card, as read for the merge, is a persona: the editor shown again warns so.
    let persona = false;
    const shown = (options: { status?: number; base?: Digests | null; error?: PorchError; notice?: string; values?: CardValues }) =>
      ctx.render({
        title: (options.values ?? values).title || 'Context card',
        active: 'context-cards',
        status: options.status ?? options.error?.status ?? 200,
        address: `${PATH}/${id}`,
        body: (
          <CardEditor ctx={ctx} id={id} values={options.values ?? values} base={options.base} error={options.error} notice={options.notice} persona={persona} />
        ),
      });
    // Deleted since the page was opened: the edits are kept in the new card's form, so saving
    // creates it again (regression: an error page, the edits lost), as the catalog editors do.
    const gone = () =>
      ctx.render({
        title: values.title || 'Context card',
        active: 'context-cards',
        status: 404,
        address: `${PATH}/new`,
        body: (
          <CardEditor
            ctx={ctx}
            values={values}
            error={
              new PorchError(
                'RESOURCE_NOT_FOUND',
                'This card no longer exists: it was deleted since the page was opened (in another tab, or by a client). Your edits are kept below; saving creates it again as a new card.',
              )
            }
          />
        ),
      });
    // Only what the author changed is sent, so a field saved meanwhile by someone else stays.
    for (let attempt = 1; ; attempt++) {
      const got = await ctx.api.call(getContextCard, { id });
      if (!got.ok && got.error.code === 'RESOURCE_NOT_FOUND') return gone();
      if (!got.ok) throw got.error;
      const card = got.data;
      persona = card.category === PERSONA_CATEGORY;
      const current = valuesOf(card);
      const merge = mergeEdit(base, values, current);
      if (merge.kind === 'unchanged') {
        if (!savedSinceBase(base, current)) return shown({ base, notice: 'Nothing changed, so nothing was saved.' });
        // Saved meanwhile by someone else, with nothing of the author's left to add: the form shows
        // the card as it is now, and is based on it, as the page would open now.
        return shown({
          base: digestsOf(current),
          values: current,
          notice: 'Nothing you changed differs from the card as saved by another edit meanwhile, so nothing was saved; the form now shows the card as saved.',
        });
      }
      if (merge.kind === 'conflict') {
        const labels = merge.fields.map((name) => FIELDS.find((field) => field.name === name)?.label.replace(/ \(optional\)$/, '') ?? name);
        const error = new PorchError(
          'CONFLICT',
          `Since you opened this page, the card was saved with another ${labels.join(', ')}; saving yours would undo that change. Your edits are kept below: save again to keep yours.`,
        );
        // The next save is made knowing the card as it is now: the fields the author did not touch
        // show its values, and its digests become the base.
        const untouched = untouchedFields(base, values);
        const merged = Object.fromEntries(FIELDS.map(({ name }) => [name, untouched.has(name) ? current[name] : values[name]])) as CardValues;
        return shown({ base: digestsOf(current), error, values: merged });
      }
      const input = inputOf(values, true);
      const changes = Object.fromEntries(Object.entries(input).filter(([key]) => merge.fields.includes(key)));
      const updated = await ctx.api.call(updateContextCard, { id, ...changes, expected_version: card.version });
      if (updated.ok) break;
      if (updated.error.code === 'RESOURCE_NOT_FOUND') return gone();
      // Saved by someone else since the read above: merge again with what they saved.
      if (updated.error.code === 'CONFLICT' && attempt < MERGE_ATTEMPTS) continue;
      // A refusal the author can act on (a field, a conflict, a quota) keeps the form; a fault is the error page.
      if (updated.error.status >= 500) throw updated.error;
      return shown({ base, error: updated.error });
    }
    ctx.redirect(`${PATH}/${id}?saved=1`);
  });
  pages.page('GET', `${PATH}/:id/delete`, async (ctx) => {
    const card = await fetchCard(ctx, param(ctx, 'id'));
    ctx.render({
      title: `Delete ${card.title}`,
      active: 'context-cards',
      body: (
        <section>
          <h1>Delete {card.title}?</h1>
          <Notice kind="info">A context card is deleted for good; a persona made from it goes too.</Notice>
          <PostForm action={`${PATH}/${card.id}/delete`} csrfToken={ctx.signedIn.csrfToken} class="actions">
            <button type="submit" class="danger">
              Delete {card.title}
            </button>
            <a href={`${PATH}/${card.id}`}>Cancel</a>
          </PostForm>
        </section>
      ),
    });
  });
  pages.page('POST', `${PATH}/:id/delete`, async (ctx) => {
    const card = await fetchCard(ctx, param(ctx, 'id'));
    const deleted = await ctx.api.call(deleteContextCard, { id: card.id });
    if (!deleted.ok) throw deleted.error;
    ctx.redirect(`${PATH}?deleted=1`);
  });
}
