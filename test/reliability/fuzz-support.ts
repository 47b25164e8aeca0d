/**
 * Shared pieces of the fuzz suites: the seed and run count (fixed in CI, larger with `npm run
 * fuzz`), a raw HTTP client that can send any bytes and headers, and the adversarial values
 * the arbitraries draw on.
 */
import { request } from 'node:http';
import fc from 'fast-check';
import { ERROR_CODES } from '../../src/core/errors.js';

/** A fixed seed, so a CI failure reproduces exactly; PORCH_FUZZ_SEED explores other sequences. */
export const FUZZ_SEED = Number(process.env.PORCH_FUZZ_SEED ?? 20_260_505);
/** Runs per property: small in CI (the suites stay near 20 s), larger through `npm run fuzz`. */
export const FUZZ_RUNS = Number(process.env.PORCH_FUZZ_RUNS ?? 25);
/** "Never a hang": an answer slower than this fails the property. */
export const REQUEST_DEADLINE_MS = 10_000;

export const KNOWN_ERROR_CODES = new Set<string>(ERROR_CODES);

export function fuzzParameters(): fc.Parameters<unknown> {
  return { seed: FUZZ_SEED, numRuns: FUZZ_RUNS, endOnFailure: true };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface RawRequest {
  method: string;
  /** Path and query, sent exactly as given (no normalisation or re-encoding). */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

/** One request with node:http, which sends the path and body bytes untouched (fetch would not). */
export function rawRequest(baseUrl: string, { method, path, headers = {}, body }: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(REQUEST_DEADLINE_MS, () => req.destroy(new Error(`no answer within ${REQUEST_DEADLINE_MS} ms: ${method} ${path}`)));
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Strings that have broken parsers, databases and templating before. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDFFFy',
  '\uFFFE\uFFFF',
  '\u202Eevil',
  '💥'.repeat(3),
  '{{',
  '{{__proto__}}',
  '{{constructor}}',
  '{{ nope }}',
  "'; drop table accounts; --",
  '%00',
  '%E0%A4%A',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '\r\nX-Injected: 1',
  'x'.repeat(70_000),
];

export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

export const NASTY_NUMBERS = [0, -0, -1, 0.5, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER + 2, 2 ** 31, -(2 ** 63)];

/**
 * Nasty strings short enough for a URL or header: Node refuses more than 16 KiB of request line
 * and headers with a bare 431 before any route runs (a transport limit, tested on its own).
 */
export const shortNastyString = fc.oneof(fc.constantFrom(...NASTY_STRINGS.filter((text) => text.length < 1_000)), fc.string({ unit: 'binary', maxLength: 40 }));

/** A string from the nasty list, or a random one (any code unit, lone surrogates included). */
export const nastyString = fc.oneof(fc.constantFrom(...NASTY_STRINGS), fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ maxLength: 20 }));

/** Any JSON value, with adversarial leaves and prototype keys mixed in. */
export const nastyJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    nastyString,
    fc.constantFrom(...NASTY_NUMBERS),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ maxLength: 8 })), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/**
 * An object built from the operation's own field names (so the validator sees plausible shapes
 * with wrong values) plus prototype keys and random ones.
 */
export function nastyObject(fieldNames: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  const keys =
    fieldNames.length > 0
      ? fc.oneof(fc.constantFrom(...fieldNames), fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ maxLength: 8 }))
      : fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ maxLength: 8 }));
  return fc.dictionary(keys, nastyJson, { maxKeys: 6 });
}

/** JSON text nested `depth` levels deep, as arrays or objects. */
export function deeplyNested(depth: number, kind: 'array' | 'object', leaf = '1'): string {
  return kind === 'array' ? `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
}

/**
 * Raw body texts no JSON.stringify would produce: numbers out of range, duplicated and prototype
 * keys, deep nesting, bytes that are not UTF-8, truncation.
 */
export function rawBodies(validBody: unknown): fc.Arbitrary<Buffer> {
  const valid = JSON.stringify(validBody ?? {});
  const field = validBody && typeof validBody === 'object' ? (Object.keys(validBody)[0] ?? 'x') : 'x';
  return fc.oneof(
    fc
      .constantFrom(
        '',
        'null',
        '[]',
        '"text"',
        '1e999',
        '{"__proto__": {"polluted": true}}',
        `{"constructor": {"prototype": {"polluted": true}}, ${valid.slice(1)}`,
        `{"${field}": 1e999}`,
        `{"${field}": 123456789012345678901234567890}`,
        `{"${field}": -0.0e-400}`,
        `{"${field}": "a", "${field}": "b"}`,
        `{"${field}": "\\ud800"}`,
        `{"${field}": "\\u0000"}`,
        valid.slice(0, Math.max(1, valid.length - 1)),
        `${valid}garbage`,
        `\uFEFF${valid}`,
        `{"variables": ${deeplyNested(5_000, 'object')}}`,
        `{"variables": {"deep": ${deeplyNested(100_000, 'array')}}}`,
        `{"${field}": ${deeplyNested(20_000, 'object')}}`,
        deeplyNested(200_000, 'array'),
      )
      .map((text) => Buffer.from(text, 'utf8')),
    fc.constantFrom(
      Buffer.from([0xff, 0xfe, 0x7b, 0x7d]),
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
      Buffer.from([0xed, 0xa0, 0x80]),
    ),
    fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
  );
}

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset=bogus',
  'application/merge-patch+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'json',
  '*/*',
];

/** Header values Node's client will send (printable Latin-1), from plausible to absurd. */
export const headerValue = fc.oneof(
  fc.constantFrom('', ' ', 'null', 'undefined', 'mdi_', 'mpk_', 'Bearer', 'x'.repeat(4_000), '00000000-0000-0000-0000-000000000000', 'ÿÿÿ'),
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 80 }),
);

/** Percent-encodes every byte of the text's UTF-8 (encodeURIComponent throws on lone surrogates). */
export function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`).join('');
}

/** Path segments for `{id}`: not uuids, uuids of nothing, traversal, malformed percent-escapes. */
export const pathId = fc.oneof(
  fc.constantFrom(
    'not-a-uuid',
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-7fff-bfff-ffffffffffff',
    '%',
    '%E0%A4%A',
    '%00',
    '%ED%A0%80',
    '..%2F..%2Fhealth',
    '%2e%2e',
    'a'.repeat(5_000),
    "1'%20or%20'1'='1",
  ),
  fc.uuid(),
  fc.string({ unit: 'binary', maxLength: 40 }).map(percentEncode),
);

/** Whether a response is the API's error envelope with a code from the error table. */
export function isKnownErrorEnvelope(text: string): boolean {
  try {
    const body = JSON.parse(text) as { success?: unknown; error?: { code?: unknown; message?: unknown } };
    return body.success === false && typeof body.error?.code === 'string' && KNOWN_ERROR_CODES.has(body.error.code) && typeof body.error.message === 'string';
  } catch {
    return false;
  }
}
