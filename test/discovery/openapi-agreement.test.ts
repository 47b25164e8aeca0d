/**
 * The OpenAPI document and the server agree on which requests are valid: each request below is
 * sent to the server with a working key and read against the document by the same validator
 * the harness uses, and again with each `pattern` compiled without the `u` flag, as a JavaScript
 * client's `new RegExp(pattern)` does; the server and both readings must all accept it or all
 * refuse it. Each pair holds one request the rule refuses and one it accepts, so an agreement
 * cannot come from refusing everything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { BUNDLE_LIMITS } from '../../src/core/bundle/bundle-schema.js';
import { CARD_LIMITS } from '../../src/core/context-cards/context-cards.js';
import { MAX_VARIABLE_NESTING } from '../../src/operations/execution-schemas.js';
import { MAX_JSON_DEPTH } from '../../src/operations/invoke.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { requestProblems, type RequestParts } from '../helpers/openapi-validation.js';

let harness: Harness;
let key: string;
let ids: Record<string, string>;
let cardId: string;
beforeAll(async () => {
  harness = await createHarness();
  const created = await harness.expertWithKey({ credits: 100_000 });
  key = created.key;
  ids = (await harness.core.bundles.importBundle(created.accountId, DEMO_BUNDLE)).ids;
  const card = await harness.api<{ id: string }>('POST', '/context-cards', { key, body: { title: 'Agreement', content: 'Both ways.' } });
  cardId = card.body.data.id;
});
afterAll(() => harness.close());

interface Case {
  name: string;
  method: string;
  path: () => string;
  request: RequestParts;
}

/** A JSON array nested `depth` levels deep. */
function nested(depth: number): unknown {
  let value: unknown = [];
  for (let level = 1; level < depth; level += 1) value = [value];
  return value;
}

/** Sends the case to the server and reads it against the document, with and without the `u` flag; returns the verdicts. */
async function verdicts(entry: Case): Promise<{ server: boolean; document: string[]; documentWithoutUnicodeFlag: string[]; detail: string }> {
  const query = new URLSearchParams(entry.request.query ?? {}).toString();
  const path = `${entry.path()}${query ? `?${query}` : ''}`;
  const response = await harness.api(entry.method, path, {
    key,
    ...(entry.request.body === undefined ? {} : { body: entry.request.body }),
    ...(entry.request.headers ? { headers: entry.request.headers } : {}),
  });
  // Only a refusal for the request's own shape counts; anything else means the request was valid.
  const refused = response.status === 400;
  if (!refused && response.status >= 300) throw new Error(`unexpected answer: ${describeResponse(response)}`);
  return {
    server: !refused,
    document: requestProblems(entry.method, entry.path(), entry.request),
    documentWithoutUnicodeFlag: requestProblems(entry.method, entry.path(), entry.request, { withoutUnicodeFlag: true }),
    detail: describeResponse(response),
  };
}

const PAIRS: Array<{ rule: string; refused: Case; accepted: Case }> = [
  {
    rule: 'a PATCH must change at least one field',
    refused: { name: 'empty PATCH', method: 'PATCH', path: () => `/context-cards/${cardId}`, request: { body: {} } },
    accepted: { name: 'PATCH of one field', method: 'PATCH', path: () => `/context-cards/${cardId}`, request: { body: { emoji: null } } },
  },
  {
    rule: 'a PATCH must change a field besides expected_version (regression: the document let expected_version alone pass)',
    refused: { name: 'expected_version alone', method: 'PATCH', path: () => `/context-cards/${cardId}`, request: { body: { expected_version: 1 } } },
    accepted: { name: 'a field', method: 'PATCH', path: () => `/context-cards/${cardId}`, request: { body: { emoji: '📌' } } },
  },
  {
    rule: 'a catalog PATCH must change a field besides expected_version',
    refused: { name: 'expected_version alone', method: 'PATCH', path: () => `/skills/${ids['skill:summarise']}`, request: { body: { expected_version: 1 } } },
    accepted: { name: 'one field', method: 'PATCH', path: () => `/skills/${ids['skill:summarise']}`, request: { body: { description: 'Shorter.' } } },
  },
  {
    rule: 'a skill call needs input or context',
    refused: { name: 'neither', method: 'POST', path: () => `/skills/${ids['skill:summarise']}/execute`, request: { body: { variables: { bullets: '3' } } } },
    accepted: {
      name: 'context only',
      method: 'POST',
      path: () => `/skills/${ids['skill:summarise']}/execute`,
      request: { body: { context: 'Some text.', variables: { bullets: '3' } } },
    },
  },
  {
    rule: 'a title must hold more than whitespace',
    refused: { name: 'blank title', method: 'POST', path: () => '/context-cards', request: { body: { title: ' \t\n ', content: 'c' } } },
    accepted: { name: 'padded title', method: 'POST', path: () => '/context-cards', request: { body: { title: '  a  ', content: 'c' } } },
  },
  {
    rule: 'a title is at most its limit as sent, spaces included',
    refused: {
      name: 'over the limit by its trailing spaces',
      method: 'POST',
      path: () => '/context-cards',
      request: { body: { title: `${'a'.repeat(CARD_LIMITS.titleLength)}  `, content: 'c' } },
    },
    accepted: {
      name: 'at the limit',
      method: 'POST',
      path: () => '/context-cards',
      request: { body: { title: 'a'.repeat(CARD_LIMITS.titleLength), content: 'c' } },
    },
  },
  {
    rule: 'a limit counts characters as JSON Schema does (code points, as zod does), so an emoji is one',
    refused: {
      name: 'one emoji over the limit',
      method: 'POST',
      path: () => '/context-cards',
      request: { body: { title: '😀'.repeat(CARD_LIMITS.titleLength + 1), content: 'c' } },
    },
    accepted: {
      name: 'emoji up to the limit (twice as many UTF-16 units)',
      method: 'POST',
      path: () => '/context-cards',
      request: { body: { title: '😀'.repeat(CARD_LIMITS.titleLength), content: 'c' } },
    },
  },
  {
    rule: 'a name is at most its limit as sent, spaces included (regression: stored cut to "a")',
    refused: {
      name: 'padded past the limit',
      method: 'POST',
      path: () => '/skills',
      request: { body: { name: `a${' '.repeat(BUNDLE_LIMITS.nameLength)}`, instructions: 'x' } },
    },
    accepted: {
      name: 'at the limit',
      method: 'POST',
      path: () => '/skills',
      request: { body: { name: 'a'.repeat(BUNDLE_LIMITS.nameLength), instructions: 'x' } },
    },
  },
  {
    rule: 'a name must hold more than whitespace',
    refused: { name: 'blank name', method: 'PATCH', path: () => `/compositions/${ids['composition:release-notes']}`, request: { body: { name: '   ' } } },
    accepted: { name: 'a name', method: 'PATCH', path: () => `/compositions/${ids['composition:release-notes']}`, request: { body: { name: 'Renamed' } } },
  },
  {
    // Regression: the published `\p{...}` classes, read without the `u` flag, became the letters
    // of their names, and "Code" (every letter among them) held no visible character.
    rule: 'a name must hold a visible character',
    refused: {
      name: 'zero-width and direction marks',
      method: 'PATCH',
      path: () => `/compositions/${ids['composition:release-notes']}`,
      request: { body: { name: '\u200b\u2060\u200e' } },
    },
    accepted: {
      name: 'a visible character among them',
      method: 'PATCH',
      path: () => `/compositions/${ids['composition:release-notes']}`,
      request: { body: { name: '\u200bCode\u200e' } },
    },
  },
  {
    rule: 'a category must hold more than whitespace',
    refused: { name: 'blank category', method: 'POST', path: () => '/skills', request: { body: { name: 's', instructions: 'x', category: ' ' } } },
    accepted: { name: 'a category', method: 'POST', path: () => '/skills', request: { body: { name: 's', instructions: 'x', category: 'writing' } } },
  },
  {
    rule: "a custom rule's label must hold more than whitespace",
    refused: {
      name: 'blank label',
      method: 'POST',
      path: () => '/organisation/sanitiser-rules',
      request: { body: { rule_id: 'custom.blank', label: '  ', severity: 'warn', kind: 'regex', pattern: 'X-[0-9]{4}' } },
    },
    accepted: {
      name: 'a label',
      method: 'POST',
      path: () => '/organisation/sanitiser-rules',
      request: { body: { rule_id: 'custom.blank', label: 'Ticket', severity: 'warn', kind: 'regex', pattern: 'X-[0-9]{4}' } },
    },
  },
  {
    rule: 'the judge prompt must hold more than whitespace',
    refused: { name: 'blank prompt', method: 'POST', path: () => '/judge/run', request: { body: { prompt: '   ' } } },
    accepted: { name: 'a prompt', method: 'POST', path: () => '/judge/run', request: { body: { prompt: 'Write a haiku.' } } },
  },
  {
    rule: 'a judge prompt may be made of invisible characters, which a name may not',
    refused: { name: 'Unicode whitespace only', method: 'POST', path: () => '/judge/run', request: { body: { prompt: '\u3000\u2028\u00a0' } } },
    accepted: { name: 'zero-width characters only', method: 'POST', path: () => '/judge/run', request: { body: { prompt: '\u200b\u2060' } } },
  },
  ...['1e2', '0x10', ' 5', '5.0', ''].map((limit) => ({
    rule: `a numeric query parameter is decimal digits (${JSON.stringify(limit)})`,
    refused: { name: `limit=${limit}`, method: 'GET', path: () => '/context-cards', request: { query: { limit } } },
    accepted: { name: 'limit=10', method: 'GET', path: () => '/context-cards', request: { query: { limit: '10' } } },
  })),
  {
    rule: 'X-Porch-Account is a uuid, whichever key is sent',
    refused: { name: 'malformed', method: 'GET', path: () => '/context-cards', request: { headers: { 'x-porch-account': 'not-an-account' } } },
    accepted: {
      name: 'a uuid (ignored for a user key)',
      method: 'GET',
      path: () => '/context-cards',
      request: { headers: { 'x-porch-account': '0190f1a2-0000-7000-8000-000000000000' } },
    },
  },
  {
    rule: `a variable's value nests at most ${MAX_VARIABLE_NESTING} levels`,
    refused: {
      name: 'a value nested one level too deep',
      method: 'POST',
      path: () => `/compositions/${ids['composition:release-notes']}/execute`,
      request: { body: { variables: { product: 'Porch', version: '1', changes: nested(MAX_VARIABLE_NESTING + 1) } } },
    },
    accepted: {
      name: 'a value nested to the limit',
      method: 'POST',
      path: () => `/compositions/${ids['composition:release-notes']}/execute`,
      request: { body: { variables: { product: 'Porch', version: '1', changes: nested(MAX_VARIABLE_NESTING) } } },
    },
  },
  {
    rule: `a body nests at most ${MAX_JSON_DEPTH} levels`,
    refused: {
      name: 'a body nested too deep',
      method: 'POST',
      path: () => '/context-cards',
      request: { body: { title: 't', content: 'c', tags: nested(MAX_JSON_DEPTH) } },
    },
    accepted: { name: 'a flat body', method: 'POST', path: () => '/context-cards', request: { body: { title: 't', content: 'c', tags: ['a'] } } },
  },
];

describe('the OpenAPI document and the server agree on validity (regressions: each rule was judged differently)', () => {
  for (const { rule, refused, accepted } of PAIRS) {
    it(`${rule}: both refuse "${refused.name}" and both accept "${accepted.name}"`, async () => {
      const no = await verdicts(refused);
      expect(no.server, `server accepted ${refused.name}: ${no.detail}`).toBe(false);
      expect(no.document, `document accepted ${refused.name}`).not.toEqual([]);
      expect(no.documentWithoutUnicodeFlag, `document read without the u flag accepted ${refused.name}`).not.toEqual([]);
      const yes = await verdicts(accepted);
      expect(yes.server, `server refused ${accepted.name}: ${yes.detail}`).toBe(true);
      expect(yes.document, `document refused ${accepted.name}`).toEqual([]);
      expect(yes.documentWithoutUnicodeFlag, `document read without the u flag refused ${accepted.name}`).toEqual([]);
    });
  }
});
