/**
 * The MCP server: a tool for each operation exposed on `mcp-tool`, the caller's compositions and
 * personas as prompts, their context cards as resources; all of them through the operations'
 * invocation path.
 *
 * It is built on the SDK's low-level `Server` rather than `McpServer.registerTool`, because
 * `McpServer` validates tool arguments before the handler runs: validation would then come before
 * authentication, scope and rate limit (a keyless call with a typo would not hear
 * MISSING_API_KEY, a bad call would not count against the limit), and its refusals would read
 * "MCP error -32602: ..." instead of starting with Porch's error code. Here every tool call goes
 * through the operations' own invocation path, in the REST order, and every refusal reads alike.
 */
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Core } from '../core/core.js';
import { toPorchError, type ErrorCodeSet } from '../core/errors.js';
import { logFieldsOf } from '../core/telemetry/telemetry.js';
import { API_VERSION } from '../core/health.js';
import { exposedOn, type Operation } from '../operations/operation.js';
import type { McpIdentity } from './identity.js';
import { LIST_PAGE_SIZE, pageOf, pageStart } from './paginate.js';
import { getPromptMessages, listPromptEntries, mayUsePrompts } from './prompts.js';
import { contextCardTemplate, listCardResources, mayReadCards, readCardResource } from './resources.js';
import { ProtocolError, toolErrorResult, toProtocolError } from './to-tool-result.js';
import { operationTool, type McpTool } from './tools.js';
import { progressEvents } from './progress.js';

/** A client may pass an Idempotency-Key for execute tools in the call's `_meta` under this name. */
export const IDEMPOTENCY_META_KEY = 'porch/idempotency-key';

/** Longest Idempotency-Key accepted from `_meta` or the header; longer ones are ignored, not stored. */
const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

const INSTRUCTIONS = [
  'Porch runs your prompt workflows, compositions, custom skills and personas, and manages your context cards.',
  'analyze_prompt needs no API key: it scores a prompt and suggests improvements.',
  "Every other tool acts for the API key's account, with its scopes, rate limits and credits (1 credit = 1,000 tokens); tools/list shows only the tools the key may use.",
  'A failed call returns isError with text that starts with an error code (for example RATE_LIMITED or RESOURCE_NOT_FOUND) and says what to do next.',
  'Your compositions and personas are also prompts, and your context cards are resources at porch://context-cards/{id}.',
].join(' ');

/**
 * The SDK builds a new Ajv instance (with every format) for each Server unless given one; over
 * stateless HTTP that is one per request and was the largest single cost of an MCP call. The
 * validator only compiles schemas the server is handed, so one per process serves every server.
 */
let sharedValidator: AjvJsonSchemaValidator | undefined;

export interface McpServerOptions {
  /** From `createToolset`; built once per process, shared by every server. */
  tools: readonly McpTool[];
  errorCodes: ErrorCodeSet;
  /** The request id tool calls are logged and recorded under (HTTP: the X-Request-Id); a fresh uuid by default. */
  requestId?: () => string;
  /** Items per page of tools/list, prompts/list and resources/list; LIST_PAGE_SIZE by default. */
  pageSize?: number;
}

/** A tool for every operation exposed on `mcp-tool`; names are unique. */
export function createToolset(operations: readonly Operation[]): McpTool[] {
  const tools = exposedOn(operations, 'mcp-tool').map(operationTool);
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.definition.name)) throw new Error(`Two MCP tools are named ${tool.definition.name}.`);
    seen.add(tool.definition.name);
  }
  return tools;
}

function idempotencyKeyOf(meta: Record<string, unknown> | undefined, headers: Record<string, string | string[] | undefined> | undefined): string | undefined {
  const candidate = meta?.[IDEMPOTENCY_META_KEY] ?? headers?.['idempotency-key'];
  return typeof candidate === 'string' && candidate.length > 0 && candidate.length <= MAX_IDEMPOTENCY_KEY_LENGTH ? candidate : undefined;
}

export function createMcpServer(core: Core, identity: McpIdentity, options: McpServerOptions): Server {
  const { tools, errorCodes, pageSize = LIST_PAGE_SIZE } = options;
  const nextRequestId = options.requestId ?? randomUUID;
  const toolsByName = new Map(tools.map((tool) => [tool.definition.name, tool]));
  // The HTTP request's ids and trace for log lines (none on stdio, where no request scope exists).
  const logFields = (requestId: string) => ({
    requestId,
    ...(identity.requestCaller === undefined ? {} : logFieldsOf(core.telemetry.scopeOf(identity.requestCaller))),
  });
  const server = new Server(
    { name: 'porch', title: 'Porch', version: API_VERSION },
    {
      capabilities: { tools: {}, prompts: {}, resources: {} },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: (sharedValidator ??= new AjvJsonSchemaValidator()),
    },
  );

  /** Faults are logged here; callers only ever see the safe code, message and hint. */
  function failure(err: unknown, requestId: string, resource = false): ProtocolError {
    const error = toPorchError(err);
    if (error.code === 'INTERNAL_ERROR') core.logger.error({ err, ...logFields(requestId) }, 'MCP request failed');
    return toProtocolError(error, errorCodes, { resource });
  }

  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const start = pageStart(request.params?.cursor);
    const requestId = nextRequestId();
    try {
      const caller = await identity.currentCaller();
      const scopes = caller ? caller.credential.scopes : null;
      const listed = tools.filter((tool) => tool.isListed(scopes)).map((tool) => tool.definition);
      const { page, nextCursor } = pageOf(listed, start, pageSize);
      return { tools: page, ...(nextCursor ? { nextCursor } : {}) };
    } catch (err) {
      throw failure(err, requestId);
    }
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args = {}, _meta: meta } = request.params;
    const tool = toolsByName.get(name);
    if (!tool) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}. Call tools/list to see the tools this key may use.`);
    const requestId = nextRequestId();
    try {
      const result = await tool.call(args, {
        core,
        identity,
        errorCodes,
        requestId,
        signal: extra.signal,
        idempotencyKey: idempotencyKeyOf(meta, extra.requestInfo?.headers),
        ...(meta?.progressToken === undefined
          ? {}
          : {
              events: progressEvents(meta.progressToken, (params) => {
                // Progress is advisory: a notification that cannot be sent must not fail the call.
                extra.sendNotification({ method: 'notifications/progress', params }).catch(() => undefined);
              }),
            }),
      });
      core.logger.debug({ requestId, tool: name, isError: result.isError === true }, 'MCP tool call');
      return result;
    } catch (err) {
      const error = toPorchError(err);
      if (error.code === 'INTERNAL_ERROR') core.logger.error({ err, ...logFields(requestId), tool: name }, 'MCP tool call failed');
      return toolErrorResult(error, errorCodes);
    }
  });

  server.setRequestHandler(ListPromptsRequestSchema, async (request, extra) => {
    const start = pageStart(request.params?.cursor);
    const requestId = nextRequestId();
    try {
      const caller = await identity.currentCaller();
      if (!caller || !mayUsePrompts(caller)) return { prompts: [] };
      const { page, nextCursor } = pageOf(await listPromptEntries({ core, identity, requestId, signal: extra.signal }), start, pageSize);
      return { prompts: page, ...(nextCursor ? { nextCursor } : {}) };
    } catch (err) {
      throw failure(err, requestId);
    }
  });

  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const requestId = nextRequestId();
    try {
      return await getPromptMessages({ core, identity, requestId, signal: extra.signal }, request.params.name, request.params.arguments ?? {});
    } catch (err) {
      throw failure(err, requestId);
    }
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => {
    const requestId = nextRequestId();
    try {
      const caller = await identity.currentCaller();
      return { resourceTemplates: caller && mayReadCards(caller) ? [contextCardTemplate] : [] };
    } catch (err) {
      throw failure(err, requestId);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async (request, extra) => {
    const start = pageStart(request.params?.cursor);
    const requestId = nextRequestId();
    try {
      const caller = await identity.currentCaller();
      if (!caller || !mayReadCards(caller)) return { resources: [] };
      const { page, nextCursor } = pageOf(await listCardResources({ core, identity, requestId, signal: extra.signal }), start, pageSize);
      return { resources: page, ...(nextCursor ? { nextCursor } : {}) };
    } catch (err) {
      throw failure(err, requestId);
    }
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const requestId = nextRequestId();
    try {
      return await readCardResource({ core, identity, requestId, signal: extra.signal }, request.params.uri);
    } catch (err) {
      throw failure(err, requestId, true);
    }
  });

  server.onerror = (err) => core.logger.warn({ err }, 'MCP transport error');
  return server;
}
