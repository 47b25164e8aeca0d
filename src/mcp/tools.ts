/**
 * MCP tools, generated in one loop from the operation definitions: one tool per operation, named
 * after it, with the operation's own schemas. A keyed tool's call goes through the same
 * invocation path as REST (authenticate → scope → rate limit → validate → run), so its
 * permissions, limits, billing and usage rows are those of the REST API.
 */
import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Caller } from '../core/access/caller.js';
import type { Core } from '../core/core.js';
import type { ExecutionEvents } from '../core/execution/executions.js';
import { PorchError, type ErrorCodeSet } from '../core/errors.js';
import { formatZodError, isRecord } from '../core/validation.js';
import { invokeOperation, isOperationOpenTo } from '../operations/invoke.js';
import type { Operation } from '../operations/operation.js';
import type { McpIdentity } from './identity.js';
import { toolDataResult, toolErrorResult, toolTextResult } from './to-tool-result.js';

/** What a tool call knows about the request it answers. */
export interface McpToolContext {
  core: Core;
  identity: McpIdentity;
  errorCodes: ErrorCodeSet;
  requestId: string;
  /** Aborted when the client cancels the call or the connection closes. */
  signal: AbortSignal;
  idempotencyKey: string | undefined;
  /** Listeners for an operation that streams, when the client asked for progress. */
  events?: ExecutionEvents | undefined;
  /** Queue the run instead of executing it (an execute tool answering with an MCP task). */
  respondAsync?: boolean;
}

/** A tool call's answer: the tool result, and the run it queued when it was asked to respond asynchronously. */
export interface McpToolOutcome {
  toolResult: CallToolResult;
  queuedRunId?: string;
}

export interface McpTool {
  /** The `tools/list` entry: name, title, description, JSON Schemas and annotations. */
  readonly definition: Tool;
  /** The operation the tool mirrors. */
  readonly operation: Operation;
  /** Whether `tools/list` shows the tool to this credential (null: no key): whether it may call it. */
  isListed(credential: Caller['credential'] | null): boolean;
  call(args: Record<string, unknown>, ctx: McpToolContext): Promise<McpToolOutcome>;
}

type ObjectJsonSchema = Tool['inputSchema'];

/**
 * The dialect of tool schemas: JSON Schema 2020-12, the default dialect of MCP revision
 * 2025-11-25. Each schema names it in `$schema`, so a client of an older revision, which assumed
 * no dialect, reads it the same way (and the SDK's Ajv, which does not check `$schema`, accepts it).
 */
export const TOOL_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** What MCP requires of a tool's input and output schema: a JSON object schema of JSON values. */
const objectJsonSchema = z.looseObject({
  $schema: z.string(),
  type: z.literal('object'),
  properties: z.record(z.string(), z.json()).optional(),
  required: z.array(z.string()).optional(),
});

/** A zod schema as the JSON Schema MCP clients read (an object schema, as MCP requires). */
export function toObjectJsonSchema(schema: z.ZodType, io: 'input' | 'output', label: string): ObjectJsonSchema {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io });
  if (json.$schema !== TOOL_SCHEMA_DIALECT) throw new Error(`${label}: zod produced the dialect ${String(json.$schema)}, not ${TOOL_SCHEMA_DIALECT}.`);
  const parsed = objectJsonSchema.safeParse(json);
  if (!parsed.success) throw new Error(`${label} must be a JSON object schema; MCP requires object input and output schemas.`);
  return parsed.data;
}

/** The fields of the operation's path, query and body, as one tool input. */
export function operationInputSchema(operation: Operation): z.ZodObject {
  const shape: Record<string, z.core.$ZodType> = {};
  for (const part of [operation.params, operation.query, operation.body]) {
    if (!part) continue;
    for (const [key, field] of Object.entries(part.shape)) {
      // A tool has one flat argument object, so a name in two parts would be ambiguous.
      if (Object.hasOwn(shape, key)) throw new Error(`Operation ${operation.name} uses the field "${key}" in two parts; MCP arguments are flat.`);
      shape[key] = field;
    }
  }
  // A strict body refuses unknown fields over REST; saying so in the schema tells the model too.
  const strict = operation.body !== undefined && operation.body.def.catchall instanceof z.ZodNever;
  return strict ? z.strictObject(shape) : z.object(shape);
}

/**
 * What the operation's effect tells an MCP client. Only model calls reach outside Porch's own
 * database (open world); a partial update or a delete repeated has no further effect.
 */
export function annotationsFor(operation: Pick<Operation, 'effect' | 'idempotent'>): ToolAnnotations {
  switch (operation.effect) {
    case 'read':
      return { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
    case 'write':
      // Declared, not read off the method: an update that writes a new version is a PATCH that is not idempotent.
      return { readOnlyHint: false, destructiveHint: false, idempotentHint: operation.idempotent === true, openWorldHint: false };
    case 'destructive':
      return { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
    case 'execute':
      return { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
  }
}

export interface SplitArguments {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown> | undefined;
}

/**
 * Sorts flat tool arguments back into the parts REST would have received. Unknown names go to
 * the body (a strict body refuses them, as over REST) or else to the query (ignored, as REST
 * ignores unknown query parameters).
 */
export function splitArguments(operation: Operation, args: Record<string, unknown>): SplitArguments {
  const split: SplitArguments = { params: {}, query: {}, body: operation.body ? {} : undefined };
  for (const [key, value] of Object.entries(args)) {
    if (operation.params && Object.hasOwn(operation.params.shape, key)) split.params[key] = value;
    else if (operation.query && Object.hasOwn(operation.query.shape, key)) split.query[key] = value;
    else if (split.body) split.body[key] = value;
    else split.query[key] = value;
  }
  return split;
}

/** The JSON Schema types of numbers, and how a value of another type is refused (the operations' own words). */
const NUMBER_TYPE_MESSAGES: Readonly<Record<string, string>> = { integer: 'must be a whole number', number: 'must be a number' };

/** What the tool checks of an argument REST reads from the URL, before the operation's own schema does. */
interface UrlArgument {
  name: string;
  /** Whether the tool's schema requires it: a path parameter, which every REST request has. */
  required: boolean;
  /** For an integer or number: how a value of another JSON type is refused. */
  numberMessage: string | undefined;
}

/**
 * The arguments of the operation's path and query, as the tool's schema states them. REST reads
 * these from the URL, so their schemas are written for it, and two of their words are wrong for
 * an MCP client's JSON. A path parameter is always there in a URL, so its schema's one message
 * (`must be a uuid`) is also what a missing one got (regression: `get_context_card {}` said
 * "id: must be a uuid"); and a number's schema turns a string of digits into a number, where the
 * tool's schema says integer and refuses `"12"` (regression: `{"limit": "12"}` was served).
 */
function urlArgumentsOf(operation: Operation, inputSchema: ObjectJsonSchema): readonly UrlArgument[] {
  const required = new Set(inputSchema.required ?? []);
  const checked: UrlArgument[] = [];
  for (const part of [operation.params, operation.query]) {
    for (const name of Object.keys(part?.shape ?? {})) {
      const property = inputSchema.properties?.[name];
      const type = isRecord(property) ? property.type : undefined;
      const numberMessage = typeof type === 'string' ? NUMBER_TYPE_MESSAGES[type] : undefined;
      if (required.has(name) || numberMessage !== undefined) checked.push({ name, required: required.has(name), numberMessage });
    }
  }
  return checked;
}

/**
 * The refusal of arguments of `checked` missing though required, or sent as another JSON type than
 * the number their schema says, worded as REST's validation words a body field (`title: is
 * required`), with the other problems of the path and query arguments, as REST reports those
 * together (regression: `{"id": 42}` lost its "must be a uuid"); undefined when none is missing or
 * mistyped.
 */
function urlArgumentsProblem(
  operation: Operation,
  checked: readonly UrlArgument[],
  args: Record<string, unknown>,
  split: SplitArguments,
): PorchError | undefined {
  const own = new Map<string, string>();
  for (const { name, required, numberMessage } of checked) {
    const value = Object.hasOwn(args, name) ? args[name] : undefined;
    if (value === undefined) {
      if (required) own.set(name, 'is required');
    } else if (numberMessage !== undefined && typeof value !== 'number') own.set(name, numberMessage);
  }
  if (own.size === 0) return undefined;
  const issues: z.core.$ZodIssue[] = [...own].map(([name, message]) => ({ code: 'custom', path: [name], message, input: args[name] }));
  const names: string[] = [];
  for (const [part, values] of [
    [operation.params, split.params],
    [operation.query, split.query],
  ] as const) {
    if (!part) continue;
    names.push(...Object.keys(part.shape));
    const parsed = part.safeParse(values);
    if (!parsed.success) issues.push(...parsed.error.issues.filter((issue) => !own.has(String(issue.path[0]))));
  }
  // In the order of the tool's arguments, as the operation's own validation lists them.
  const order = (issue: z.core.$ZodIssue) => {
    const index = names.indexOf(String(issue.path[0]));
    return index === -1 ? names.length : index;
  };
  issues.sort((first, second) => order(first) - order(second));
  return new PorchError('VALIDATION_ERROR', `Invalid request: ${formatZodError(new z.ZodError(issues), { whole: 'arguments' })}.`);
}

/**
 * A document export (a SKILL.md, say) answers with the document itself. MCP output schemas must
 * describe objects, so such a tool has none and returns the document as its text.
 */
function answersWithDocument(operation: Operation): boolean {
  return operation.responseType === 'markdown';
}

/** A client may pass an Idempotency-Key for execute tools in the call's `_meta` under this name. */
export const IDEMPOTENCY_META_KEY = 'porch/idempotency-key';

/**
 * How an MCP client makes an execute's retries safe, added to the description of every operation
 * that honours an idempotency key: the operation's own text speaks of REST's header, which a stdio
 * client cannot send (regression: the tool told every client to send the header).
 */
export const IDEMPOTENCY_KEY_DESCRIPTION = `Over MCP, send the idempotency key in the call's _meta as "${IDEMPOTENCY_META_KEY}" (over HTTP the Idempotency-Key header works too): a retry with the same key and arguments within 24 h replays the first answer without running or charging again.`;

/** The tool's description: the operation's, plus what only an MCP client needs to know. */
export function toolDescription(operation: Pick<Operation, 'description' | 'idempotencyKey'>): string {
  return operation.idempotencyKey === true ? `${operation.description} ${IDEMPOTENCY_KEY_DESCRIPTION}` : operation.description;
}

/** The tool that mirrors one operation. */
export function operationTool(operation: Operation): McpTool {
  const definition: Tool = {
    name: operation.name,
    title: operation.title,
    description: toolDescription(operation),
    inputSchema: toObjectJsonSchema(operationInputSchema(operation), 'input', `The input of ${operation.name}`),
    ...(operation.output && !answersWithDocument(operation)
      ? { outputSchema: toObjectJsonSchema(operation.output, 'output', `The output of ${operation.name}`) }
      : {}),
    annotations: annotationsFor(operation),
  };
  const urlArguments = urlArgumentsOf(operation, definition.inputSchema);
  return {
    definition,
    operation,
    isListed: (credential) => operation.access === 'public' || (credential !== null && isOperationOpenTo(operation, credential)),
    async call(args, ctx) {
      const split = splitArguments(operation, args);
      const result = await invokeOperation(ctx.core, operation, {
        credentials: ctx.identity.credentials,
        authenticated: ctx.identity.requestCaller,
        params: split.params,
        query: split.query,
        body: split.body,
        // Reported at the validation step, after the key, scope and rate-limit checks, as REST reports a malformed body.
        bodyError: urlArgumentsProblem(operation, urlArguments, args, split),
        requestId: ctx.requestId,
        idempotencyKey: ctx.idempotencyKey,
        signal: ctx.signal,
        door: 'mcp',
        pathStyle: 'plain',
        events: ctx.events,
        respondAsync: ctx.respondAsync,
      });
      if (!result.ok) return { toolResult: toolErrorResult(result.error, ctx.errorCodes, result.meta) };
      if (answersWithDocument(operation) && typeof result.data === 'string') return { toolResult: toolTextResult(result.data, result.meta) };
      if (operation.output === null) {
        const target = Object.values(split.params).map(String).join(', ');
        return { toolResult: toolTextResult(`Done: ${operation.title}${target ? ` (${target})` : ''}.`, result.meta) };
      }
      if (!isRecord(result.data)) {
        throw new PorchError('INTERNAL_ERROR', 'An internal error occurred.', {}, { cause: new Error(`${operation.name} answered a non-object`) });
      }
      return { toolResult: toolDataResult(result.data, result.meta), ...(result.queuedRunId === undefined ? {} : { queuedRunId: result.queuedRunId }) };
    },
  };
}
