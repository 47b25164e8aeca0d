/**
 * A browser without a browser, for the console's HTTP tests: a cookie jar, redirects not
 * followed (so tests see them), and the page's own CSRF token read from its forms. The real
 * Chromium walk lives in test/console/*.browser.ts; this one is fast enough for every case.
 */
import type { Harness } from './harness.js';

export interface ConsolePage {
  status: number;
  headers: Headers;
  html: string;
  /** Where a redirect points (Location), or null. */
  location: string | null;
}

export interface ConsoleBrowser {
  get(path: string): Promise<ConsolePage>;
  /** Posts a form as a browser would (urlencoded); `_csrf` is the token of the last page read unless given. */
  post(path: string, fields: Record<string, string | string[]>, options?: { csrf?: string | null; headers?: Record<string, string> }): Promise<ConsolePage>;
  /** The CSRF token in the last page read. */
  csrf(): string;
  cookies(): Map<string, string>;
}

const CSRF_FIELD = /name="_csrf" value="([^"]*)"/;

export function consoleBrowser(harness: Pick<Harness, 'url'>): ConsoleBrowser {
  const jar = new Map<string, string>();
  let lastCsrf = '';

  async function send(path: string, init: RequestInit): Promise<ConsolePage> {
    const headers = new Headers(init.headers);
    if (jar.size > 0) headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetch(`${harness.url}${path}`, { ...init, headers, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = cookie.split(';');
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator).trim();
      const value = pair.slice(separator + 1).trim();
      const expired = attributes.some((attribute) => /^\s*max-age=0$/i.test(attribute));
      if (expired || value === '') jar.delete(name);
      else jar.set(name, value);
    }
    const html = await response.text();
    const token = CSRF_FIELD.exec(html)?.[1];
    if (token !== undefined) lastCsrf = token;
    return { status: response.status, headers: response.headers, html, location: response.headers.get('location') };
  }

  return {
    get: (path) => send(path, { method: 'GET' }),
    post(path, fields, options = {}) {
      const form = new URLSearchParams();
      const csrf = options.csrf === undefined ? lastCsrf : options.csrf;
      if (csrf !== null) form.append('_csrf', csrf);
      for (const [name, value] of Object.entries(fields)) for (const item of Array.isArray(value) ? value : [value]) form.append(name, item);
      return send(path, { method: 'POST', body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers } });
    },
    csrf: () => lastCsrf,
    cookies: () => jar,
  };
}

/** An account with a console password, signed in: invite link → set password → sign in, all over HTTP. */
export async function signedInBrowser(
  harness: Pick<Harness, 'url' | 'core' | 'createAccount'>,
  options: { plan?: 'expert' | 'builder' | 'free'; password?: string; email?: string } = {},
): Promise<{ browser: ConsoleBrowser; accountId: string; email: string; password: string }> {
  const email = options.email ?? `person-${Math.random().toString(36).slice(2)}@example.com`;
  const password = options.password ?? 'correct horse battery staple';
  const { accountId } = await harness.createAccount({ plan: options.plan ?? 'expert', email });
  const account = await harness.core.accounts.accountByEmail(email);
  const link = await harness.core.consoleSessions.issueLink({ account, purpose: 'invite' });
  const browser = consoleBrowser(harness);
  await browser.get(`/console/set-password?token=${link.token}`);
  const set = await browser.post('/console/set-password', { token: link.token, password, confirm: password });
  if (set.status !== 303) throw new Error(`setting the password answered ${set.status}: ${set.html.slice(0, 500)}`);
  await browser.get('/console/sign-in');
  const signedIn = await browser.post('/console/sign-in', { email, password, next: '/console' });
  if (signedIn.status !== 303) throw new Error(`signing in answered ${signedIn.status}: ${signedIn.html.slice(0, 500)}`);
  await browser.get('/console');
  return { browser, accountId, email, password };
}

/**
 * The text of the first textarea whose start tag holds `attribute` (e.g. `id="prompt"`), as a
 * browser reads it: the line break right after the start tag dropped, entities decoded.
 */
export function textareaText(html: string, attribute: string): string {
  const start = html.search(new RegExp(`<textarea[^>]*${attribute.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[^>]*>`));
  if (start === -1) return '';
  const open = html.indexOf('>', start) + 1;
  const raw = html.slice(open, html.indexOf('</textarea>', open)).replace(/^\r?\n/, '');
  return raw.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');
}
