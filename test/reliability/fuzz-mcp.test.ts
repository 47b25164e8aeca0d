/**
 * Property-based fuzzing of the MCP endpoint: every tool called with random and adversarial
 * arguments, and random JSON-RPC messages, bodies, content types and Accept headers. The
 * invariant: never an HTTP 5xx or a hang; a failed tool call is an `isError` result whose text
 * starts with a known error code that is not a server fault; no JSON-RPC internal error; and a
 * refused call leaves the database exactly as it was.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_TABLE, type ErrorCode } from '../../src/core/errors.js';
import { MCP_PATH } from '../../src/mcp/http.js';
import { operations } from '../../src/operations/index.js';
import { exposedOn, type Operation } from '../../src/operations/operation.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { databaseFingerprint } from '../helpers/store-inspection.js';
import { OPERATION_SAMPLES } from '../helpers/operation-samples.js';
import {
  CONTENT_TYPES,
  fuzzParameters,
  headerValue,
  KNOWN_ERROR_CODES,
  nastyJson,
  nastyObject,
  nastyString,
  rawBodies,
  rawRequest,
  type RawResponse,
} from './fuzz-support.js';

const UNLIMITED_REQUESTS = 10_000_000;
const JSON_RPC_INTERNAL_ERROR = -32603;
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let harness: Harness;
let key: string;
const tools = exposedOn(operations, 'mcp-tool');
const sampleArguments = new Map<string, Record<string, unknown>>();

beforeAll(async () => {
  // No background work: a webhook an earlier accepted call queued must not be delivered (and logged) in the middle of a refused one.
  harness = await createHarness({ backgroundWork: false });
  const account = await harness.createAccount({ credits: 1_000_000 });
  key = (await harness.createKey(account.accountId, { rpm: UNLIMITED_REQUESTS, rpd: UNLIMITED_REQUESTS })).key;
  for (const operation of tools) {
    const build = OPERATION_SAMPLES[operation.name];
    if (!build) throw new Error(`No sample request for ${operation.name}`);
    const sample = await build(harness, account.accountId);
    sampleArguments.set(operation.name, {
      ...(sample.ownedId === undefined ? {} : { id: sample.ownedId }),
      ...(sample.body as Record<string, unknown> | undefined),
    });
  }
});
afterAll(() => harness.close());

function argumentNames(operation: Operation | undefined): string[] {
  if (!operation) return [];
  return [
    ...new Set([
      ...Object.keys(operation.params?.shape ?? {}),
      ...Object.keys(operation.query?.shape ?? {}),
      ...Object.keys(operation.body?.shape ?? {}),
      'use_byok',
    ]),
  ];
}

interface RpcMessage {
  jsonrpc?: unknown;
  id?: unknown;
  result?: { isError?: boolean; content?: Array<{ type: string; text?: string }> };
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describeExchange(body: unknown, response: RawResponse): string {
  const sent = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : JSON.stringify(body);
  return `${sent.slice(0, 300)} → ${response.status} ${response.text.slice(0, 400)}`;
}

/** The error code a tool error result starts with (`CODE: message Hint`). */
function toolErrorCode(message: RpcMessage): string | undefined {
  const text = message.result?.content?.[0]?.text ?? '';
  return /^([A-Z_]+):/.exec(text)?.[1];
}

/**
 * Checks one JSON-RPC answer and says whether it refused the call (so the database must be as it
 * was). A server fault is never acceptable: no 5xx code in a tool result, no -32603.
 */
function checkMessage(message: RpcMessage, exchange: string): boolean {
  if (message.error !== undefined) {
    expect(message.error.code, exchange).not.toBe(JSON_RPC_INTERNAL_ERROR);
    expect(typeof message.error.message, exchange).toBe('string');
    return true;
  }
  if (message.result?.isError) {
    const code = toolErrorCode(message);
    expect(code !== undefined && KNOWN_ERROR_CODES.has(code), `unknown error code in ${exchange}`).toBe(true);
    expect(ERROR_TABLE[code as ErrorCode].status, exchange).toBeLessThan(500);
    return true;
  }
  return false;
}

const toolNames = tools.map((operation) => operation.name);

describe('MCP fuzzing: no tool call gets a server fault, a hang, an unknown code or a database change when refused', () => {
  it.each(toolNames.map((name) => [name] as const))('%s', async (name) => {
    const operation = tools.find((candidate) => candidate.name === name);
    const names = argumentNames(operation);
    const sample = sampleArguments.get(name) ?? {};
    const args = fc.oneof(
      nastyObject(names),
      fc.tuple(fc.constantFrom(...names), fc.oneof(nastyString, nastyJson)).map(([field, value]) => ({ ...sample, [field]: value })),
      nastyJson,
    );
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(args, fc.boolean(), async (argumentsValue, withKey) => {
        // Deleting the sample card would make every later call a 404; deletes aim at a card that is not there.
        const adjusted =
          name === 'delete_context_card' &&
          argumentsValue !== null &&
          typeof argumentsValue === 'object' &&
          !Array.isArray(argumentsValue) &&
          (argumentsValue as Record<string, unknown>).id === sample.id
            ? { ...(argumentsValue as Record<string, unknown>), id: '00000000-0000-0000-0000-000000000000' }
            : argumentsValue;
        const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: adjusted } };
        const before = databaseFingerprint(harness.store);
        const response = await rawRequest(harness.url, {
          method: 'POST',
          path: MCP_PATH,
          headers: { ...MCP_HEADERS, ...(withKey ? { 'x-api-key': key } : {}) },
          body: JSON.stringify(body),
        });
        const exchange = describeExchange(body, response);
        expect(response.status, exchange).toBeLessThan(500);
        const message = parseJson(response.text) as RpcMessage | undefined;
        expect(message, exchange).toBeTypeOf('object');
        if (response.status >= 400 || (message && checkMessage(message, exchange))) {
          refused += 1;
          expect(databaseFingerprint(harness.store), `the database changed on a refused call: ${exchange}`).toBe(before);
        }
      }),
      fuzzParameters(),
    );
    expect(refused, 'no call was refused').toBeGreaterThan(0);
  });

  it('answers random JSON-RPC messages, bodies, content types and Accept headers without a fault', async () => {
    const message = fc.record(
      {
        jsonrpc: fc.oneof(fc.constant('2.0'), nastyJson),
        id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), nastyJson),
        method: fc.oneof(
          fc.constantFrom(
            'initialize',
            'tools/list',
            'tools/call',
            'prompts/list',
            'prompts/get',
            'resources/list',
            'resources/read',
            'ping',
            'notifications/initialized',
            'nope',
            '__proto__',
          ),
          nastyString,
        ),
        params: fc.oneof(nastyJson, fc.record({ name: fc.oneof(fc.constantFrom(...toolNames), nastyString), arguments: nastyJson })),
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      { weight: 4, arbitrary: message.map((value) => Buffer.from(JSON.stringify(value), 'utf8')) },
      { weight: 1, arbitrary: fc.array(message, { maxLength: 3 }).map((value) => Buffer.from(JSON.stringify(value), 'utf8')) },
      { weight: 2, arbitrary: rawBodies({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) },
    );
    await fc.assert(
      fc.asyncProperty(
        body,
        fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: undefined, freq: 3 }),
        fc.option(fc.oneof(fc.constantFrom('application/json', 'text/event-stream', '*/*', 'text/html'), headerValue), { nil: undefined, freq: 3 }),
        fc.oneof(fc.constant(key), fc.constant(undefined), headerValue),
        fc.constantFrom('POST', 'POST', 'POST', 'GET', 'DELETE', 'PUT', 'OPTIONS'),
        async (payload, contentType, accept, apiKey, method) => {
          const headers: Record<string, string> = {
            'content-type': contentType ?? MCP_HEADERS['content-type'],
            accept: accept ?? MCP_HEADERS.accept,
            ...(apiKey === undefined ? {} : { 'x-api-key': apiKey }),
          };
          const before = databaseFingerprint(harness.store);
          const response = await rawRequest(harness.url, { method, path: MCP_PATH, headers, body: payload });
          const exchange = describeExchange(payload, response);
          expect(response.status, exchange).toBeLessThan(500);
          const parsed = parseJson(response.text);
          const messages = (Array.isArray(parsed) ? parsed : parsed === undefined ? [] : [parsed]) as RpcMessage[];
          let changedAllowed = false;
          for (const entry of messages) {
            if (entry && typeof entry === 'object' && !checkMessage(entry, exchange) && entry.result !== undefined) changedAllowed = true;
          }
          if (!changedAllowed) expect(databaseFingerprint(harness.store), `the database changed: ${exchange}`).toBe(before);
        },
      ),
      fuzzParameters(),
    );
  });
});
