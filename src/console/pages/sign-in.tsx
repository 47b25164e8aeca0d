/**
 * Signing in and out, and setting a password from a one-time link (`porch account invite` or
 * `reset-password`). The only console pages that do not call an operation: they establish who
 * the caller is.
 */
import type { JSX } from 'preact';
import type { Response } from 'express';
import { type ConsoleSessions, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../core/access/console-sessions.js';
import { PorchError, toPorchError } from '../../core/errors.js';
import { CONSOLE_PATHS } from '../../operations/site-paths.js';
import { formBody, formValue, type PageRegistrar } from '../console-pages.js';
import type { ConsoleCookies } from '../session.js';
import { Notice } from './layout.js';

/** What a `next` target is resolved against: only its path, query and fragment are kept. */
const NEXT_BASE = 'http://porch.invalid';

/**
 * A dot segment, written plainly or percent-encoded (`..`, `.%2e`, `%2E%2E`), or an encoded slash
 * or backslash, which a server or proxy on the way may decode into one.
 */
const DOT_SEGMENT_OR_ENCODED_SEPARATOR = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)|%2f|%5c/i;

/**
 * Only a path on this console may be a `next` target: never another origin (no open redirect),
 * and never another part of the site reached through it: `/console/../oauth/authorize?...` starts
 * with `/console` but a browser resolves it to the authorization endpoint (regression). The path
 * is resolved as a browser would and must still be under the console; dot segments in any
 * spelling are refused outright.
 */
export function safeNext(next: string | undefined): string {
  if (next === undefined || !next.startsWith('/') || next.startsWith('//') || /[\\\r\n\t]/.test(next)) return CONSOLE_PATHS.root;
  const path = next.split(/[?#]/, 1)[0] ?? '';
  if (DOT_SEGMENT_OR_ENCODED_SEPARATOR.test(path)) return CONSOLE_PATHS.root;
  const resolved = URL.parse(next, NEXT_BASE);
  if (resolved === null || resolved.origin !== NEXT_BASE) return CONSOLE_PATHS.root;
  if (resolved.pathname !== CONSOLE_PATHS.root && !resolved.pathname.startsWith(`${CONSOLE_PATHS.root}/`)) return CONSOLE_PATHS.root;
  return resolved.pathname + resolved.search + resolved.hash;
}

interface SignInFormProps {
  csrfToken: string;
  next: string;
  email?: string | undefined;
  error?: string | undefined;
  passwordSet?: boolean;
}

function SignInForm({ csrfToken, next, email, error, passwordSet }: SignInFormProps) {
  return (
    <section class="auth-box">
      <h1>Sign in to Porch</h1>
      <p class="lead">Manage your keys, catalog, runs and usage.</p>
      {passwordSet ? <Notice kind="success">Your password is set. Sign in with it.</Notice> : null}
      {error ? <Notice kind="error">{error}</Notice> : null}
      <form method="post" action={CONSOLE_PATHS.signIn} class="stack">
        <input type="hidden" name="_csrf" value={csrfToken} />
        <input type="hidden" name="next" value={next} />
        <div class="field">
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autoComplete="username" required value={email ?? ''} />
        </div>
        <div class="field">
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autoComplete="current-password" required maxLength={MAX_PASSWORD_LENGTH} />
        </div>
        <div class="actions">
          <button type="submit">Sign in</button>
        </div>
      </form>
      <p class="muted">No password yet, or forgot it? Ask your Porch operator for a link (porch account invite or reset-password).</p>
    </section>
  );
}

function SetPasswordForm({ csrfToken, token, error }: { csrfToken: string; token: string; error?: string | undefined }): JSX.Element {
  return (
    <section class="auth-box">
      <h1>Choose a password</h1>
      <p class="lead">
        At least {MIN_PASSWORD_LENGTH} characters. Setting it signs out every session of your account, this browser's too: you then sign in with it.
      </p>
      {error ? <Notice kind="error">{error}</Notice> : null}
      <form method="post" action={CONSOLE_PATHS.setPassword} class="stack">
        <input type="hidden" name="_csrf" value={csrfToken} />
        <input type="hidden" name="token" value={token} />
        <div class="field">
          <label for="password">New password</label>
          <input
            id="password"
            name="password"
            type="password"
            autoComplete="new-password"
            required
            minLength={MIN_PASSWORD_LENGTH}
            maxLength={MAX_PASSWORD_LENGTH}
          />
        </div>
        <div class="field">
          <label for="confirm">Repeat it</label>
          <input
            id="confirm"
            name="confirm"
            type="password"
            autoComplete="new-password"
            required
            minLength={MIN_PASSWORD_LENGTH}
            maxLength={MAX_PASSWORD_LENGTH}
          />
        </div>
        <div class="actions">
          <button type="submit">Set password</button>
        </div>
      </form>
    </section>
  );
}

function LinkInvalid({ message }: { message: string }): JSX.Element {
  return (
    <section class="auth-box">
      <h1>This link does not work</h1>
      <Notice kind="error">{message}</Notice>
      <p class="muted">
        Each link sets a password once, and a newer link replaces it. <a href={CONSOLE_PATHS.signIn}>Sign in</a> if your password is set.
      </p>
    </section>
  );
}

export function registerSignInPages(pages: PageRegistrar, cookies: ConsoleCookies, sessions: ConsoleSessions): void {
  pages.publicPage('GET', CONSOLE_PATHS.signIn, async ({ req, csrfToken, render, signedIn, res }) => {
    const next = safeNext(typeof req.query.next === 'string' ? req.query.next : undefined);
    if (signedIn) return res.redirect(303, next);
    render({ title: 'Sign in', body: <SignInForm csrfToken={csrfToken} next={next} passwordSet={req.query.password === 'set'} /> });
  });

  pages.publicPage('POST', CONSOLE_PATHS.signIn, async ({ req, res, csrfToken, render }) => {
    const body = formBody(req);
    const email = formValue(body, 'email') ?? '';
    const next = safeNext(formValue(body, 'next'));
    try {
      const { token, session } = await sessions.signIn({
        email,
        password: formValue(body, 'password') ?? '',
        // The client's address as Express reads it: behind the proxies PORCH_TRUSTED_PROXIES names,
        // the one they wrote in X-Forwarded-For; otherwise the connection's (regression: behind a
        // proxy every visitor shared the proxy's address, so one locked everyone out).
        address: req.ip ?? 'unknown',
        userAgent: req.get('user-agent'),
      });
      cookies.startSession(res, token, session.expiresAt - session.createdAt);
      res.redirect(303, next);
    } catch (err) {
      const error = toPorchError(err);
      if (error.code !== 'SIGN_IN_FAILED' && error.code !== 'RATE_LIMITED') throw err;
      if (error.details.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.details.retryAfterSeconds));
      render({
        title: 'Sign in',
        status: error.status,
        // Read again on reload, not sent again (regression: a reload re-posted the password and counted another failure).
        address: next === CONSOLE_PATHS.root ? CONSOLE_PATHS.signIn : `${CONSOLE_PATHS.signIn}?next=${encodeURIComponent(next)}`,
        body: <SignInForm csrfToken={csrfToken} next={next} email={email} error={error.message} />,
      });
    }
  });

  const signedOut = (res: Response) => {
    cookies.endSession(res);
    res.redirect(303, CONSOLE_PATHS.signIn);
  };
  pages.page(
    'POST',
    CONSOLE_PATHS.signOut,
    async ({ signedIn, res }) => {
      await sessions.signOut(signedIn.session);
      signedOut(res);
    },
    // A tab whose session already ended (signed out elsewhere, or idle) lands on sign-in, not on an error page.
    { signedOut },
  );

  pages.publicPage('GET', CONSOLE_PATHS.setPassword, async ({ req, csrfToken, render }) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    // Said before a password is typed (regression: a used link showed the form, and refused it after).
    if (!(await sessions.isLinkUsable(token))) {
      const error = new PorchError('LINK_INVALID', 'This link is invalid, expired or already used; ask the operator for a new one.');
      render({ title: 'Link not valid', status: error.status, body: <LinkInvalid message={error.message} /> });
      return;
    }
    render({ title: 'Choose a password', body: <SetPasswordForm csrfToken={csrfToken} token={token} /> });
  });

  pages.publicPage('POST', CONSOLE_PATHS.setPassword, async ({ req, res, csrfToken, render }) => {
    const body = formBody(req);
    const token = formValue(body, 'token') ?? '';
    const password = formValue(body, 'password') ?? '';
    try {
      if (password !== formValue(body, 'confirm')) throw new PorchError('VALIDATION_ERROR', 'The two passwords differ.');
      await sessions.redeemLink({ token, password });
      // Sets the password and signs out everywhere (this browser included): sign in with it now.
      cookies.endSession(res);
      res.redirect(303, `${CONSOLE_PATHS.signIn}?password=set`);
    } catch (err) {
      const error = toPorchError(err);
      if (error.code !== 'VALIDATION_ERROR' && error.code !== 'LINK_INVALID') throw err;
      render({
        title: 'Choose a password',
        status: error.status,
        address: `${CONSOLE_PATHS.setPassword}?token=${encodeURIComponent(token)}`,
        body: <SetPasswordForm csrfToken={csrfToken} token={token} error={error.message} />,
      });
    }
  });
}
