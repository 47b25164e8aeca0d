/**
 * Every tool through a real SDK Client over an in-memory transport: a valid call succeeds (the
 * client checks `structuredContent` against the listed output schema), and an invalid one is an
 * `isError` result that starts with the error code and ends with what to do next.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_KEY_SCOPES } from '../../src/core/access/scopes.js';
import { ERROR_TABLE, PorchError } from '../../src/core/errors.js';
import { operations } from '../../src/operations/index.js';
import { exposedOn, isExposedOn, type Operation } from '../../src/operations/operation.js';
import { createToolset } from '../../src/mcp/create-mcp-server.js';
import { errorText } from '../../src/mcp/to-tool-result.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { connectInMemory, describeResult, operationNamed, resultText, sampleFor, toolArguments, type McpConnection } from '../helpers/mcp-client.js';
import { defined } from '../helpers/defined.js';

let harness: Harness;
let connections: McpConnection[];
beforeEach(async () => {
  harness = await createHarness();
  connections = [];
});
afterEach(async () => {
  for (const connection of connections) await connection.close();
  await harness.close();
});

/** A connected client that has listed the tools, so it validates results against their output schemas. */
async function session(key?: string): Promise<{ connection: McpConnection; tools: Tool[] }> {
  const connection = await connectInMemory(harness, key === undefined ? {} : { key });
  connections.push(connection);
  const { tools } = await connection.client.listTools();
  return { connection, tools };
}

/** The default scopes, plus the operation's own when they are not among them (manage:keys, read:usage are never defaults). */
function scopesFor(operation: Operation): string[] {
  return [...new Set([...DEFAULT_KEY_SCOPES, ...(operation.access === 'keyed' ? operation.scopes : [])])];
}

const TOOL_DEFINITIONS = new Map(createToolset(operations).map((tool) => [tool.definition.name, tool.definition]));

/** A value of the wrong JSON type for the first argument that has a primitive type. */
function invalidArgument(tool: Tool): { name: string; value: unknown } | null {
  for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
    const type = (property as { type?: unknown }).type;
    if (type === 'string') return { name, value: 42 };
    if (type === 'integer' || type === 'number') return { name, value: 'not a number' };
    if (type === 'boolean') return { name, value: 'maybe' };
  }
  return null;
}

describe.each(exposedOn(operations as readonly Operation[], 'mcp-tool').map((operation) => [operation.name, operation] as const))('%s', (name, operation) => {
  it('succeeds for a valid call, with data matching the output schema', async () => {
    const { accountId, key } = await harness.expertWithKey({ scopes: scopesFor(operation) });
    const sample = await sampleFor(harness, name, accountId);
    const { connection } = await session(key);
    const result = await connection.client.callTool({ name, arguments: toolArguments(operation, sample) });
    expect(result.isError, describeResult(result)).toBeFalsy();
    if (operation.output === null) {
      expect(result.structuredContent).toBeUndefined();
      expect(resultText(result)).toMatch(/^Done: /);
    } else if (operation.responseType === 'markdown') {
      // A document export answers with the document as text (MCP output schemas describe objects only).
      expect(result.structuredContent).toBeUndefined();
      expect(resultText(result).length).toBeGreaterThan(0);
    } else {
      expect(result.structuredContent, describeResult(result)).toBeTypeOf('object');
      expect(JSON.parse(resultText(result))).toEqual(result.structuredContent);
    }
  });

  if (operation.effect === 'read' && isExposedOn(operation, 'rest')) {
    it('answers exactly what REST answers for the same request', async () => {
      const { accountId, key } = await harness.expertWithKey({ scopes: scopesFor(operation) });
      const sample = await sampleFor(harness, name, accountId);
      const rest = await harness.api(operation.method, sample.path, { key, ...(sample.body === undefined ? {} : { body: sample.body }) });
      expect(rest.status, describeResponse(rest)).toBe(200);
      const { connection } = await session(key);
      const result = await connection.client.callTool({ name, arguments: toolArguments(operation, sample) });
      if (operation.responseType === 'markdown') expect(resultText(result)).toBe(rest.text);
      else expect(result.structuredContent).toEqual(rest.body.data);
    });
  }

  const invalid = invalidArgument(defined(TOOL_DEFINITIONS.get(name), `the tool ${name}`));
  if (invalid) {
    it(`answers an invalid ${invalid.name} with an isError VALIDATION_ERROR naming the field and saying what to do`, async () => {
      const { key } = await harness.expertWithKey({ scopes: scopesFor(operation) });
      const { connection } = await session(key);
      const result = await connection.client.callTool({ name, arguments: { [invalid.name]: invalid.value } });
      expect(result.isError, describeResult(result)).toBe(true);
      const text = resultText(result);
      expect(text).toMatch(/^VALIDATION_ERROR: Invalid request: /);
      expect(text).toContain(`${invalid.name}:`);
      expect(text.endsWith(ERROR_TABLE.VALIDATION_ERROR.hint)).toBe(true);
      expect(text).not.toMatch(/\bat .*\.(ts|js):\d+/);
      expect(result._meta).toMatchObject({ 'porch/error': { code: 'VALIDATION_ERROR' } });
    });
  }
});

it('has an error test for every tool: an invalid argument, or (without arguments) the database-down case', () => {
  const withoutInvalidArgument = [...TOOL_DEFINITIONS.values()].filter((tool) => !invalidArgument(tool)).map((tool) => tool.name);
  // set_credits_low_threshold's one field is nullable (`["number", "null"]`), which the generator above does not pick; the REST suite covers it.
  expect(withoutInvalidArgument).toEqual([
    'get_health',
    'get_account',
    'list_models',
    'set_credits_low_threshold',
    'get_credits_low_threshold',
    'get_organisation',
    'list_sanitiser_rules',
    'list_byok_keys',
  ]);
});

describe('error texts', () => {
  it("gives a provider failure's own advice once, and none a refused request does not need (regression: retry advice twice, for a 400 too)", () => {
    const failed = new PorchError('AI_SERVICE_ERROR', "The AI provider 'openai' failed (HTTP 500). Retry with backoff.");
    expect(errorText(failed, 'a')).toBe("AI_SERVICE_ERROR: The AI provider 'openai' failed (HTTP 500). Retry with backoff.");
    const refused = new PorchError(
      'AI_SERVICE_ERROR',
      "The AI provider 'openai' refused the request (HTTP 400); check the model and the input, as the same request is likely to be refused again.",
    );
    expect(errorText(refused, 'a')).not.toMatch(/retry/i);
  });
});

describe('get_health', () => {
  it('answers SERVICE_UNAVAILABLE as an isError result when the database is down, without internals', async () => {
    const { connection } = await session();
    await harness.store.close();
    const result = await connection.client.callTool({ name: 'get_health', arguments: {} });
    expect(result.isError, describeResult(result)).toBe(true);
    expect(resultText(result)).toBe(`SERVICE_UNAVAILABLE: The database is unavailable. ${ERROR_TABLE.SERVICE_UNAVAILABLE.hint}`);
  });
});

describe.each([
  ['get_account', ['api:sanitiser']],
  ['list_models', ['api:sanitiser']],
  ['list_keys', ['manage:keys']],
  ['list_connected_apps', ['manage:keys']],
  ['list_webhooks', ['manage:webhooks']],
])('%s', (name, scopes) => {
  it('answers an isError result without internals when the database is down', async () => {
    const { key } = await harness.expertWithKey({ scopes });
    const { connection } = await session(key);
    await harness.store.close();
    const result = await connection.client.callTool({ name, arguments: {} });
    expect(result.isError, describeResult(result)).toBe(true);
    expect(resultText(result)).toBe(`INTERNAL_ERROR: An internal error occurred. ${ERROR_TABLE.INTERNAL_ERROR.hint}`);
  });
});

describe('analyze_prompt', () => {
  it('scores a prompt without a key and links to refining it on this server', async () => {
    const { connection, tools } = await session();
    expect(tools.map((tool) => tool.name)).toContain('analyze_prompt');
    const prompt = 'You are a senior copy editor. Rewrite the text below for a general audience in at most 3 sentences.';
    const result = await connection.client.callTool({ name: 'analyze_prompt', arguments: { prompt, goal: 'a short plain summary' } });
    expect(result.isError, describeResult(result)).toBeFalsy();
    const analysis = result.structuredContent as { scores: Record<string, number>; overall: number; suggestions: string[]; refine_url: string };
    expect(Object.keys(analysis.scores).sort()).toEqual(['clarity', 'constraints', 'context', 'format', 'role', 'task']);
    expect(analysis.scores.role).toBeGreaterThan(0);
    expect(analysis.overall).toBeGreaterThanOrEqual(0);
    expect(analysis.overall).toBeLessThanOrEqual(100);
    const link = new URL(analysis.refine_url);
    expect(`${link.origin}${link.pathname}`).toBe(`${harness.config.publicUrl}/refine`);
    expect(link.searchParams.get('prompt')).toBe(prompt);
  });

  it('gives the same analysis for the same prompt (deterministic, no model)', async () => {
    const { connection } = await session();
    const first = await connection.client.callTool({ name: 'analyze_prompt', arguments: { prompt: 'Summarise this email.' } });
    const second = await connection.client.callTool({ name: 'analyze_prompt', arguments: { prompt: 'Summarise this email.' } });
    expect(second.structuredContent).toEqual(first.structuredContent);
  });

  it('answers a blank or missing prompt with an isError VALIDATION_ERROR naming the field', async () => {
    const { connection } = await session();
    for (const args of [{ prompt: '   ' }, {}, { prompt: 'x', goal: 7 }]) {
      const result = await connection.client.callTool({ name: 'analyze_prompt', arguments: args });
      expect(result.isError, describeResult(result)).toBe(true);
      expect(resultText(result)).toMatch(/^VALIDATION_ERROR: Invalid request: (prompt|goal): /);
      // One full stop after a message that ends its sentence (regression: "blank.. Fix").
      expect(resultText(result)).not.toContain('..');
    }
  });
});

describe('scan_text', () => {
  it('returns redacted_text with typed placeholders when called with redact: true', async () => {
    const { key } = await harness.expertWithKey();
    const { connection } = await session(key);
    const text = 'Ping ada@example.com, then ada@example.com again.';
    const result = await connection.client.callTool({ name: 'scan_text', arguments: { text, redact: true } });
    expect(result.isError, describeResult(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ redacted_text: 'Ping [EMAIL_1], then [EMAIL_1] again.', severity: 'warn' });
  });
});

describe('tool calls', () => {
  it('answers an unknown tool name with a JSON-RPC invalid-params error pointing to tools/list', async () => {
    const { connection } = await session();
    await expect(connection.client.callTool({ name: 'drop_database', arguments: {} })).rejects.toThrow(/Unknown tool: drop_database\. Call tools\/list/);
  });

  it("reports the key's rate limit and credits in _meta, as REST does in headers", async () => {
    const { key } = await harness.expertWithKey({ rpm: 7, rpd: 50 });
    const { connection } = await session(key);
    const result = await connection.client.callTool({ name: 'list_context_cards', arguments: {} });
    expect(result._meta).toMatchObject({
      'porch/rate-limit': { limit: 7, remaining: 6, daily_limit: 50, daily_remaining: 49 },
      'porch/credits-remaining': 1000,
    });
  });

  it('refuses unknown fields of a strict body, as REST does', async () => {
    const { key } = await harness.expertWithKey();
    const { connection } = await session(key);
    const result = await connection.client.callTool({ name: 'create_context_card', arguments: { title: 'T', content: 'C', colour: 'red' } });
    expect(result.isError, describeResult(result)).toBe(true);
    expect(resultText(result)).toMatch(/^VALIDATION_ERROR: .*colour/);
  });

  it('replays an execution sent again with the same idempotency key in _meta, charging once', async () => {
    const { accountId, key } = await harness.expertWithKey();
    const sample = await sampleFor(harness, 'execute_persona', accountId);
    const executePersona = operationNamed('execute_persona');
    const { connection } = await session(key);
    const call = () =>
      connection.client.callTool({ name: 'execute_persona', arguments: toolArguments(executePersona, sample), _meta: { 'porch/idempotency-key': 'retry-1' } });
    const first = await call();
    const second = await call();
    expect(first.isError, describeResult(first)).toBeFalsy();
    expect(second.structuredContent).toEqual(first.structuredContent);
    expect(await harness.store.usage.listByAccount(accountId)).toHaveLength(1);
  });

  it('tells a reused idempotency key with other arguments once to use a new key (regression: said twice)', async () => {
    const { accountId, key } = await harness.expertWithKey();
    const sample = await sampleFor(harness, 'execute_persona', accountId);
    const args = toolArguments(operationNamed('execute_persona'), sample);
    const { connection } = await session(key);
    const call = (input: string) =>
      connection.client.callTool({ name: 'execute_persona', arguments: { ...args, input }, _meta: { 'porch/idempotency-key': 'reused-1' } });
    expect((await call('First question.')).isError).toBeFalsy();
    const conflict = await call('Another question.');
    expect(conflict.isError, describeResult(conflict)).toBe(true);
    const text = resultText(conflict);
    expect(text).toMatch(/^IDEMPOTENCY_CONFLICT: This Idempotency-Key was already used with a different request/);
    expect(text.match(/new (?:Idempotency-)?key/gi), text).toHaveLength(1);
  });

  it('tells an empty prompt once that it is empty (regression: "must not be empty; prompt: The prompt must not be blank.")', async () => {
    const { connection } = await session();
    for (const [prompt, problem] of [
      ['', 'prompt: must not be empty'],
      ['   ', 'prompt: The prompt must not be blank.'],
      [' '.repeat(100_001), 'prompt: must be at most 100000 characters'],
    ] as const) {
      const result = await connection.client.callTool({ name: 'analyze_prompt', arguments: { prompt } });
      expect(result.isError, describeResult(result)).toBe(true);
      expect(resultText(result)).toBe(`VALIDATION_ERROR: Invalid request: ${problem}${problem.endsWith('.') ? '' : '.'} ${ERROR_TABLE.VALIDATION_ERROR.hint}`);
    }
  });

  it('refuses an idempotency key REST would refuse, running nothing (regression: a long or numeric key was dropped, so the retry ran again)', async () => {
    const { accountId, key } = await harness.expertWithKey();
    const sample = await sampleFor(harness, 'execute_persona', accountId);
    const executePersona = operationNamed('execute_persona');
    const { connection } = await session(key);
    for (const idempotencyKey of ['k'.repeat(256), 12345, '']) {
      const result = await connection.client.callTool({
        name: 'execute_persona',
        arguments: toolArguments(executePersona, sample),
        _meta: { 'porch/idempotency-key': idempotencyKey },
      });
      expect(result.isError, String(idempotencyKey)).toBe(true);
      expect(resultText(result)).toMatch(/^VALIDATION_ERROR: Idempotency-Key must be 1 to 255 visible ASCII characters\./);
    }
    expect(await harness.store.usage.listByAccount(accountId)).toHaveLength(0);
  });
});
