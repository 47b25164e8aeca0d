/**
 * An operation is data plus `run`: the one definition from which the REST route, the MCP tool, the
 * OpenAPI path, the scope check and the typed client are derived. Adding an operation means one
 * file in this folder and one line in `index.ts`.
 */
import type { z } from 'zod';
import type { Caller, CredentialClass } from '../core/access/caller.js';
import { ALL_SCOPES, type Scope } from '../core/access/scopes.js';
import type { Core } from '../core/core.js';
import type { QueuedRunHooks } from '../core/execution/executions.js';
import type { RunKind } from '../db/store.js';
import type { ExecutionEvents } from '../core/execution/executions.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * What calling the operation does, which MCP annotations and the client's retry rules derive from:
 * `read` changes nothing; `write` creates or changes the caller's data; `destructive` deletes it;
 * `execute` runs models (open world, metered, not idempotent unless an Idempotency-Key is sent).
 */
export type OperationEffect = 'read' | 'write' | 'destructive' | 'execute';

type AnyObjectSchema = z.ZodObject<z.ZodRawShape>;
type Infer<Schema> = Schema extends z.ZodType ? z.output<Schema> : Record<never, never>;

/** The documented `data` of a success: an output schema, or null for 204 (no body). */
export type OutputSchema = z.ZodType | null;

/**
 * What `run` must answer for an output schema: the schema's own type (its output side, which is
 * what the documentation shows), or nothing for 204. `run` is typed by it, so an operation
 * cannot compile while answering another shape; tests also check each answer at run time
 * (`checkOperationOutput`), which catches the extra fields a structural type lets through.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a 204 operation's run may end without returning, which only void allows.
export type OutputOf<Output extends OutputSchema> = Output extends z.ZodType ? z.output<Output> : void;

/** The item type of a list operation's output (`{ items: Item[], ... }`); unknown for other outputs, which have no items to stream. */
export type ListItemOf<Output extends OutputSchema> = OutputOf<Output> extends { items: Array<infer Item> } ? Item : unknown;

/**
 * The doors and generators that expose an operation, stated once and read by each of them:
 * - `rest`: a route under the API base path, and a method of the typed REST client;
 * - `mcp-tool`: an MCP tool of the operation's name;
 * - `mcp-prompt`: behind the MCP prompts and completions capabilities (listing and rendering prompts, completing arguments);
 * - `console`: callable from the web console as the signed-in account;
 * - `discovery`: documented in the OpenAPI document and the docs.
 */
export const DOORS = ['rest', 'mcp-tool', 'mcp-prompt', 'console', 'discovery'] as const;
export type Door = (typeof DOORS)[number];

/** Where an API operation is unless its definition says otherwise: everywhere but the MCP prompts capability. */
export const DEFAULT_EXPOSURE = ['rest', 'mcp-tool', 'console', 'discovery'] as const satisfies readonly Door[];
type DefaultExposure = typeof DEFAULT_EXPOSURE;

export interface OperationContext<CallerType> {
  core: Core;
  caller: CallerType;
  requestId: string;
  /** The Idempotency-Key header, when the caller sent one (execute operations honour it). */
  idempotencyKey: string | undefined;
  /** Aborted when the client goes away, or when the queued run it executes is cancelled. */
  signal: AbortSignal;
  /** Present when the call executes a queued run (`runKind` operations only). */
  queuedRun?: QueuedRunHooks | undefined;
  /** Tells a poller when to ask again: the answer is still changing (doors send it as `Retry-After`). */
  pollAfter?(seconds: number): void;
  /**
   * Listeners of a door that streams the operation (see `streams`): text deltas, finished
   * workflow nodes. Absent otherwise; the operation's answer is the same either way.
   */
  events?: ExecutionEvents | undefined;
}

/**
 * What an operation can stream while it runs, for a door that asks (REST `Accept:
 * text/event-stream`, MCP progress): `deltas`, the answer's text as the model produces it;
 * `nodes`, each workflow node as it finishes.
 */
export type StreamKind = 'deltas' | 'nodes';

interface OperationShape<Params, Query, Body, Output extends OutputSchema, Name extends string> {
  /** snake_case, verb first: the MCP tool name; the operationId is its camelCase. */
  name: Name;
  /** Short human title (OpenAPI summary, MCP tool title). */
  title: string;
  /** What it does and when to use it, written for a developer and for an LLM choosing a tool. */
  description: string;
  /** The REST route (OpenAPI style path under the API base, `/context-cards/{id}`). */
  method: HttpMethod;
  path: string;
  /** OpenAPI tag (the resource group). */
  tag: string;
  effect: OperationEffect;
  successStatus: 200 | 201 | 204;
  /** Which doors expose the operation (DEFAULT_EXPOSURE when omitted). */
  exposure?: readonly Door[];
  params?: Params;
  query?: Query;
  body?: Body;
  /** The `data` payload on success; null for 204 (no body). It types what `run` may answer. */
  output: Output;
  /** Whether an Idempotency-Key makes retries safe (replayed, never charged twice). */
  idempotencyKey?: boolean;
  /**
   * A `write` that, repeated with the same input, changes nothing more than the first call did
   * (setting a label, replacing a rule): MCP's idempotentHint. Not an update that writes a new
   * version each time, nor a create.
   */
  idempotent?: true;
  /**
   * Executions only: the kind of run the call records. With `Prefer: respond-async` the call is
   * queued as such a run (202 with its id) and executed later, by this same definition's `run`.
   */
  runKind?: RunKind;
  /**
   * Whether a call holds one of the key's in-flight slots while it runs (`limits.max_in_flight_per_key`).
   * Executions always do; other operations whose cost grows with the input (a scan of a
   * megabyte) say so here, so a key cannot keep more of them running at once.
   */
  holdsInFlightSlot?: boolean;
  /**
   * How a success is sent: the JSON envelope (the default), or `markdown` for operations that
   * export a document (a SKILL.md): the output string itself as `text/markdown`, so a file saved
   * from the response is the document. Errors are always the JSON envelope.
   */
  responseType?: 'json' | 'markdown';
  /** What the operation streams to a door that asks for it (absent: it cannot stream). */
  streams?: StreamKind;
  /** When a success carries `Retry-After` (set through `pollAfter`), for the OpenAPI document; absent: never. */
  pollsAfter?: string;
}

export interface KeyedOperation<
  Params extends AnyObjectSchema | undefined = AnyObjectSchema | undefined,
  Query extends AnyObjectSchema | undefined = AnyObjectSchema | undefined,
  Body extends AnyObjectSchema | undefined = AnyObjectSchema | undefined,
  Output extends OutputSchema = OutputSchema,
  Name extends string = string,
> extends OperationShape<Params, Query, Body, Output, Name> {
  access: 'keyed';
  /** Any one of these scopes grants the operation. */
  scopes: readonly Scope[];
  /**
   * Credentials refused whatever their scopes: `partner_key` where only the account holder acts
   * (its keys, connected apps and organisation), `connected_app` where a key would be minted that
   * outlives the app's connection. Core refuses them (ACCESS_DENIED, saying who may); tools/list
   * leaves such a tool out for them, and a test holds the two to each other.
   */
  refuses?: readonly CredentialClass[];
  run(input: Infer<Params> & Infer<Query> & Infer<Body>, ctx: OperationContext<Caller>): Promise<OutputOf<Output>>;
  /**
   * Lists only: the items `run` answers when no `limit` is sent, as successive pages read one
   * after another. A door that can write a list as it is read (REST) uses this instead of `run`,
   * so a long list never sits whole in memory (DECISIONS: every item, without building it in
   * memory); doors that need the answer as one value call `run`.
   */
  streamItems?(input: Infer<Params> & Infer<Query> & Infer<Body>, ctx: OperationContext<Caller>): AsyncIterable<ListItemOf<Output>[]>;
}

export interface PublicOperation<
  Params extends AnyObjectSchema | undefined = AnyObjectSchema | undefined,
  Query extends AnyObjectSchema | undefined = AnyObjectSchema | undefined,
  Body extends AnyObjectSchema | undefined = AnyObjectSchema | undefined,
  Output extends OutputSchema = OutputSchema,
  Name extends string = string,
> extends OperationShape<Params, Query, Body, Output, Name> {
  access: 'public';
  run(input: Infer<Params> & Infer<Query> & Infer<Body>, ctx: OperationContext<null>): Promise<OutputOf<Output>>;
}

// Operations are stored in one heterogeneous list; method parameters are bivariant, so any definition can be assigned.
export type Operation = KeyedOperation | PublicOperation;

/** Any keyed operation, whatever its schemas. */
export type AnyKeyedOperation = Extract<Operation, { access: 'keyed' }>;

export function defineKeyedOperation<
  Params extends AnyObjectSchema | undefined = undefined,
  Query extends AnyObjectSchema | undefined = undefined,
  Body extends AnyObjectSchema | undefined = undefined,
  Output extends OutputSchema = null,
  const Name extends string = string,
  const Exposure extends readonly Door[] = DefaultExposure,
>(
  definition: Omit<KeyedOperation<Params, Query, Body, Output, Name>, 'access' | 'exposure'> & { exposure?: Exposure },
): KeyedOperation<Params, Query, Body, Output, Name> & { exposure?: Exposure } {
  return { ...definition, access: 'keyed' };
}

export function definePublicOperation<
  Params extends AnyObjectSchema | undefined = undefined,
  Query extends AnyObjectSchema | undefined = undefined,
  Body extends AnyObjectSchema | undefined = undefined,
  Output extends OutputSchema = null,
  const Name extends string = string,
  const Exposure extends readonly Door[] = DefaultExposure,
>(
  definition: Omit<PublicOperation<Params, Query, Body, Output, Name>, 'access' | 'exposure'> & { exposure?: Exposure },
): PublicOperation<Params, Query, Body, Output, Name> & { exposure?: Exposure } {
  return { ...definition, access: 'public' };
}

/** Whether a call of the operation counts toward the key's in-flight limit: executions, and those that say so. */
export function holdsInFlightSlot(operation: Pick<Operation, 'effect' | 'holdsInFlightSlot'>): boolean {
  return operation.effect === 'execute' || operation.holdsInFlightSlot === true;
}

/** Whether every scope grants the operation, so any key may call it (`get_account`): no key lacks every scope. */
export function grantedToAnyKey(operation: Pick<AnyKeyedOperation, 'scopes'>): boolean {
  return ALL_SCOPES.every((scope) => operation.scopes.includes(scope));
}

/** The scopes that grant a keyed operation, as the docs and OpenAPI descriptions list them. */
export function describeScopes(operation: Pick<AnyKeyedOperation, 'scopes'>): string {
  return grantedToAnyKey(operation) ? 'any key (every scope grants it)' : operation.scopes.map((scope) => `\`${scope}\``).join(', ');
}

/** Whether the operation is exposed on a door. */
export function isExposedOn(operation: Pick<Operation, 'exposure'>, door: Door): boolean {
  const exposure: readonly Door[] = operation.exposure ?? DEFAULT_EXPOSURE;
  return exposure.includes(door);
}

/** The operations of a list that a door exposes, as a type (the typed client's methods). */
export type ExposedOn<Op, D extends Door> = Op extends { exposure?: infer Exposure extends readonly Door[] }
  ? D extends Exposure[number]
    ? Op
    : never
  : never;

/** The operations one door exposes, in list order. */
export function exposedOn<Op extends Operation, D extends Door>(operations: readonly Op[], door: D): Array<ExposedOn<Op, D>> {
  return operations.filter((operation): operation is ExposedOn<Op, D> => isExposedOn(operation, door));
}

/** `execute_workflow` → `executeWorkflow`, at the type level. */
export type OperationId<Name extends string> = Name extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<OperationId<Tail>>}` : Name;

/** `execute_workflow` → `executeWorkflow`. */
export function operationId(operation: Pick<Operation, 'name'>): string {
  return operation.name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** The `data` an operation answers with: its documented output schema's type (for the typed client and tests). */
export type OperationOutput<Op> = Op extends { output: infer Output extends OutputSchema } ? OutputOf<Output> : never;

/** The merged input (path, query and body fields) an operation accepts. */
export type OperationInput<Op> = Op extends { run(input: infer Input, ...rest: never[]): Promise<unknown> } ? Input : never;
