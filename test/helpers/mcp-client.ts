/**
 * Real MCP clients for tests: the SDK's `Client` over an in-memory transport pair (the server in
 * this process, as stdio runs it) or over Streamable HTTP against the harness server.
 */
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/client';
import type { CallToolResult, ClientCapabilities, JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import type { JsonValue } from '@modelcontextprotocol/ext-tasks/core';
import type { RawClientDispatch } from '@modelcontextprotocol/ext-tasks/client';
import { createMcpServer, createToolset } from '../../src/mcp/create-mcp-server.js';
import { MCP_PATH } from '../../src/mcp/http.js';
import { liveIdentity } from '../../src/mcp/identity.js';
import { operations } from '../../src/operations/index.js';
import type { Operation } from '../../src/operations/operation.js';
import type { Harness } from './harness.js';
import { OPERATION_SAMPLES, type SampleRequest } from './operation-samples.js';

export interface McpConnection {
  client: Client;
  close(): Promise<void>;
}

const CLIENT_INFO = { name: 'porch-tests', version: '1.0.0' };

/**
 * The tools of every operation, built once as the HTTP door builds them: building them takes
 * about 50 ms (each operation's schemas), and the suites connect thousands of times.
 */
let toolset: ReturnType<typeof createToolset> | undefined;
export function sharedToolset(): ReturnType<typeof createToolset> {
  toolset ??= createToolset(operations);
  return toolset;
}

/**
 * One output-schema validator for every test client. A client compiles the output schema of each
 * listed tool with Ajv when it first calls one, about 130 ms for Porch's tools: most of a tool
 * test's time. A host pays that once per session; the suites open thousands of sessions on the
 * same schemas, so each schema is compiled once per run.
 */
class CompiledOnceValidator implements jsonSchemaValidator {
  readonly #ajv = new AjvJsonSchemaValidator();
  readonly #compiled = new Map<string, JsonSchemaValidator<unknown>>();

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const key = JSON.stringify(schema);
    let validator = this.#compiled.get(key);
    if (validator === undefined) {
      validator = this.#ajv.getValidator(schema);
      this.#compiled.set(key, validator);
    }
    return validator as JsonSchemaValidator<T>;
  }
}
export const TEST_SCHEMA_VALIDATOR = new CompiledOnceValidator();

/** A client talking to a server in this process, acting with `key` (none: public tools only). */
export async function connectInMemory(harness: Harness, options: { key?: string; actingAccountId?: string } = {}): Promise<McpConnection> {
  const server = createMcpServer(harness.core, liveIdentity(harness.core, { apiKey: options.key, actingAccountId: options.actingAccountId }), {
    tools: sharedToolset(),
    errorCodes: harness.config.errorCodes,
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client(CLIENT_INFO, { jsonSchemaValidator: TEST_SCHEMA_VALIDATOR });
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

export function mcpUrl(harness: Harness): URL {
  return new URL(`${harness.url}${MCP_PATH}`);
}

/** The current protocol revision, which a `modern` client pins (no fallback to the 2025 handshake). */
export const CURRENT_REVISION = '2026-07-28';

export interface HttpConnectOptions {
  key?: string;
  headers?: Record<string, string>;
  /** `legacy` (default): the 2025 initialize handshake; `modern`: revision 2026-07-28 only. */
  era?: 'legacy' | 'modern';
  /** Client capabilities (a modern client sends them on every request). */
  capabilities?: ClientCapabilities;
}

/** A client over Streamable HTTP; `key` goes in X-API-Key unless `headers` says otherwise. */
export async function connectHttp(harness: Harness, options: HttpConnectOptions = {}): Promise<McpConnection> {
  const headers: Record<string, string> = { ...(options.key === undefined ? {} : { 'x-api-key': options.key }), ...options.headers };
  const transport = new StreamableHTTPClientTransport(mcpUrl(harness), { requestInit: { headers } });
  const client = new Client(CLIENT_INFO, {
    jsonSchemaValidator: TEST_SCHEMA_VALIDATOR,
    ...(options.era === 'modern' ? { versionNegotiation: { mode: { pin: CURRENT_REVISION } } } : {}),
    ...(options.capabilities === undefined ? {} : { capabilities: options.capabilities }),
  });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

/**
 * The tasks requester's raw path (`@modelcontextprotocol/ext-tasks`: the SDK client's codecs do not
 * carry the extension's results): each request POSTed as a 2026-07-28 client sends it, with the
 * standard headers (the method, and the name it acts on: a tool's, a task's id) and the caller's
 * credentials, its answer read back (one JSON body, or the last message of an event stream).
 */
export function taskDispatch(url: URL, credentials: () => Record<string, string>): RawClientDispatch {
  let nextId = 1;
  return async (request, options) => {
    const { method, params } = request as { method: string; params?: { name?: string; taskId?: string } };
    const name = params?.name ?? params?.taskId;
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': CURRENT_REVISION,
        'mcp-method': method,
        ...(name === undefined ? {} : { 'mcp-name': name }),
        ...credentials(),
      },
      // The coordinator frames the request: the session hands it method, params and envelope.
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, ...(request as object) }),
      ...(options?.signal ? { signal: options.signal } : {}),
    });
    const text = await response.text();
    const message = JSON.parse(text.startsWith('event:') || text.startsWith('data:') ? (/^data: (.*)$/m.exec(text)?.[1] ?? 'null') : text) as {
      result?: JsonValue;
      error?: { code: number; message: string };
    };
    if (message.error) return { kind: 'error', error: message.error };
    return { kind: 'result', result: message.result ?? null };
  };
}

/** The text of a tool result (its first text content). */
export function resultText(result: unknown): string {
  const content = (result as CallToolResult).content;
  const first = content[0];
  return first && first.type === 'text' ? first.text : '';
}

/** A tool result as a string for assertion messages. */
export function describeResult(result: unknown): string {
  return JSON.stringify(result).slice(0, 800);
}

/**
 * The MCP arguments equivalent to a REST sample request: path parameters read back from the
 * sample path by the operation's path template, query parameters (numbers where the tool's schema
 * says so), and the body's fields.
 */
export function toolArguments(operation: Operation, sample: SampleRequest): Record<string, unknown> {
  const [path = '', queryString] = sample.path.split('?');
  const names: string[] = [];
  const pattern = new RegExp(
    `^${operation.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    })}$`,
  );
  const match = pattern.exec(path);
  if (!match) throw new Error(`Sample path ${sample.path} does not match ${operation.path}`);
  // REST sends path and query values as text; an MCP client sends the JSON type the tool's schema names.
  const properties = sharedToolset().find((tool) => tool.definition.name === operation.name)?.definition.inputSchema.properties ?? {};
  const typed = (name: string, text: string): unknown => {
    const property = properties[name];
    const type = typeof property === 'object' && property !== null && 'type' in property ? property.type : undefined;
    return type === 'integer' || type === 'number' ? Number(text) : text;
  };
  const args: Record<string, unknown> = {};
  names.forEach((name, index) => {
    args[name] = typed(name, decodeURIComponent(match[index + 1] ?? ''));
  });
  for (const [name, value] of new URLSearchParams(queryString ?? '')) args[name] = typed(name, value);
  if (sample.body !== undefined && sample.body !== null && typeof sample.body === 'object') Object.assign(args, sample.body);
  return args;
}

/** The operation with this name; throws when there is none, so a renamed operation fails loudly. */
export function operationNamed(name: string): Operation {
  const operation = operations.find((candidate) => candidate.name === name);
  if (!operation) throw new Error(`No operation named ${name}`);
  return operation;
}

/** The sample request of an operation, built against `accountId`. */
export function sampleFor(harness: Harness, name: string, accountId: string): Promise<SampleRequest> {
  const build = OPERATION_SAMPLES[name];
  if (!build) throw new Error(`No sample request for ${name} in operation-samples.ts`);
  return build(harness, accountId);
}
