/**
 * Property-based fuzzing of every REST operation: random and adversarial bodies, content types,
 * headers, path ids and query strings. The invariant for every request: an answer within the
 * deadline, never a 5xx; every refusal is the error envelope with a code from the error table,
 * documented for the operation in the OpenAPI document; and a refused request leaves the database
 * exactly as it was.
 *
 * CI runs a fixed seed and a small run count; `npm run fuzz` runs many more (PORCH_FUZZ_RUNS).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../src/operations/index.js';
import { exposedOn, type Operation } from '../../src/operations/operation.js';

const restOperations = exposedOn(operations as readonly Operation[], 'rest');
import { API_BASE_PATH } from '../../src/rest/create-rest-app.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { validateAgainstOpenApi } from '../helpers/openapi-validation.js';
import { databaseFingerprint } from '../helpers/store-inspection.js';
import { OPERATION_SAMPLES, type SampleRequest } from '../helpers/operation-samples.js';
import {
  CONTENT_TYPES,
  fuzzParameters,
  headerValue,
  isKnownErrorEnvelope,
  nastyObject,
  nastyString,
  pathId,
  percentEncode,
  rawBodies,
  rawRequest,
  shortNastyString,
  type RawResponse,
} from './fuzz-support.js';

/** High enough that the rate limiter never refuses during a fuzz run (it is tested elsewhere). */
const UNLIMITED_REQUESTS = 10_000_000;

let harness: Harness;
let key: string;
let otherKey: string;
let accountId: string;
const samples = new Map<string, SampleRequest>();

beforeAll(async () => {
  // No background work: a webhook an earlier accepted call queued must not be delivered (and logged) in the middle of a refused one.
  harness = await createHarness({ backgroundWork: false });
  const account = await harness.createAccount({ credits: 1_000_000 });
  accountId = account.accountId;
  key = (await harness.createKey(accountId, { rpm: UNLIMITED_REQUESTS, rpd: UNLIMITED_REQUESTS })).key;
  const other = await harness.createAccount({ credits: 1_000_000 });
  otherKey = (await harness.createKey(other.accountId, { rpm: UNLIMITED_REQUESTS, rpd: UNLIMITED_REQUESTS })).key;
  for (const operation of restOperations) {
    const build = OPERATION_SAMPLES[operation.name];
    if (!build) throw new Error(`No sample request for ${operation.name}`);
    samples.set(operation.name, await build(harness, accountId));
  }
});
afterAll(() => harness.close());

function fieldNames(operation: Operation): string[] {
  return [...Object.keys(operation.body?.shape ?? {}), 'use_byok', 'inputs'];
}

type KeyChoice = { kind: 'valid' } | { kind: 'other' } | { kind: 'none' } | { kind: 'header'; value: string } | { kind: 'bearer'; value: string };

const keyChoice: fc.Arbitrary<KeyChoice> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'valid' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'other' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 1, arbitrary: headerValue.map((value) => ({ kind: 'header' as const, value })) },
  { weight: 1, arbitrary: headerValue.map((value) => ({ kind: 'bearer' as const, value })) },
);

function keyHeaders(choice: KeyChoice): Record<string, string> {
  switch (choice.kind) {
    case 'valid':
      return { 'x-api-key': key };
    case 'other':
      return { 'x-api-key': otherKey };
    case 'none':
      return {};
    case 'header':
      return { 'x-api-key': choice.value };
    case 'bearer':
      return { authorization: `Bearer ${choice.value}` };
  }
}

function requestArbitrary(operation: Operation, sample: SampleRequest) {
  const body = fc.oneof(
    { weight: 3, arbitrary: nastyObject(fieldNames(operation)).map((value) => Buffer.from(JSON.stringify(value), 'utf8')) },
    {
      weight: 2,
      // The valid sample with one field replaced by an adversarial value.
      arbitrary: fc
        .tuple(fc.constantFrom(...fieldNames(operation)), fc.oneof(nastyString, fc.jsonValue({ maxDepth: 3 })))
        .map(([field, value]) => Buffer.from(JSON.stringify({ ...(sample.body as Record<string, unknown> | undefined), [field]: value }), 'utf8')),
    },
    { weight: 2, arbitrary: rawBodies(sample.body) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  return fc.record({
    method: fc.oneof(
      { weight: 8, arbitrary: fc.constant(operation.method) },
      { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS') },
    ),
    id: fc.option(pathId, { nil: undefined, freq: 2 }),
    query: fc.option(
      fc.array(
        fc.tuple(
          fc.constantFrom('limit', 'cursor', 'x', '__proto__', 'limit[]'),
          fc.oneof(shortNastyString, fc.constantFrom('1', '0', '-1', '1e3', '501', '9'.repeat(40))),
        ),
        { maxLength: 3 },
      ),
      { nil: undefined, freq: 3 },
    ),
    body,
    contentType: fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: undefined, freq: 4 }),
    key: keyChoice,
    idempotencyKey: fc.option(headerValue, { nil: undefined, freq: 3 }),
    actingAccount: fc.option(fc.oneof(headerValue, fc.uuid()), { nil: undefined, freq: 6 }),
    requestId: fc.option(headerValue, { nil: undefined, freq: 4 }),
  });
}

function buildPath(sample: SampleRequest, id: string | undefined, query: Array<[string, string]> | undefined): string {
  let path = sample.path;
  if (id !== undefined && sample.ownedId !== undefined) path = path.replace(sample.ownedId, id);
  else if (id !== undefined && sample.path.includes('/context-cards/')) path = path.replace(/[^/]+$/, id);
  if (query && query.length > 0) path += `?${query.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join('&')}`;
  return API_BASE_PATH + path;
}

function describeExchange(method: string, path: string, response: RawResponse): string {
  return `${method} ${path.slice(0, 200)} → ${response.status} ${response.text.slice(0, 400)}`;
}

/** Operations whose successful sample deletes its own target: fuzzing them must not use the sample id up. */
const CONSUMES_SAMPLE = new Set(['delete_context_card']);

describe('REST fuzzing: no request gets a 5xx, a hang, an unknown code or a database change when refused', () => {
  it.each(restOperations.map((operation) => [operation.name, operation] as const))('%s', async (_name, operation) => {
    const sample = samples.get(operation.name);
    if (!sample) throw new Error(`no sample for ${operation.name}`);
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(requestArbitrary(operation, sample), async (input) => {
        // Deleting the sample card would turn every later request into a 404; point deletes at fuzzed ids.
        const id = CONSUMES_SAMPLE.has(operation.name) && input.id === undefined ? '00000000-0000-0000-0000-000000000000' : input.id;
        const path = buildPath(sample, id, input.query);
        const headers: Record<string, string> = { ...keyHeaders(input.key) };
        if (input.body !== undefined) headers['content-type'] = input.contentType ?? 'application/json';
        if (input.idempotencyKey !== undefined) headers['idempotency-key'] = input.idempotencyKey;
        if (input.actingAccount !== undefined) headers['x-porch-account'] = input.actingAccount;
        if (input.requestId !== undefined) headers['x-request-id'] = input.requestId;

        const before = databaseFingerprint(harness.store);
        const response = await rawRequest(harness.url, { method: input.method, path, headers, ...(input.body === undefined ? {} : { body: input.body }) });
        const exchange = describeExchange(input.method, path, response);
        expect(response.status, exchange).toBeLessThan(500);
        if (input.method === 'OPTIONS' && response.status === 204) return;
        if (response.status >= 400) {
          refused += 1;
          expect(isKnownErrorEnvelope(response.text), exchange).toBe(true);
          expect(databaseFingerprint(harness.store), `the database changed on a refused request: ${exchange}`).toBe(before);
        } else {
          accepted += 1;
        }
        const headerBag = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') headerBag.set(name, value);
        let parsed: unknown = response.text;
        try {
          parsed = response.text.length > 0 ? JSON.parse(response.text) : undefined;
        } catch {
          parsed = response.text;
        }
        // Malformed escapes make the path unmatchable for the validator's router; the server's answer was checked above.
        if (!/%(?![0-9A-Fa-f]{2})|%(?:00|E0%A4%A|ED%A0%80)/i.test(path))
          validateAgainstOpenApi(input.method, path.slice(API_BASE_PATH.length), response.status, headerBag, parsed);
      }),
      fuzzParameters(),
    );
    // A fuzz run that never reached the operation would prove nothing.
    expect(refused, 'no request was refused').toBeGreaterThan(0);
    if (operation.name !== 'delete_context_card') expect(accepted + refused).toBeGreaterThan(0);
  });
});
