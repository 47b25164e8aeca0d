/**
 * The OpenAPI 3.1 document, generated at start-up from the operation definitions and the error
 * table, so it cannot drift from what the server does: every path and method, parameters and
 * bodies (input side), success envelopes (output side), every error an operation can answer
 * with and the headers each response carries.
 *
 * Schemas come from zod's own `z.toJSONSchema` (see json-schema.ts); this file only assembles
 * them. Which errors an operation can produce is derived from its fields (keyed, params, body,
 * effect, idempotencyKey), never listed by hand per operation, so new operations are covered
 * without touching this file.
 */
import { z } from 'zod';
import { ERROR_TABLE, type ErrorCode, type ErrorDefinition } from '../../core/errors.js';
import { CONTENT_KINDS, DEFAULT_QUOTAS, QUOTA_KIND_NAMES } from '../../core/quotas/quotas.js';
import { API_VERSION } from '../../core/health.js';
import { LONE_SURROGATE_MESSAGE, NUL_MESSAGE, PROTO_KEY_MESSAGE } from '../../core/validation.js';
import { describeScopes, isExposedOn, operationId, type Operation } from '../../operations/operation.js';
import { MAX_JSON_DEPTH, QUEUED_STATUS } from '../../operations/invoke.js';
import { queuedRunSchema } from '../../operations/self-service-schemas.js';
import { toOpenApiSchema, objectProperties, type JsonSchema } from './json-schema.js';
import { EXAMPLE_UUID, exampleFor } from './openapi-examples.js';
import { SITE_PATHS, siteLink } from '../../operations/site-paths.js';
import { EVENT_STREAM_MEDIA_TYPE } from '../event-stream.js';

export const OPENAPI_VERSION = '3.1.0';
export const MARKDOWN_MEDIA_TYPE = 'text/markdown';

export interface OpenApiOptions {
  /** `{site_url}`: the public origin, used for the server URL and links. */
  siteUrl: string;
}

export interface HeaderObject {
  description: string;
  required?: boolean;
  schema: JsonSchema;
}

export interface MediaTypeObject {
  schema: JsonSchema;
  example?: unknown;
  examples?: Record<string, { summary: string; value: unknown }>;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | { $ref: string }>;
  content?: Record<string, MediaTypeObject>;
}

export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
  example?: unknown;
}

export interface OperationObject {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  parameters?: Array<ParameterObject | { $ref: string }>;
  requestBody?: { required: boolean; description?: string; content: Record<string, MediaTypeObject> };
  responses: Record<string, ResponseObject | { $ref: string }>;
  security: Array<Record<string, string[]>>;
  /** Porch extensions: the MCP tool of the same operation, the effect and the scopes that grant the call. */
  'x-porch-tool'?: string;
  'x-porch-effect': Operation['effect'];
  'x-porch-scopes'?: string[];
}

export type PathItemObject = Partial<Record<'get' | 'post' | 'patch' | 'delete', OperationObject>>;

export interface OpenApiDocument {
  openapi: typeof OPENAPI_VERSION;
  info: {
    title: string;
    version: string;
    summary: string;
    description: string;
    license: { name: string; identifier: string };
  };
  servers: Array<{ url: string; description: string }>;
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, PathItemObject>;
  components: {
    schemas: Record<string, JsonSchema>;
    headers: Record<string, HeaderObject>;
    parameters: Record<string, ParameterObject>;
    responses: Record<string, ResponseObject>;
    securitySchemes: Record<string, { type: string; in?: string; name?: string; scheme?: string; description: string }>;
  };
  externalDocs: { description: string; url: string };
}

/** Headers every response carries, errors included (DECISIONS.md, Headers). */
const ALWAYS_HEADERS = ['X-API-Version', 'X-Request-Id'] as const;
/** Headers of every authenticated response; present on errors only once the key was checked. */
const KEYED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-RateLimit-Daily-Limit',
  'X-RateLimit-Daily-Remaining',
  'X-Credits-Remaining',
] as const;

/**
 * Shared headers. Those a response must carry whenever they are referenced are `required` here;
 * the rate-limit and credit headers are optional here (errors before the key check lack them)
 * and have required copies (KEYED_SUCCESS_HEADERS) for success responses.
 */
const HEADER_COMPONENTS: Record<string, HeaderObject> = {
  'X-API-Version': { description: 'The API version; on every response, errors included.', required: true, schema: { type: 'string', const: API_VERSION } },
  'X-Request-Id': {
    description: 'Id of this request (also `error.request_id`); quote it when reporting a problem.',
    required: true,
    schema: { type: 'string', minLength: 1 },
  },
  'X-RateLimit-Limit': { description: "The key's limit of requests per minute.", schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current minute window.', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Reset': { description: 'When the minute window resets (Unix time, seconds).', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Daily-Limit': { description: "The key's limit of requests per UTC day.", schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Daily-Remaining': {
    description:
      'Requests left in the current UTC day; 0 once the day is used up (429 `DAILY_LIMIT_EXCEEDED`, whose `Retry-After` is the seconds to UTC midnight).',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-Credits-Remaining': {
    description: 'Whole credits left on the account after the request (1 credit = 1,000 tokens).',
    schema: { type: 'integer', minimum: 0 },
  },
  'Retry-After': { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'integer', minimum: 0 } },
  Location: { description: 'Where the queued run is polled: `GET /runs/{run_id}`.', required: true, schema: { type: 'string', format: 'uri' } },
  'Preference-Applied': { description: 'The preference honoured: `respond-async`.', required: true, schema: { type: 'string', const: 'respond-async' } },
  Allow: { description: 'The methods the path accepts.', required: true, schema: { type: 'string', minLength: 1 } },
};

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/**
 * The quota headers as every successful keyed response carries them: required copies, shared
 * like the rest rather than written out in every keyed success response (an OpenAPI reference
 * cannot override `required`).
 */
const KEYED_SUCCESS_HEADERS = Object.fromEntries(
  KEYED_HEADERS.map((name) => {
    const header = HEADER_COMPONENTS[name];
    if (!header) throw new Error(`Unknown header component ${name}`);
    return [`${name}-OnSuccess`, { ...header, required: true }];
  }),
);
const keyedSuccessHeaderRef = (name: (typeof KEYED_HEADERS)[number]) => headerRef(`${name}-OnSuccess`);

/**
 * The error envelope of one response: its `code` is one of the names the response lists, and a
 * 429 always has `retry_after`. Each response gets the whole envelope rather than `allOf` over a
 * shared one plus a constraint: the shared envelope closes its objects (additionalProperties:
 * false), and validators that merge `allOf` branches (Redocly's example check) then reject the
 * fields the constraint branch does not name (regression: 58 lint warnings on valid examples).
 */
function errorEnvelopeSchema(names: readonly [string, ...string[]], status: number) {
  const retryAfter = z.number().int().min(0).describe('Seconds to wait before retrying (429 only).');
  return z
    .object({
      success: z.literal(false).describe('Always false on errors.'),
      error: z.object({
        code: z
          .enum(names)
          .describe(
            'Machine-readable code. Set A names by default; Set B names (`INVALID_REQUEST`, `UNAUTHORIZED`, ...) when the server runs with PORCH_ERROR_CODES=b.',
          ),
        message: z.string().describe('What went wrong, safe to show to a person.'),
        request_id: z.string().describe('The request id, also sent in the X-Request-Id header.'),
        retry_after: status === 429 ? retryAfter : retryAfter.optional(),
      }),
    })
    .describe('The error envelope every failed request answers with.');
}

/**
 * Answers of the router and of Node's HTTP parser rather than of an operation: a path that does
 * not exist (`/workflows//execute`, a typo), a method the path does not have, headers beyond
 * Node's limit, and a request cut off at the server's timeouts (src/rest/client-error.ts). OpenAPI has no place for answers to requests that
 * match no operation, so every operation lists them: that is where generated clients and
 * validators such as Prism look for an answer's shape (regression: the shared responses were
 * defined but referenced nowhere). Each has a named shared response.
 */
const ROUTER_RESPONSES = {
  NOT_FOUND: 'NotFound',
  METHOD_NOT_ALLOWED: 'MethodNotAllowed',
  HEADERS_TOO_LARGE: 'HeadersTooLarge',
  REQUEST_TIMEOUT: 'RequestTimeout',
} as const satisfies Partial<Record<ErrorCode, string>>;
const ROUTER_ERROR_CODES = Object.keys(ROUTER_RESPONSES) as Array<keyof typeof ROUTER_RESPONSES>;

/**
 * Every error code the operation can answer with, derived from what it is:
 * any call may be malformed or meet a fault; keyed calls add authentication, scope, partner and
 * rate-limit refusals; an id in the path can miss; a body can be too large or not JSON;
 * executions add credits, model policy, provider and BYOK failures; idempotent ones add conflicts;
 * writes may meet the account's content quotas.
 */
export function possibleErrorCodes(operation: Operation): ErrorCode[] {
  const codes = new Set<ErrorCode>(['VALIDATION_ERROR', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE', ...ROUTER_ERROR_CODES]);
  if (operation.access === 'keyed') {
    for (const code of [
      'MISSING_API_KEY',
      'INVALID_API_KEY',
      'API_EXPERT_ONLY',
      'INSUFFICIENT_PERMISSIONS',
      'ACCESS_DENIED',
      'RATE_LIMITED',
      'DAILY_LIMIT_EXCEEDED',
    ] as const)
      codes.add(code);
  }
  if (operation.params) codes.add('RESOURCE_NOT_FOUND');
  if (operation.body) {
    codes.add('PAYLOAD_TOO_LARGE');
    codes.add('UNSUPPORTED_MEDIA_TYPE');
  }
  if (operation.effect === 'execute') {
    for (const code of ['INSUFFICIENT_CREDITS', 'BILLING_FAILED', 'MODEL_ACCESS_DENIED', 'AI_SERVICE_ERROR', 'BYOK_KEY_INVALID', 'CONTENT_BLOCKED'] as const)
      codes.add(code);
  }
  if (operation.idempotencyKey) codes.add('IDEMPOTENCY_CONFLICT');
  if (operation.effect === 'write') codes.add('QUOTA_EXCEEDED');
  // Writers of versioned resources retry a concurrent change themselves; CONFLICT is what is left.
  if (operation.effect === 'write' || operation.effect === 'destructive') codes.add('CONFLICT');
  return [...codes].sort((a, b) => ERROR_TABLE[a].status - ERROR_TABLE[b].status || a.localeCompare(b));
}

/** The codes as the server may emit them: the Set A name and, when it has one, its Set B name. */
function emittedNames(codes: readonly ErrorCode[]): string[] {
  const names = new Set<string>();
  for (const code of codes) {
    names.add(code);
    const definition: ErrorDefinition = ERROR_TABLE[code];
    if (definition.setB) names.add(definition.setB);
  }
  return [...names];
}

function errorExample(code: ErrorCode) {
  const definition: ErrorDefinition = ERROR_TABLE[code];
  const retry = definition.status === 429 ? { retry_after: 30 } : {};
  return {
    summary: definition.summary,
    value: { success: false, error: { code, message: `${definition.summary}.`, request_id: EXAMPLE_UUID, ...retry } },
  };
}

function errorResponse(status: number, codes: readonly ErrorCode[], keyed: boolean, shared: Record<string, JsonSchema>): ResponseObject {
  const [first, ...rest] = emittedNames(codes);
  if (first === undefined) throw new Error(`An error response for ${status} needs at least one code.`);
  const headers: Record<string, HeaderObject | { $ref: string }> = {};
  for (const name of ALWAYS_HEADERS) headers[name] = headerRef(name);
  if (keyed) for (const name of KEYED_HEADERS) headers[name] = headerRef(name);
  if (status === 429) headers['Retry-After'] = headerRef('Retry-After');
  if (status === 405) headers.Allow = headerRef('Allow');
  return {
    description: codes.map((code) => `\`${code}\`: ${ERROR_TABLE[code].summary}.`).join(' '),
    headers,
    content: {
      'application/json': {
        schema: toOpenApiSchema(errorEnvelopeSchema([first, ...rest], status), 'output', shared),
        examples: Object.fromEntries(codes.map((code) => [code, errorExample(code)])),
      },
    },
  };
}

/** Keeps an example only when the operation's own schema accepts it. */
function acceptedExample(
  schema: z.ZodType,
  json: JsonSchema,
  includeOptional: boolean,
  shared: Record<string, JsonSchema>,
  wrap: (value: unknown) => unknown = (value) => value,
): unknown {
  const value = exampleFor(json, { includeOptional, shared });
  if (value === undefined) return undefined;
  return schema.safeParse(value).success ? wrap(value) : undefined;
}

function describeAccess(operation: Operation): string {
  const lines = [operation.description];
  if (operation.access === 'keyed') lines.push(`Scopes (any one grants it): ${describeScopes(operation)}.`);
  else lines.push('Needs no API key.');
  if (operation.effect === 'execute') lines.push('Runs a model: metered in credits (1 credit = 1,000 tokens) unless a BYOK key is active.');
  if (operation.access === 'keyed' && operation.runKind)
    lines.push(
      'Send `Prefer: respond-async` to queue it as an asynchronous run: 202 with `run_id` and `Location` at once, then poll `GET /runs/{run_id}` (or cancel with `POST /runs/{run_id}/cancel`).',
    );
  if (operation.idempotencyKey)
    lines.push(
      'Send an `Idempotency-Key` header to make retries safe: a repeat with the same key and body within 24 h replays the stored response without running or charging again.',
    );
  return lines.join('\n\n');
}

function parametersOf(operation: Operation, shared: Record<string, JsonSchema>): Array<ParameterObject | { $ref: string }> {
  const parameters: Array<ParameterObject | { $ref: string }> = [];
  for (const [location, schema] of [
    ['path', operation.params],
    ['query', operation.query],
  ] as const) {
    if (!schema) continue;
    const json = toOpenApiSchema(schema, 'input', shared);
    const { properties, required } = objectProperties(json);
    const fields: Readonly<Record<string, z.core.$ZodType>> = schema instanceof z.ZodObject ? schema.shape : {};
    for (const [name, property] of Object.entries(properties)) {
      const { description, ...propertySchema } = property;
      // Kept only when the parameter's own schema accepts it, as bodies' examples are.
      const candidate = exampleFor(property, { includeOptional: true, shared });
      const field = fields[name];
      const example = candidate !== undefined && field !== undefined && z.safeParse(field, candidate).success ? candidate : undefined;
      parameters.push({
        name,
        in: location,
        required: location === 'path' || required.has(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: propertySchema,
        ...(example === undefined ? {} : { example }),
      });
    }
  }
  if (operation.access === 'keyed') parameters.push({ $ref: '#/components/parameters/PorchAccount' });
  if (operation.idempotencyKey) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  if (operation.access === 'keyed' && operation.runKind) parameters.push({ $ref: '#/components/parameters/Prefer' });
  return parameters;
}

/**
 * The answer of an execution queued as an asynchronous run (`Prefer: respond-async`), the same
 * for every execution: one shared response.
 */
function queuedResponseRef(sharedResponses: Record<string, ResponseObject>, shared: Record<string, JsonSchema>): { $ref: string } {
  sharedResponses.QueuedRun ??= queuedResponse(shared);
  return { $ref: '#/components/responses/QueuedRun' };
}

function queuedResponse(shared: Record<string, JsonSchema>): ResponseObject {
  const headers: Record<string, HeaderObject | { $ref: string }> = {};
  for (const name of ALWAYS_HEADERS) headers[name] = headerRef(name);
  for (const name of KEYED_HEADERS) headers[name] = keyedSuccessHeaderRef(name);
  headers.Location = headerRef('Location');
  headers['Preference-Applied'] = headerRef('Preference-Applied');
  const envelope = z.object({ success: z.literal(true).describe('Always true on success.'), data: queuedRunSchema }).describe('The success envelope.');
  return {
    description: 'Queued as an asynchronous run (the request sent `Prefer: respond-async`): poll the run at `Location`.',
    headers,
    content: {
      'application/json': {
        schema: toOpenApiSchema(envelope, 'output', shared),
        example: { success: true, data: { run_id: EXAMPLE_UUID, status: 'queued' } },
      },
    },
  };
}

function successResponse(operation: Operation, shared: Record<string, JsonSchema>): ResponseObject {
  const headers: Record<string, HeaderObject | { $ref: string }> = {};
  for (const name of ALWAYS_HEADERS) headers[name] = headerRef(name);
  if (operation.access === 'keyed') for (const name of KEYED_HEADERS) headers[name] = keyedSuccessHeaderRef(name);
  if (operation.pollsAfter !== undefined)
    headers['Retry-After'] = { description: operation.pollsAfter, required: false, schema: { type: 'integer', minimum: 0 } };
  const response: ResponseObject = {
    description: operation.successStatus === 204 ? `${operation.title}: done, no body.` : `${operation.title}: success.`,
    headers,
  };
  if (operation.successStatus === 204 || operation.output === null) return response;

  if (operation.responseType === 'markdown') {
    const schema = toOpenApiSchema(operation.output, 'output', shared);
    response.content = { [MARKDOWN_MEDIA_TYPE]: { schema } };
    return response;
  }
  const envelope = z.object({ success: z.literal(true).describe('Always true on success.'), data: operation.output }).describe('The success envelope.');
  const schema = toOpenApiSchema(envelope, 'output', shared);
  const dataJson = toOpenApiSchema(operation.output, 'output', shared);
  const example = acceptedExample(operation.output, dataJson, false, shared, (data) => ({ success: true, data }));
  response.content = { 'application/json': { schema, ...(example === undefined ? {} : { example }) } };
  if (operation.streams !== undefined) {
    response.description += ` With \`Accept: ${EVENT_STREAM_MEDIA_TYPE}\`: Server-Sent Events (see the media type).`;
    response.content[EVENT_STREAM_MEDIA_TYPE] = { schema: eventStreamSchema(operation.streams), example: eventStreamExample(operation.streams) };
  }
  return response;
}

/**
 * The event stream of an operation that can stream (src/rest/event-stream.ts). OpenAPI 3.1 has
 * no schema for a sequence of events, so the body is a string and its events are listed here.
 */
function eventStreamSchema(streams: NonNullable<Operation['streams']>): JsonSchema {
  const progress =
    streams === 'deltas'
      ? '`delta`, data `{"text": "..."}`: the answer\'s text as the model produces it (one event with the whole checked answer when the organisation\'s output guardrail is redact or block)'
      : "`node`, data: the node's trace entry (as in `node_results`) when it completes or fails";
  return {
    type: 'string',
    description:
      `Server-Sent Events, each \`event: <name>\` and one \`data:\` line of JSON: ${progress}; then ` +
      '`done`, data `{"data": <the result, exactly as the JSON response\'s data>, "credits_remaining": <whole credits after the call>}`, ' +
      'or `error`, data: the error envelope, for a failure after the stream started (earlier failures are the JSON error responses). ' +
      'Lines starting with `:` are keep-alive comments. A client that disconnects stops the model call; the credits it used are still charged.',
  };
}

function eventStreamExample(streams: NonNullable<Operation['streams']>): string {
  const progress =
    streams === 'deltas'
      ? 'event: delta\ndata: {"text":"Hello"}\n\nevent: delta\ndata: {"text":" world"}\n\n'
      : 'event: node\ndata: {"node_id":"draft","kind":"model","status":"completed",...}\n\n';
  return `${progress}event: done\ndata: {"data":{...},"credits_remaining":998}\n\n`;
}

/**
 * Error responses are shared components named after what they hold (status, codes, and whether
 * rate-limit headers may be present), so the many operations with the same refusals reference
 * one definition instead of repeating it.
 */
function errorResponseRef(
  status: number,
  codes: readonly ErrorCode[],
  keyed: boolean,
  sharedResponses: Record<string, ResponseObject>,
  shared: Record<string, JsonSchema>,
): { $ref: string } {
  const [only] = codes;
  const router = codes.length === 1 && only !== undefined && only in ROUTER_RESPONSES ? ROUTER_RESPONSES[only as keyof typeof ROUTER_RESPONSES] : undefined;
  // The router's answers carry the quota headers whenever the request's key works, whatever the operation.
  const name = router ?? `Error${status}${keyed ? 'Keyed' : ''}_${codes.join('_')}`;
  sharedResponses[name] ??= errorResponse(status, codes, router !== undefined || keyed, shared);
  return { $ref: `#/components/responses/${name}` };
}

function operationObject(operation: Operation, shared: Record<string, JsonSchema>, sharedResponses: Record<string, ResponseObject>): OperationObject {
  const responses: Record<string, ResponseObject | { $ref: string }> = { [String(operation.successStatus)]: successResponse(operation, shared) };
  if (operation.access === 'keyed' && operation.runKind) responses[String(QUEUED_STATUS)] = queuedResponseRef(sharedResponses, shared);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of possibleErrorCodes(operation)) {
    const status = ERROR_TABLE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = errorResponseRef(status, codes, operation.access === 'keyed', sharedResponses, shared);
  }

  const parameters = parametersOf(operation, shared);
  const result: OperationObject = {
    operationId: operationId(operation),
    summary: operation.title,
    description: describeAccess(operation),
    tags: [operation.tag],
    ...(parameters.length > 0 ? { parameters } : {}),
    responses,
    // OpenAPI 3.1 lets non-OAuth schemes list roles: each alternative names one scope that grants the call.
    security:
      operation.access === 'keyed'
        ? operation.scopes.flatMap((scope): Array<Record<string, string[]>> => [{ ApiKeyAuth: [scope] }, { BearerAuth: [scope] }])
        : [],
    ...(isExposedOn(operation, 'mcp-tool') ? { 'x-porch-tool': operation.name } : {}),
    'x-porch-effect': operation.effect,
    ...(operation.access === 'keyed' ? { 'x-porch-scopes': [...operation.scopes] } : {}),
  };
  if (operation.body) {
    const schema = toOpenApiSchema(operation.body, 'input', shared);
    const example = acceptedExample(operation.body, schema, true, shared);
    result.requestBody = {
      // A body whose fields are all optional may be left out entirely.
      required: !operation.body.safeParse({}).success,
      content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
    };
  }
  return result;
}

/** The default quotas in words, from the one place they are stated. */
function describeDefaultQuotas(): string {
  const mib = (bytes: number) => `${bytes / (1024 * 1024)} MiB`;
  return CONTENT_KINDS.map((kind) => {
    const quota = DEFAULT_QUOTAS[kind];
    return `${QUOTA_KIND_NAMES[kind].label}: ${quota.maxItems.toLocaleString('en-US')} items, ${mib(quota.maxBytes)}`;
  }).join('; ');
}

/**
 * The document's introduction, in Markdown. Error messages are quoted as code spans, so they show
 * as the server writes them (regression: the `__proto__` in one rendered as a bold "proto").
 */
const INFO_DESCRIPTION = `Porch is a self-hosted prompt-orchestration server. This API lists and executes your workflows,
prompt compositions, custom skills and personas, manages context cards, and offers a judge and a
sanitiser.

Every keyed request carries \`X-API-Key: mdi_...\` (or \`Authorization: Bearer mdi_...\`). Keys work
only while their account is on the Expert plan. Responses use the envelope
\`{"success": true, "data": ...}\` or \`{"success": false, "error": {"code", "message", "request_id"}}\`
and carry \`X-API-Version\` and \`X-Request-Id\`. Once the key is authenticated, every response, errors
included, adds \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (the minute
window), \`X-RateLimit-Daily-Limit\` and \`X-RateLimit-Daily-Remaining\` (the UTC day) and
\`X-Credits-Remaining\`.

At most 8 executions per key run at once, across every Porch process (the operator's \`limits.max_in_flight_per_key\`): a
further one is refused with 429 \`RATE_LIMITED\` naming concurrent executions and \`Retry-After: 1\`.

Lists return every item the caller owns unless \`limit\` is sent; what that can cost is bounded by
per-account quotas on items and bytes of stored text per kind (${describeDefaultQuotas()}; the
operator's \`limits.quotas\`). A create, update or import that would exceed one is refused with
403 \`QUOTA_EXCEEDED\` and writes nothing; long lists are streamed as they are read.

These rules hold for every request, whatever its schema says (and for every MCP tool's arguments);
a request that breaks one is refused with 400 \`VALIDATION_ERROR\` naming the field and the rule:
- a JSON body nests at most ${MAX_JSON_DEPTH} levels;
- no string or name in a body, a query or a path holds the NUL character (U+0000), which
  PostgreSQL cannot store (\`${NUL_MESSAGE}\`);
- no string or name holds a lone surrogate, which is not text in any encoding
  (\`${LONE_SURROGATE_MESSAGE}\`);
- no object has a member named \`__proto__\` (\`${PROTO_KEY_MESSAGE}\`).

Client rules: on 429 wait \`Retry-After\` seconds (60 if absent) and retry, at most 3 retries, 4 attempts in all; never
retry 401 or 402 \`INSUFFICIENT_CREDITS\`; after 402 \`BILLING_FAILED\` check the balance, then retry once;
retry 500 \`AI_SERVICE_ERROR\` with backoff 1 s, 2 s, 4 s, at most 3 retries, 4 attempts in all.`;

/**
 * What each tag (an operation's resource group) holds, for the document's tag list; a new group
 * gets a plain description until one is written here, so adding an operation never needs this file.
 */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Workflows: 'DAGs of model calls, templates, skills, compositions, personas, sanitiser and judge steps, run as one request.',
  Compositions: 'Prompt templates with {{variables}}, rendered and sent to a model.',
  Skills: 'Custom skills: instructions applied as the system prompt to an input text; exportable as SKILL.md.',
  Personas: 'Context cards of category "persona", whose content is the system prompt of a conversation.',
  'Context cards': 'Reusable pieces of context (text with a title, category and tags) owned by the account.',
  Judge: 'Model-graded scoring of a prompt or an output against criteria, with a verdict.',
  Sanitiser: 'Deterministic scans of text for personal data and secrets.',
  Analyzer: 'Deterministic prompt scores and suggestions; needs no key.',
  Prompts: "The account's compositions and personas as ready-to-send prompts.",
  Health: 'Whether the API and its database answer.',
  Discovery: 'The API root and its links to the discovery documents.',
};

function tagObject(name: string): { name: string; description: string } {
  return { name, description: TAG_DESCRIPTIONS[name] ?? `The ${name.toLowerCase()} operations.` };
}

/** Builds the whole document. Pure: the same operations and options give the same bytes. */
export function buildOpenApiDocument(operations: readonly Operation[], { siteUrl }: OpenApiOptions): OpenApiDocument {
  const shared: Record<string, JsonSchema> = {};
  const sharedResponses: Record<string, ResponseObject> = {};
  const paths: Record<string, PathItemObject> = {};
  const tags: string[] = [];
  const seenIds = new Set<string>();
  for (const operation of operations) {
    const id = operationId(operation);
    if (seenIds.has(id)) throw new Error(`Two operations share the operationId ${id}.`);
    seenIds.add(id);
    const method = operation.method.toLowerCase() as keyof PathItemObject;
    const item = (paths[operation.path] ??= {});
    if (item[method]) throw new Error(`Two operations answer ${operation.method} ${operation.path}.`);
    item[method] = operationObject(operation, shared, sharedResponses);
    if (!tags.includes(operation.tag)) tags.push(operation.tag);
  }

  const schemas: Record<string, JsonSchema> = { ...shared };

  return {
    // No jsonSchemaDialect: 3.1's default (the OAS base dialect, JSON Schema 2020-12) is what the
    // schemas are, and Prism skips body validation whenever the field is present.
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Porch API',
      version: API_VERSION,
      summary: 'Run your workflows, compositions, skills and personas; manage context cards; judge prompts; sanitise text.',
      description: INFO_DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: siteLink(siteUrl, SITE_PATHS.apiBase), description: 'This Porch server' }],
    tags: tags.map(tagObject),
    paths,
    components: {
      schemas,
      headers: { ...HEADER_COMPONENTS, ...KEYED_SUCCESS_HEADERS },
      parameters: {
        PorchAccount: {
          name: 'X-Porch-Account',
          in: 'header',
          required: false,
          description:
            "Partner keys (mpk_...) only: the account the call acts for; it must belong to the partner key's organisation (default: the organisation's owner).",
          schema: { type: 'string', format: 'uuid' },
        },
        Prefer: {
          name: 'Prefer',
          in: 'header',
          required: false,
          description:
            '`respond-async` queues the execution as an asynchronous run and answers 202 at once with its id (and `Location`); without it the request waits for the result. Other preferences are ignored.',
          schema: { type: 'string' },
          example: 'respond-async',
        },
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Any unique string of 1-255 visible ASCII characters (a uuid is fine). A retry with the same key and body within 24 h replays the first successful response; a different body is 409 IDEMPOTENCY_CONFLICT.',
          schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
        },
      },
      responses: Object.fromEntries(Object.entries(sharedResponses).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        ApiKeyAuth: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: "An API key (mdi_..., or a partner key mpk_...). Roles listed in an operation's security are the scopes that grant it.",
        },
        BearerAuth: { type: 'http', scheme: 'bearer', description: 'The same API key sent as `Authorization: Bearer mdi_...` (for MCP-style clients).' },
      },
    },
    externalDocs: { description: 'Porch documentation', url: siteLink(siteUrl, SITE_PATHS.docs) },
  };
}

/** Every error code the document mentions (operations and router answers), for completeness checks. */
export function documentedErrorCodes(operations: readonly Operation[]): Set<ErrorCode> {
  const codes = new Set<ErrorCode>(ROUTER_ERROR_CODES);
  for (const operation of operations) for (const code of possibleErrorCodes(operation)) codes.add(code);
  return codes;
}
