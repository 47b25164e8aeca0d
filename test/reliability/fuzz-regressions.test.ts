/**
 * One test per failure the fuzz suites found, named after what broke, so each stays fixed even
 * if a future seed never generates that input again.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_VARIABLE_NESTING } from '../../src/operations/execution-schemas.js';
import { MAX_JSON_DEPTH } from '../../src/operations/invoke.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { mcpUrl } from '../helpers/mcp-client.js';
import { OPERATION_SAMPLES } from '../helpers/operation-samples.js';
import { deeplyNested, rawRequest } from './fuzz-support.js';

let harness: Harness;
let key: string;
let accountId: string;
beforeEach(async () => {
  harness = await createHarness();
  ({ key, accountId } = await harness.expertWithKey());
});
afterEach(() => harness.close());

describe('fuzz regressions', () => {
  it('a path with a malformed percent-escape (/workflows/%E0%A4%A/execute) is 400 VALIDATION_ERROR, not 500', async () => {
    for (const path of ['/workflows/%E0%A4%A/execute', '/context-cards/%', '/context-cards/%ED%A0%80']) {
      const response = await rawRequest(harness.url, { method: 'GET', path: `/api/public/v1${path}`, headers: { 'x-api-key': key } });
      expect(response.status, `${path}: ${response.text}`).toBe(400);
      expect(JSON.parse(response.text).error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('a body on GET is ignored instead of answered 415', async () => {
    const response = await rawRequest(harness.url, {
      method: 'GET',
      path: '/api/public/v1/context-cards',
      headers: { 'x-api-key': key, 'content-type': 'text/plain' },
      body: 'not json',
    });
    expect(response.status, response.text).toBe(200);
  });

  it('a body sent to a path no route matches (/workflows//execute) is 404, not 415', async () => {
    const response = await rawRequest(harness.url, {
      method: 'POST',
      path: '/api/public/v1/workflows//execute',
      headers: { 'x-api-key': key, 'content-type': 'multipart/form-data; boundary=x' },
      body: '{}',
    });
    expect(response.status, response.text).toBe(404);
    expect(JSON.parse(response.text).error.code).toBe('NOT_FOUND');
  });

  it('OPTIONS on an API path is 405 with Allow and the envelope, not a plain-text 200', async () => {
    const response = await harness.api('OPTIONS', '/workflows');
    expect(response.status, describeResponse(response)).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST');
    expect(response.body.error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it(`a body nested deeper than ${MAX_JSON_DEPTH} levels with an Idempotency-Key is 400, not a stack overflow 500`, async () => {
    const sample = await OPERATION_SAMPLES.execute_workflow?.(harness, accountId);
    if (!sample) throw new Error('no sample');
    const before = await harness.core.credits.balance(accountId);
    for (const variables of [`{"deep": ${deeplyNested(100_000, 'array')}}`, deeplyNested(MAX_JSON_DEPTH + 1, 'object')]) {
      const response = await harness.api('POST', sample.path, {
        key,
        rawBody: `{"variables": ${variables}}`,
        headers: { 'content-type': 'application/json', 'idempotency-key': 'deep-1' },
      });
      expect(response.status, describeResponse(response)).toBe(400);
      expect(response.body.error.message).toMatch(/nests deeper than/);
    }
    expect(await harness.core.credits.balance(accountId)).toEqual(before);
    const shallow = await harness.api('POST', sample.path, {
      key,
      body: {
        variables: { ...(sample.body as { variables: Record<string, unknown> }).variables, extra: JSON.parse(deeplyNested(MAX_VARIABLE_NESTING, 'object')) },
      },
    });
    expect(shallow.status, describeResponse(shallow)).toBe(200);
  });

  it('MCP tools/call with non-object arguments is -32602 Invalid params, not -32603 Internal error', async () => {
    const response = await fetch(mcpUrl(harness), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_workflows', arguments: true } }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { id: number; error: { code: number; message: string } };
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32602);
  });

  it('MCP initialize without a protocol version or capabilities is -32602 Invalid params, not -32603', async () => {
    const response = await fetch(mcpUrl(harness), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'T', method: 'initialize', params: { name: "'; drop table accounts; --", arguments: {} } }),
    });
    const body = (await response.json()) as { id: string; error: { code: number; message: string } };
    expect(body.id).toBe('T');
    expect(body.error.code).toBe(-32602);
  });
});
