/**
 * The API key an HTTP request presents, read the same way by every door that takes one (REST,
 * the MCP endpoint): `X-API-Key: <key>`, or `Authorization: Bearer <key>` (what clients that only
 * know bearer tokens send). The doors pass each header's values as received, one per header line.
 *
 * - A blank key is no key.
 * - A non-blank X-API-Key is the key, whatever Authorization says: that header may belong to a
 *   proxy in front of Porch (an auth gateway's own Bearer token), as docs/mcp.md promises.
 * - A header repeated is refused, never one of its values used silently (regression: Node keeps
 *   the first of two Authorization headers, so a request ran as whichever account came first).
 * - Authorization of another scheme (Basic, a bare key) with no X-API-Key is refused, naming the
 *   forms accepted, without quoting the header: a bare key there is key material.
 *
 * X-Porch-Account is read here too (`presentedActingAccount`), so every door takes it alike.
 */
import type { Credentials } from './authenticator.js';

const AUTHORIZATION = /^(\S+)(?:[ \t]+(.*))?$/s;

const ACCEPTED_FORMS = 'send the key as X-API-Key: mdi_... or Authorization: Bearer mdi_...';

export function presentedKey(apiKeyHeaders: readonly string[], authorizationHeaders: readonly string[]): Pick<Credentials, 'apiKey' | 'problem'> {
  if (apiKeyHeaders.length > 1 || authorizationHeaders.length > 1) {
    const header = apiKeyHeaders.length > 1 ? 'X-API-Key' : 'Authorization';
    return { apiKey: undefined, problem: { code: 'INVALID_API_KEY', message: `The request has more than one ${header} header; send one key, once.` } };
  }
  const headerKey = apiKeyHeaders[0]?.trim() || undefined;
  if (headerKey !== undefined) return { apiKey: headerKey };
  const authorization = authorizationHeaders[0]?.trim() || undefined;
  if (authorization === undefined) return { apiKey: undefined };
  const [, scheme = '', token = ''] = AUTHORIZATION.exec(authorization) ?? [];
  if (scheme.toLowerCase() !== 'bearer') {
    return { apiKey: undefined, problem: { code: 'INVALID_API_KEY', message: `The Authorization header is not of the form Bearer <key>; ${ACCEPTED_FORMS}` } };
  }
  return { apiKey: token.trim() || undefined };
}

/**
 * The account a partner key acts for, from the X-Porch-Account values as received, one per
 * header line: the value as sent (a blank one included, which the authenticator refuses rather
 * than read as no header), or, for a repeated header, a problem saying so, reported once the key
 * is known good; never one of the values used silently, as with a repeated key.
 */
export function presentedActingAccount(actingAccountHeaders: readonly string[]): Pick<Credentials, 'actingAccountId' | 'actingAccountProblem'> {
  if (actingAccountHeaders.length > 1) {
    return {
      actingAccountId: undefined,
      actingAccountProblem: `The request has ${actingAccountHeaders.length} X-Porch-Account headers; send one account id (a uuid), once.`,
    };
  }
  return { actingAccountId: actingAccountHeaders[0] };
}
