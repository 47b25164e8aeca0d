/** Settings → Sessions: where the account is signed in, and signing out everywhere else. */
import type { ConsoleSessions } from '../../core/access/console-sessions.js';
import { CONSOLE_PATHS } from '../../operations/site-paths.js';
import type { PageContext, PageRegistrar } from '../console-pages.js';
import { Notice, PostForm, TableWrap } from './layout.js';

const PATH = `${CONSOLE_PATHS.root}/settings/sessions`;

/** A time to the minute, in UTC; on a narrow screen it breaks between the day and the time, never inside the day. */
function When({ ms }: { ms: number }) {
  const iso = new Date(ms).toISOString();
  return (
    <time dateTime={iso}>
      <span class="nowrap">{iso.slice(0, 10)}</span> {iso.slice(11, 16)} UTC
    </time>
  );
}

export function registerSessionPages(pages: PageRegistrar, sessions: ConsoleSessions): void {
  const renderPage = async ({ signedIn, render }: PageContext, ended?: number) => {
    const list = await sessions.listSessions(signedIn.caller.account.id);
    render({
      title: 'Sessions',
      active: 'sessions',
      address: PATH,
      body: (
        <section>
          <h1>Sessions</h1>
          <p class="lead">Browsers signed in to this account. A session ends after 12 hours without use, and after 7 days in any case.</p>
          {ended !== undefined ? <Notice kind="success">Signed out {ended === 1 ? 'one other session' : `${ended} other sessions`}.</Notice> : null}
          <TableWrap label="Sessions">
            <table class="sessions-table">
              <thead>
                <tr>
                  <th scope="col">Browser</th>
                  <th scope="col">Signed in</th>
                  <th scope="col">Last active</th>
                  <th scope="col">Ends</th>
                </tr>
              </thead>
              <tbody>
                {list.map((session) => (
                  <tr key={session.id}>
                    <td class="session-browser">
                      {/* The marker first, so a long user agent cannot push it out of view. */}
                      {session.id === signedIn.session.id ? <span class="badge">this browser</span> : null}
                      <span class="user-agent" title={session.userAgent ?? undefined}>
                        {session.userAgent ?? 'unknown'}
                      </span>
                    </td>
                    <td>
                      <When ms={session.createdAt} />
                    </td>
                    <td>
                      <When ms={session.lastSeenAt} />
                    </td>
                    <td>
                      <When ms={session.expiresAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          <PostForm action={`${PATH}/sign-out-others`} csrfToken={signedIn.csrfToken} class="panel">
            <p>Lost a device, or signed in somewhere you should not have? End every other session now.</p>
            <button type="submit" class="danger">
              Sign out all other sessions
            </button>
          </PostForm>
        </section>
      ),
    });
  };

  pages.page('GET', PATH, (ctx) => renderPage(ctx));
  pages.page('POST', `${PATH}/sign-out-others`, async (ctx) => renderPage(ctx, await sessions.signOutOthers(ctx.signedIn.session)));
}
