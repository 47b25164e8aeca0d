/** The response validator the harness runs on every API response: it must catch each kind of drift. */
import { describe, expect, it } from 'vitest';
import { API_VERSION } from '../../src/core/health.js';
import { OpenApiMismatchError, validateAgainstOpenApi } from '../helpers/openapi-validation.js';

const CARD = {
  id: '0196a0c4-7e3a-7c1e-9b1d-2f6c8e4a5b10',
  title: 'Brand voice',
  content: 'Warm.',
  category: null,
  tags: [],
  description: null,
  emoji: null,
  version: 1,
  created_at: '2026-05-05T09:30:00.000Z',
  updated_at: '2026-05-05T09:30:00.000Z',
};
const CARD_PATH = `/context-cards/${CARD.id}`;

function headers(extra: Record<string, string> = {}): Headers {
  return new Headers({
    'content-type': 'application/json; charset=utf-8',
    'x-api-version': API_VERSION,
    'x-request-id': 'req-1',
    'x-ratelimit-limit': '120',
    'x-ratelimit-remaining': '119',
    'x-ratelimit-reset': '1777939260',
    'x-ratelimit-daily-limit': '20000',
    'x-ratelimit-daily-remaining': '19999',
    'x-credits-remaining': '1000',
    ...extra,
  });
}

function mismatch(run: () => void): string {
  try {
    run();
  } catch (err) {
    if (err instanceof OpenApiMismatchError) return err.message;
    throw err;
  }
  throw new Error('expected an OpenApiMismatchError');
}

describe('validateAgainstOpenApi', () => {
  it('accepts a response that matches the document', () => {
    expect(() => validateAgainstOpenApi('GET', CARD_PATH, 200, headers(), { success: true, data: CARD })).not.toThrow();
    expect(() => validateAgainstOpenApi('DELETE', CARD_PATH, 204, headers({ 'content-type': '' }), undefined)).not.toThrow();
  });

  it('rejects a status the operation does not document', () => {
    expect(mismatch(() => validateAgainstOpenApi('GET', CARD_PATH, 418, headers(), { success: true, data: CARD }))).toMatch(
      /status 418 is not documented for getContextCard/,
    );
  });

  it('rejects a body with a field the schema does not have, or missing one it requires', () => {
    expect(mismatch(() => validateAgainstOpenApi('GET', CARD_PATH, 200, headers(), { success: true, data: { ...CARD, secret: 'x' } }))).toMatch(
      /additional properties/,
    );
    const { title: _title, ...withoutTitle } = CARD;
    expect(mismatch(() => validateAgainstOpenApi('GET', CARD_PATH, 200, headers(), { success: true, data: withoutTitle }))).toMatch(/title/);
  });

  it('rejects a missing required header and a malformed one', () => {
    const without = headers();
    without.delete('x-api-version');
    expect(mismatch(() => validateAgainstOpenApi('GET', CARD_PATH, 200, without, { success: true, data: CARD }))).toMatch(/X-API-Version is missing/);
    const noCredits = headers();
    noCredits.delete('x-credits-remaining');
    expect(mismatch(() => validateAgainstOpenApi('GET', CARD_PATH, 200, noCredits, { success: true, data: CARD }))).toMatch(/X-Credits-Remaining is missing/);
    expect(mismatch(() => validateAgainstOpenApi('GET', CARD_PATH, 200, headers({ 'x-ratelimit-remaining': 'lots' }), { success: true, data: CARD }))).toMatch(
      /X-RateLimit-Remaining/,
    );
  });

  it('rejects an error code the status does not list, and a 429 without Retry-After', () => {
    const error = (code: string) => ({ success: false, error: { code, message: 'm', request_id: 'req-1' } });
    expect(mismatch(() => validateAgainstOpenApi('GET', CARD_PATH, 404, headers(), error('NOT_A_CODE')))).toMatch(/allowed values|enum/);
    expect(() => validateAgainstOpenApi('GET', CARD_PATH, 404, headers(), error('RESOURCE_NOT_FOUND'))).not.toThrow();
    const limited = { success: false, error: { code: 'RATE_LIMITED', message: 'm', request_id: 'req-1', retry_after: 5 } };
    expect(mismatch(() => validateAgainstOpenApi('GET', CARD_PATH, 429, headers(), limited))).toMatch(/Retry-After is missing/);
    expect(() => validateAgainstOpenApi('GET', CARD_PATH, 429, headers({ 'retry-after': '5' }), limited)).not.toThrow();
  });

  it('rejects an undocumented content type and a body on a no-body response', () => {
    expect(mismatch(() => validateAgainstOpenApi('GET', CARD_PATH, 200, headers({ 'content-type': 'text/html' }), '<p>hi</p>'))).toMatch(
      /content type "text\/html" is not documented/,
    );
    expect(mismatch(() => validateAgainstOpenApi('DELETE', CARD_PATH, 204, headers(), { success: true }))).toMatch(/says no body/);
  });

  it('expects 404 NOT_FOUND for undocumented paths and 405 with Allow for undocumented methods', () => {
    const notFound = { success: false, error: { code: 'NOT_FOUND', message: 'm', request_id: 'req-1' } };
    expect(() => validateAgainstOpenApi('GET', '/nothing-here', 404, headers(), notFound)).not.toThrow();
    expect(mismatch(() => validateAgainstOpenApi('GET', '/nothing-here', 200, headers(), { success: true, data: {} }))).toMatch(/no documented path matches/);
    const notAllowed = { success: false, error: { code: 'METHOD_NOT_ALLOWED', message: 'm', request_id: 'req-1' } };
    expect(mismatch(() => validateAgainstOpenApi('PUT', '/context-cards', 405, headers(), notAllowed))).toMatch(/Allow is missing/);
    expect(() => validateAgainstOpenApi('PUT', '/context-cards', 405, headers({ allow: 'GET, POST' }), notAllowed)).not.toThrow();
  });
});
