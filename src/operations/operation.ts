/**
 * An operation is data plus `run`: the one definition from which the REST route, the MCP tool, the
 * OpenAPI path, the scope check and the typed client are derived. Adding an operation means one
 * file in this folder and one line in `index.ts`.
 */
import type { z } from 'zod';
import type { Caller } from '../core/access/caller.js';
import type { Scope } from '../core/access/scopes.js';
import type { Core } from '../core/core.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * What calling the operation does, which MCP annotations and the client's retry rules derive from:
 * `read` changes nothing; `write` creates or changes the caller's data; `destructive` deletes it;
 * `execute` runs models (open world, metered, not idempotent unless an Idempotency-Key is sent).
 */
export type OperationEffect = 'read' | 'write' | 'destructive' | 'execute';

type AnyObjectSchema = z.ZodObject<z.ZodRawShape>;
type Infer<Schema> = Schema extends z.ZodType ? z.output<Schema> : Record<never, never>;

export interface OperationContext<CallerType> {
  core: Core;
  caller: CallerType;
  requestId: string;
  /** The Idempotency-Key header, when the caller sent one (execute operations honour it). */
  idempotencyKey: string | undefined;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

interface OperationShape<Params, Query, Body, Name extends string> {
  /** snake_case, verb first: the MCP tool name; the operationId is its camelCase. */
  name: Name;
  /** Short human title (OpenAPI summary, MCP tool title). */
  title: string;
  /** What it does and when to use it, written for a developer and for an LLM choosing a tool. */
  description: string;
  method: HttpMethod;
  /** Path under the API base, OpenAPI style (`/context-cards/{id}`). */
  path: string;
  /** OpenAPI tag (the resource group). */
  tag: string;
  effect: OperationEffect;
  successStatus: 200 | 201 | 204;
  params?: Params;
  query?: Query;
  body?: Body;
  /** The `data` payload on success; null for 204 (no body). */
  output: z.ZodType | null;
  /** Whether an Idempotency-Key makes retries safe (replayed, never charged twice). */
  idempotencyKey?: boolean;
  /**
   * How a success is sent: the JSON envelope (the default), or `markdown` for operations that
   * export a document (a SKILL.md): the output string itself as `text/markdown`, so a file saved
   * from the response is the document. Errors are always the JSON envelope.
   */
  responseType?: 'json' | 'markdown';
}

export interface KeyedOperation<
  Params extends AnyObjectSchema | undefined = AnyObjectSchema | undefined,
  Query extends AnyObjectSchema | undefined = AnyObjectSchema | undefined,
  Body extends AnyObjectSchema | undefined = AnyObjectSchema | undefined,
  Output = unknown,
  Name extends string = string,
> extends OperationShape<Params, Query, Body, Name> {
  access: 'keyed';
  /** Any one of these scopes grants the operation. */
  scopes: readonly Scope[];
  run(input: Infer<Params> & Infer<Query> & Infer<Body>, ctx: OperationContext<Caller>): Promise<Output>;
}

export interface PublicOperation<
  Params extends AnyObjectSchema | undefined = AnyObjectSchema | undefined,
  Query extends AnyObjectSchema | undefined = AnyObjectSchema | undefined,
  Body extends AnyObjectSchema | undefined = AnyObjectSchema | undefined,
  Output = unknown,
  Name extends string = string,
> extends OperationShape<Params, Query, Body, Name> {
  access: 'public';
  run(input: Infer<Params> & Infer<Query> & Infer<Body>, ctx: OperationContext<null>): Promise<Output>;
}

// Operations are stored in one heterogeneous list; `never` inputs let any definition be assigned.
export type Operation = KeyedOperation<AnyObjectSchema | undefined, AnyObjectSchema | undefined, AnyObjectSchema | undefined, unknown> | PublicOperation<AnyObjectSchema | undefined, AnyObjectSchema | undefined, AnyObjectSchema | undefined, unknown>;

/** Any keyed operation, whatever its schemas. */
export type AnyKeyedOperation = Extract<Operation, { access: 'keyed' }>;

export function defineKeyedOperation<
  Params extends AnyObjectSchema | undefined = undefined,
  Query extends AnyObjectSchema | undefined = undefined,
  Body extends AnyObjectSchema | undefined = undefined,
  Output = unknown,
  const Name extends string = string,
>(definition: Omit<KeyedOperation<Params, Query, Body, Output, Name>, 'access'>): KeyedOperation<Params, Query, Body, Output, Name> {
  return { ...definition, access: 'keyed' };
}

export function definePublicOperation<
  Params extends AnyObjectSchema | undefined = undefined,
  Query extends AnyObjectSchema | undefined = undefined,
  Body extends AnyObjectSchema | undefined = undefined,
  Output = unknown,
  const Name extends string = string,
>(definition: Omit<PublicOperation<Params, Query, Body, Output, Name>, 'access'>): PublicOperation<Params, Query, Body, Output, Name> {
  return { ...definition, access: 'public' };
}

/** `execute_workflow` → `executeWorkflow`, at the type level. */
export type OperationId<Name extends string> = Name extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<OperationId<Tail>>}` : Name;

/** `execute_workflow` → `executeWorkflow`. */
export function operationId(operation: Pick<Operation, 'name'>): string {
  return operation.name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** The `data` an operation answers with, for tests and the typed client. */
export type OperationOutput<Op> = Op extends { run(...args: never[]): Promise<infer Output> } ? Output : never;

/** The merged input (path, query and body fields) an operation accepts. */
export type OperationInput<Op> = Op extends { run(input: infer Input, ...rest: never[]): Promise<unknown> } ? Input : never;
