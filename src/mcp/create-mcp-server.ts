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
import type { z } from 'zod';
import { MissingRequiredClientCapabilityError, Server, type ServerContext } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Core } from '../core/core.js';
import { CallStopped, PorchError, toPorchError, type ErrorCodeSet } from '../core/errors.js';
import { logFieldsOf } from '../core/telemetry/telemetry.js';
import { API_VERSION } from '../core/health.js';
import { exposedOn, type Operation } from '../operations/operation.js';
import { hasApiKey, type McpIdentity } from './identity.js';
import type { CapabilityRequest } from './invoke-capability.js';
import { LIST_PAGE_SIZE, pageOf, pageStart } from './paginate.js';
import { completeArgumentValues, mayComplete, noCompletion } from './completions.js';
import { getPromptMessages, listPromptEntries, mayUsePrompts } from './prompts.js';
import { contextCardTemplate, listCardResources, mayReadCards, readCardResource } from './resources.js';
import {
  cancelTask,
  createdTask,
  declaresTasks,
  getTask,
  TASKS_EXTENSION,
  taskParamsSchema,
  taskResultSchema,
  taskUpdateParamsSchema,
  updateTask,
} from './tasks.js';
import { ProtocolError, toolErrorResult, toProtocolError } from './to-tool-result.js';
import { IDEMPOTENCY_META_KEY, operationTool, type McpTool } from './tools.js';
import { progressEvents } from './progress.js';
import { logSdkError } from './sdk-errors.js';

export { IDEMPOTENCY_META_KEY } from './tools.js';

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
  /**
   * HTTP: the request's Idempotency-Key header, read by the door (a JSON exchange carries no web
   * `Request` for the SDK to hand the handlers).
   */
  idempotencyKey?: string;
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

/** Each toolset's tools by name, built once: over HTTP a server is built per request. */
const toolIndexes = new WeakMap<readonly McpTool[], ReadonlyMap<string, McpTool>>();

function toolIndexOf(tools: readonly McpTool[]): ReadonlyMap<string, McpTool> {
  let index = toolIndexes.get(tools);
  if (index === undefined) {
    index = new Map(tools.map((tool) => [tool.definition.name, tool]));
    toolIndexes.set(tools, index);
  }
  return index;
}

/**
 * The request's signal, aborting with CallStopped: the SDK aborts it when the client cancels
 * (notifications/cancelled) or goes away, with a reason of its own, which metrics and spans would
 * count as the provider failing; a REST client that disconnects stops its call the same way
 * (review: MCP disconnects were AI_SERVICE_ERROR).
 */
function stoppedByClient(signal: AbortSignal): AbortSignal {
  const stopped = () => new CallStopped('the MCP client cancelled the request or went away');
  if (signal.aborted) return AbortSignal.abort(stopped());
  const controller = new AbortController();
  signal.addEventListener('abort', () => controller.abort(stopped()), { once: true });
  return controller.signal;
}

/**
 * The idempotency key a call sent, for core to check as it checks REST's header: a key that is
 * not 1 to 255 visible ASCII characters (a number included) is refused with VALIDATION_ERROR,
 * never dropped, or a retry the client believes safe would run and be charged again (regression).
 */
function idempotencyKeyOf(meta: Record<string, unknown> | undefined, header: string | undefined): string | undefined {
  const candidate = meta?.[IDEMPOTENCY_META_KEY] ?? header;
  if (candidate === undefined) return undefined;
  return typeof candidate === 'string' ? candidate : '';
}

export function createMcpServer(core: Core, identity: McpIdentity, options: McpServerOptions): Server {
  const { tools, errorCodes, pageSize = LIST_PAGE_SIZE } = options;
  const nextRequestId = options.requestId ?? randomUUID;
  const toolsByName = toolIndexOf(tools);
  // The HTTP request's ids and trace for log lines (none on stdio, where no request scope exists).
  const logFields = (requestId: string) => ({
    requestId,
    ...(identity.requestCaller === undefined ? {} : logFieldsOf(core.telemetry.scopeOf(identity.requestCaller))),
  });
  const server = new Server(
    { name: 'porch', title: 'Porch', version: API_VERSION },
    {
      // The tasks extension is announced to every client; a task is created only for a request
      // that itself declares the extension (revision 2026-07-28 clients), see tasks.ts.
      capabilities: { tools: {}, prompts: {}, resources: {}, completions: {}, extensions: { [TASKS_EXTENSION]: {} } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: (sharedValidator ??= new AjvJsonSchemaValidator()),
    },
  );
  const capability = (requestId: string, ctx: ServerContext) => ({ core, identity, requestId, signal: stoppedByClient(ctx.mcpReq.signal) });

  /** Faults are logged here; callers only ever see the safe code, message and hint. */
  function failure(err: unknown, requestId: string): ProtocolError {
    const error = toPorchError(err);
    if (error.code === 'INTERNAL_ERROR') core.logger.error({ err, ...logFields(requestId) }, 'MCP request failed');
    return toProtocolError(error, errorCodes);
  }

  server.setRequestHandler('tools/list', async (request) => {
    const start = pageStart(request.params?.cursor);
    const requestId = nextRequestId();
    try {
      const caller = await identity.currentCaller();
      const credential = caller ? caller.credential : null;
      const listed = tools.filter((tool) => tool.isListed(credential)).map((tool) => tool.definition);
      const { page, nextCursor } = pageOf(listed, start, pageSize);
      return { tools: page, ...(nextCursor ? { nextCursor } : {}) };
    } catch (err) {
      throw failure(err, requestId);
    }
  });

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args = {}, _meta: meta } = request.params;
    const tool = toolsByName.get(name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}. Call tools/list to see the tools this key may use.`);
    const requestId = nextRequestId();
    // An execute tool answers with a task when the request declares the tasks extension.
    const asTask = tool.operation.runKind !== undefined && declaresTasks(ctx.mcpReq.envelope);
    try {
      const result = await tool.call(args, {
        core,
        identity,
        errorCodes,
        requestId,
        signal: stoppedByClient(ctx.mcpReq.signal),
        idempotencyKey: idempotencyKeyOf(meta, options.idempotencyKey),
        respondAsync: asTask,
        ...(meta?.progressToken === undefined || asTask
          ? {}
          : {
              events: progressEvents(meta.progressToken, (params) => {
                // Progress is advisory: a notification that cannot be sent must not fail the call.
                ctx.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => undefined);
              }),
            }),
      });
      core.logger.debug(
        { ...logFields(requestId), tool: name, isError: result.toolResult.isError === true, task: result.queuedRunId !== undefined },
        'MCP tool call',
      );
      if (result.queuedRunId !== undefined) return await createdTask(capability(requestId, ctx), result.queuedRunId, errorCodes);
      return result.toolResult;
    } catch (err) {
      const error = toPorchError(err);
      if (error.code === 'INTERNAL_ERROR') core.logger.error({ err, ...logFields(requestId), tool: name }, 'MCP tool call failed');
      return toolErrorResult(error, errorCodes);
    }
  });

  // The tasks extension's methods: custom to the SDK, so their params are checked by these schemas.
  const onTaskMethod = (
    method: string,
    params: z.ZodType<{ taskId: string }>,
    answer: (request: CapabilityRequest, taskId: string) => Promise<Record<string, unknown>>,
  ) =>
    server.setRequestHandler(method, { params, result: taskResultSchema }, async ({ taskId }, ctx) => {
      // The extension's methods serve only a request that declares it (not an earlier one).
      if (!declaresTasks(ctx.mcpReq.envelope)) {
        throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
      }
      const requestId = nextRequestId();
      try {
        // Without a key no task is the caller's: every id is unknown, as for another account's.
        if (!hasApiKey(identity.credentials))
          throw new PorchError('RESOURCE_NOT_FOUND', `Task ${taskId} was not found: tasks belong to the API key's account; send the key.`);
        return await answer(capability(requestId, ctx), taskId);
      } catch (err) {
        throw failure(err, requestId);
      }
    });
  onTaskMethod('tasks/get', taskParamsSchema, (request, taskId) => getTask(request, taskId, errorCodes));
  onTaskMethod('tasks/cancel', taskParamsSchema, cancelTask);
  onTaskMethod('tasks/update', taskUpdateParamsSchema, updateTask);

  server.setRequestHandler('prompts/list', async (request, ctx) => {
    const start = pageStart(request.params?.cursor);
    const requestId = nextRequestId();
    try {
      const caller = await identity.currentCaller();
      if (!caller || !mayUsePrompts(caller)) return { prompts: [] };
      const { page, nextCursor } = pageOf(await listPromptEntries(capability(requestId, ctx)), start, pageSize);
      return { prompts: page, ...(nextCursor ? { nextCursor } : {}) };
    } catch (err) {
      throw failure(err, requestId);
    }
  });

  server.setRequestHandler('prompts/get', async (request, ctx) => {
    const requestId = nextRequestId();
    try {
      return await getPromptMessages(capability(requestId, ctx), request.params.name, request.params.arguments ?? {});
    } catch (err) {
      throw failure(err, requestId);
    }
  });

  server.setRequestHandler('resources/templates/list', async () => {
    const requestId = nextRequestId();
    try {
      const caller = await identity.currentCaller();
      return { resourceTemplates: caller && mayReadCards(caller) ? [contextCardTemplate] : [] };
    } catch (err) {
      throw failure(err, requestId);
    }
  });

  server.setRequestHandler('resources/list', async (request, ctx) => {
    const start = pageStart(request.params?.cursor);
    const requestId = nextRequestId();
    try {
      const caller = await identity.currentCaller();
      if (!caller || !mayReadCards(caller)) return { resources: [] };
      const { page, nextCursor } = pageOf(await listCardResources(capability(requestId, ctx)), start, pageSize);
      return { resources: page, ...(nextCursor ? { nextCursor } : {}) };
    } catch (err) {
      throw failure(err, requestId);
    }
  });

  server.setRequestHandler('resources/read', async (request, ctx) => {
    const requestId = nextRequestId();
    try {
      return await readCardResource(capability(requestId, ctx), request.params.uri);
    } catch (err) {
      const refusal = failure(err, requestId);
      // SEP-2164: the error of a resource that does not exist names the URI asked for.
      if (toPorchError(err).code !== 'RESOURCE_NOT_FOUND') throw refusal;
      throw new ProtocolError(refusal.code, refusal.message, { ...refusal.data, uri: request.params.uri });
    }
  });

  server.setRequestHandler('completion/complete', async (request, ctx) => {
    const requestId = nextRequestId();
    try {
      // Without a key, or with one that may read neither prompts nor cards, nothing is offered
      // (as prompts/list is empty then), rather than a refusal a client would show while typing.
      if (!mayComplete(await identity.currentCaller())) return noCompletion();
      return await completeArgumentValues(capability(requestId, ctx), request.params);
    } catch (err) {
      throw failure(err, requestId);
    }
  });

  // Tied to the HTTP request where there is one (stdio has no request id to name).
  server.onerror = (err) => logSdkError(core.logger, err, options.requestId === undefined ? {} : logFields(options.requestId()));
  return server;
}
