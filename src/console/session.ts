/**
 * The console's cookies and CSRF protection.
 *
 * - The session cookie holds a random token (its sha256 is the database's key); HttpOnly,
 *   SameSite=Lax, and Secure with the `__Host-` prefix when the site is served over https.
 * - Every state change carries a CSRF token in the form (`_csrf`) or the `X-CSRF-Token` header.
 *   Signed in, it is an HMAC of the session token, so it needs no storage and dies with the
 *   session; before sign-in (the sign-in and set-password forms) it is a random value that must
 *   match a SameSite=Lax cookie (double submit). Lax, not Strict: a page opened from another
 *   site (the refine link an MCP client shows) must see the cookie it already has, or it would
 *   set a new one under the forms of the tabs already open (regression: they were refused). A
 *   request a browser marks `Sec-Fetch-Site: cross-site` is refused whatever it carries, and a
 *   cross-site POST never carries a Lax cookie.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { Request, Response } from 'express';
import type { SignedInSession } from '../core/access/console-sessions.js';
import type { Core } from '../core/core.js';
import { PorchError } from '../core/errors.js';

export interface CookieNames {
  session: string;
  form: string;
  secure: boolean;
}

/** `__Host-` cookies are bound to the exact origin and must be Secure, so they are used only over https. */
export function cookieNamesFor(siteUrl: string): CookieNames {
  const secure = siteUrl.startsWith('https://');
  return secure ? { session: '__Host-porch_session', form: '__Host-porch_form', secure } : { session: 'porch_session', form: 'porch_form', secure };
}

/** What a console request knows about its signer-in, once the session cookie was checked. */
export interface SignedIn extends SignedInSession {
  csrfToken: string;
}

function csrfTokenOf(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('porch console csrf').digest('base64url');
}

function sameToken(expected: string, sent: unknown): boolean {
  if (typeof sent !== 'string') return false;
  const left = Buffer.from(expected);
  const right = Buffer.from(sent);
  return left.length === right.length && timingSafeEqual(left, right);
}

function cookiesOf(req: Request): Record<string, string | undefined> {
  const header = req.headers.cookie;
  return header === undefined ? {} : parseCookies(header);
}

function sentCsrfToken(req: Request): unknown {
  const header = req.headers['x-csrf-token'];
  if (typeof header === 'string') return header;
  const body: unknown = req.body;
  return typeof body === 'object' && body !== null && '_csrf' in body ? body._csrf : undefined;
}

export interface ConsoleCookies {
  /** The signed-in session of the request's cookie, or null. */
  signedIn(req: Request): Promise<SignedIn | null>;
  /** Sets the session cookie for `lifetimeMs` (Max-Age, so a browser whose clock is off keeps it as long). */
  startSession(res: Response, token: string, lifetimeMs: number): void;
  endSession(res: Response): void;
  /** The token an anonymous form carries (set in a cookie on first use). */
  formToken(req: Request, res: Response): string;
  /** Throws CSRF_TOKEN_INVALID unless the request carries the token of its session (or of its anonymous form). */
  checkCsrf(req: Request, signedIn: SignedIn | null): void;
}

export function createConsoleCookies(core: Core, names: CookieNames): ConsoleCookies {
  const base = { httpOnly: true, secure: names.secure, path: '/' } as const;
  return {
    async signedIn(req) {
      const token = cookiesOf(req)[names.session];
      if (token === undefined) return null;
      const session = await core.consoleSessions.authenticate(token);
      return session && { ...session, csrfToken: csrfTokenOf(token) };
    },
    startSession(res, token, lifetimeMs) {
      res.append('Set-Cookie', serializeCookie(names.session, token, { ...base, sameSite: 'lax', maxAge: Math.floor(lifetimeMs / 1000) }));
    },
    endSession(res) {
      res.append('Set-Cookie', serializeCookie(names.session, '', { ...base, sameSite: 'lax', maxAge: 0 }));
    },
    formToken(req, res) {
      const existing = cookiesOf(req)[names.form];
      if (existing !== undefined && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
      const token = randomBytes(32).toString('base64url');
      res.append('Set-Cookie', serializeCookie(names.form, token, { ...base, sameSite: 'lax' }));
      return token;
    },
    checkCsrf(req, signedIn) {
      const refused = new PorchError('CSRF_TOKEN_INVALID', 'This form was not sent from a page of your console session. Reload the page and try again.');
      if (req.headers['sec-fetch-site'] === 'cross-site') throw refused;
      const expected = signedIn ? signedIn.csrfToken : cookiesOf(req)[names.form];
      if (expected === undefined || !sameToken(expected, sentCsrfToken(req))) throw refused;
    },
  };
}
