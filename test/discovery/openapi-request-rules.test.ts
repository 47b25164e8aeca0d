/**
 * The OpenAPI document's description states every rule that holds for any request whatever its
 * schema (core/validation.ts jsonValueProblem), each with the words the server refuses it in.
 * Regression: it spoke of "two rules" (nesting and NUL) while the server also refused lone
 * surrogates and `__proto__` members.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LONE_SURROGATE_MESSAGE, NUL_MESSAGE, PROTO_KEY_MESSAGE } from '../../src/core/validation.js';
import { MAX_JSON_DEPTH } from '../../src/operations/invoke.js';
import { operations } from '../../src/operations/index.js';
import { buildOpenApiDocument } from '../../src/rest/discovery/openapi.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

const description = buildOpenApiDocument(operations, { siteUrl: 'http://127.0.0.1:3000' }).info.description;

let harness: Harness;
let key: string;
beforeAll(async () => {
  harness = await createHarness();
  ({ key } = await harness.expertWithKey({ scopes: ['api:context-cards'] }));
});
afterAll(() => harness.close());

describe('the rules every request meets, whatever its schema', () => {
  it('are each stated in the document, in the words of the refusal', () => {
    expect(description).toContain(`nests at most ${MAX_JSON_DEPTH} levels`);
    for (const message of [NUL_MESSAGE, LONE_SURROGATE_MESSAGE, PROTO_KEY_MESSAGE]) expect(description, description).toContain(message);
    expect(description).not.toMatch(/Two rules/);
  });

  it.each([
    ['a NUL character', '{"title":"a\\u0000b","content":"C"}', `body.title: ${NUL_MESSAGE}`],
    ['a lone surrogate', '{"title":"a\\ud800b","content":"C"}', `body.title: ${LONE_SURROGATE_MESSAGE}`],
    ['a __proto__ member', '{"title":"T","content":"C","__proto__":{}}', `body.__proto__: ${PROTO_KEY_MESSAGE}`],
  ])('are what the server refuses: %s', async (_, rawBody, message) => {
    const response = await harness.api<unknown>('POST', '/context-cards', { key, rawBody, headers: { 'content-type': 'application/json' } });
    expect(response.status, describeResponse(response)).toBe(400);
    expect(response.body.error?.message, describeResponse(response)).toContain(message);
  });
});
