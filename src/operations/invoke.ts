/**
 * The one path every keyed call takes, for REST and MCP alike:
 * authenticate → scope → rate limit → validate → run (which reserves, settles and records usage
 * for executions). Business denials come back as values; only faults are logged.
 */
import type { z } from 'zod';
import { type Caller, credentialClassOf, credentialClassRefusal } from '../core/access/caller.js';
import type { Credentials } from '../core/access/authenticator.js';
import type { RateLimitState } from '../core/access/rate-limiter.js';
import { grantsAny } from '../core/access/scopes.js';
import type { Core } from '../core/core.js';
import type { OtherMode } from '../core/idempotency.js';
import type { ExecutionEvents } from '../core/execution/executions.js';
import { PorchError, toPorchError } from '../core/errors.js';
import { recordStopped, STOPPED_CODE, stoppedFromOutside } from '../core/telemetry/stopped-calls.js';
import { type Door, logFieldsOf, recordFailure, type RequestScope } from '../core/telemetry/telemetry.js';
import { formatPath, formatZodError, jsonValueProblem } from '../core/validation.js';
import { holdsInFlightSlot, type Operation } from './operation.js';

export interface InvocationRequest {
  credentials: Credentials;
  /**
   * The caller a door already authenticated from these credentials within this same request
   * (the MCP endpoint does, to build its listings): reused instead of a second lookup. A
   * long-lived connection must not pass one, so a revoked key stops on its next call.
   */
  authenticated?: Caller | undefined;
  params?: unknown;
  query?: unknown;
  body?: unknown;
  /** A body the door could not parse (malformed JSON); reported at the validation step. */
  bodyError?: PorchError;
  requestId: string;
  idempotencyKey?: string | undefined;
  signal: AbortSignal;
  /** Which door the call came through, for the operation's metrics and span. */
  door: Door;
  /** The request the call belongs to (ids and trace), as its door opened it; absent outside HTTP (stdio). */
  scope?: RequestScope | undefined;
  /** How field paths read in validation messages: `body.title` (REST) or `title` (MCP arguments). */
  pathStyle: 'located' | 'plain';
  /** Whether the door writes a whole list as it is read (`pages` in the result) rather than as one value. */
  streamLists?: boolean;
  /** The caller asked for the execution to be queued (`Prefer: respond-async`); honoured by `runKind` operations. */
  respondAsync?: boolean;
  /**
   * A door that streams an operation which can (`operation.streams`): its listeners. Ignored for
   * other operations. The result is the same as without them.
   */
  events?: InvocationEvents | undefined;
}

/** The listeners a streaming door passes: the execution's events, and the moment it starts. */
export interface InvocationEvents extends ExecutionEvents {
  /**
   * Called once, when every check before the run has passed (authentication, scope, rate limit,
   * validation), with the quota as it stands then: what a door that answers as the operation
   * goes must send in its headers. A refusal before this point is an ordinary error result.
   */
  onStart?(meta: InvocationMeta): void;
}

/** The status of an answer that queued a run instead of executing it. */
export const QUEUED_STATUS = 202;

/**
 * The conflicts of a key used for the same execution in the other answering mode: a key replays
 * a queued run's acceptance only to an asynchronous request, and an answer only to one answered
 * at once (regression: both were told the key had been used "with a different request").
 */
const QUEUED_CONFLICT =
  'This Idempotency-Key was already used for this same request queued as a run (Prefer: respond-async); send that header again to get its run_id, or use a new key.';
const ANSWERED_AT_ONCE_CONFLICT =
  'This Idempotency-Key was already used for this same request answered at once (without Prefer: respond-async); send it without that header to get the stored answer, or use a new key.';

export interface InvocationMeta {
  /** Set once the request was counted (or refused) by the rate limiter. */
  rateLimit: RateLimitState | null;
  /** Whole credits left after the request, for every authenticated request. */
  creditsRemaining: number | null;
  /** When to ask again for an answer that is still changing (a run not yet ended), in seconds: `Retry-After`. */
  pollAfterSeconds?: number | undefined;
}

export type InvocationResult =
  | {
      ok: true;
      status: number;
      data: unknown;
      meta: InvocationMeta;
      /** Only for a door that asked for `streamLists`: the whole list, a page at a time (then `data` is undefined). */
      pages?: AsyncIterable<readonly unknown[]>;
      /** Set when the call queued a run (status 202): the run to poll. */
      queuedRunId?: string;
    }
  | { ok: false; error: PorchError; meta: InvocationMeta };

/** Whether a key with these scopes may call the operation (public operations: always). */
export function isOperationAllowed(operation: Operation, scopes: readonly string[]): boolean {
  return operation.access === 'public' || grantsAny(scopes, operation.scopes);
}

/** Whether `credential` may call the operation: its scopes grant it and its kind is not refused (`refuses`). */
export function isOperationOpenTo(operation: Operation, credential: Caller['credential']): boolean {
  if (operation.access === 'public') return true;
  const credentialClass = credentialClassOf(credential);
  return grantsAny(credential.scopes, operation.scopes) && (credentialClass === null || !operation.refuses?.includes(credentialClass));
}

function parsePart<Schema extends z.ZodType>(schema: Schema, raw: unknown, location: string, style: InvocationRequest['pathStyle']): z.output<Schema> {
  const result = schema.safeParse(raw ?? {});
  if (result.success) return result.data;
  const names = style === 'plain' ? { whole: 'arguments' } : { root: location };
  const problems = formatZodError(result.error, names);
  // A schema's own message may end a sentence already ("The prompt must not be blank.").
  throw new PorchError('VALIDATION_ERROR', `Invalid request: ${problems}${problems.endsWith('.') ? '' : '.'}`);
}

/**
 * How deeply a request's JSON may nest. No Porch input needs more than a handful of levels, and
 * hashing, templating and storing a value recurse over it: without a bound, a 1 MiB body of
 * nested arrays overflows the stack (regression: the fuzzer sent `{"variables": {"deep":
 * [[[...]]]}}` with an Idempotency-Key and got a 500 from the request hash).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * What no operation accepts in a parsed request part, whatever its schema (jsonValueProblem:
 * deeper than `depthLimit`, a NUL character, a `__proto__` key), worded as validation messages
 * are; undefined when there is none. `location` and `style` name the place (`body.tags[1]`, or `tags[1]`).
 */
export function requestPartProblem(value: unknown, location: string, style: InvocationRequest['pathStyle'], depthLimit: number): string | undefined {
  const problem = jsonValueProblem(value, depthLimit);
  if (problem === undefined) return undefined;
  if (problem.kind === 'too-deep') return `the ${location} nests deeper than ${depthLimit} levels`;
  return `${formatPath(problem.path, style === 'plain' ? '' : location) || 'arguments'}: ${problem.message}`;
}

/** Validates each part against the operation's own schemas and merges them into one input. */
export function parseOperationInput(
  operation: Operation,
  request: Pick<InvocationRequest, 'params' | 'query' | 'body' | 'bodyError' | 'pathStyle'>,
): Record<string, unknown> {
  if (request.bodyError) throw request.bodyError;
  const parts = [
    ['path', request.params],
    ['query', request.query],
    ['body', request.body],
  ] as const;
  for (const [location, value] of parts) {
    const problem = requestPartProblem(value, location, request.pathStyle, MAX_JSON_DEPTH);
    if (problem !== undefined) throw new PorchError('VALIDATION_ERROR', `Invalid request: ${problem}.`);
  }
  // No query parameter takes several values: a repeated one is named as such, not as a value of
  // the wrong type (regression: `?limit=1&limit=2` said "must be a whole number").
  if (operation.query && request.pathStyle !== 'plain' && typeof request.query === 'object' && request.query !== null) {
    const known = operation.query.shape;
    const repeated = Object.entries(request.query).filter(([name, value]) => Array.isArray(value) && Object.hasOwn(known, name));
    if (repeated.length > 0) {
      throw new PorchError(
        'VALIDATION_ERROR',
        `Invalid request: ${repeated.map(([name, value]) => `query.${name}: given ${(value as unknown[]).length} times; send it once`).join('; ')}.`,
      );
    }
  }
  return {
    ...(operation.params ? parsePart(operation.params, request.params, 'path', request.pathStyle) : {}),
    ...(operation.query ? parsePart(operation.query, request.query, 'query', request.pathStyle) : {}),
    ...(operation.body ? parsePart(operation.body, request.body, 'body', request.pathStyle) : {}),
  };
}

/** Replays a stored response for a repeated Idempotency-Key, or runs once and stores the response (answered with `status`). */
async function runIdempotently(
  core: Core,
  operation: Operation,
  caller: Caller,
  idempotencyKey: string,
  input: Record<string, unknown>,
  run: () => Promise<unknown>,
  status: number,
  signal: AbortSignal,
  otherMode?: OtherMode,
): Promise<{ status: number; data: unknown }> {
  const start = await core.idempotency.begin(caller.account.id, idempotencyKey, operation.name, input, otherMode);
  if (start.kind === 'replay') {
    core.telemetry.events.idempotentReplay(operation.name);
    return { status: start.status, data: start.body };
  }
  // With the store out of reach, ending the claim waits until it lands (core/deferred-writes.ts),
  // rather than leave the key "still running" for a day; the caller gets the outcome meanwhile,
  // and a retry with the key the stored answer once it has.
  const { deferredWrites, idempotency } = core;
  const what = `the Idempotency-Key claim of ${operation.name}`;
  let data: unknown;
  try {
    data = await run();
  } catch (err) {
    await deferredWrites.attempt(what, () => idempotency.abandon(caller.account.id, idempotencyKey));
    throw err;
  }
  // An answer its caller stopped (a workflow cut off when its client left) is no answer to keep:
  // a retry runs again, as after a single call's (regression: the cut-off answer replayed for a day).
  if (stoppedFromOutside(signal)) await deferredWrites.attempt(what, () => idempotency.abandon(caller.account.id, idempotencyKey));
  else await deferredWrites.attempt(what, () => idempotency.complete(caller.account.id, idempotencyKey, status, data));
  return { status, data };
}

/** The run id of a queued run's acceptance (`{ run_id, status: 'queued' }`), first answered or replayed. */
function queuedRunIdOf(data: unknown): string | undefined {
  return typeof data === 'object' && data !== null && 'run_id' in data && typeof data.run_id === 'string' ? data.run_id : undefined;
}

/**
 * Fills in what an answer to an authenticated caller reports about its quota (DECISIONS.md,
 * Headers: every response once a key is authenticated, errors included). A request refused before
 * the rate limiter (a scope the key lacks) reports the windows without being counted in them.
 * Reading them must not turn the refusal into a fault, so a failed read leaves the meta empty.
 */
export async function describeQuota(core: Core, caller: Caller, meta: InvocationMeta): Promise<void> {
  meta.rateLimit ??= await core.rateLimiter.peek(caller).catch(() => null);
  meta.creditsRemaining = await core.credits.remainingCredits(caller.account.id).catch(() => null);
}

/**
 * Runs the operation in a span (its own, or the request's) and reports it (operation, door, outcome code, duration):
 * every keyed and public call of every door passes here, so this is the one place they are counted.
 */
export async function invokeOperation(core: Core, operation: Operation, request: InvocationRequest): Promise<InvocationResult> {
  // Counted until it settles, so a shutdown closes the store only after it (core/in-flight.ts).
  core.inFlight.begin();
  try {
    return await invokeCounted(core, operation, request);
  } finally {
    core.inFlight.end();
  }
}

async function invokeCounted(core: Core, operation: Operation, request: InvocationRequest): Promise<InvocationResult> {
  const { telemetry } = core;
  const startedAt = process.hrtime.bigint();
  const attributes = { 'porch.operation': operation.name, 'porch.door': request.door };
  // MCP's tools reach here without the scope, from a caller the MCP door bound to it.
  const scope = request.scope ?? (request.authenticated === undefined ? undefined : telemetry.scopeOf(request.authenticated));
  // An execution gets its own span, the parent of the execution's (request → operation →
  // execution → model call); any other call is recorded on the request's span, which it fills
  // all but alone: half the spans of a read, whose recording and export were most of what tracing
  // cost it (bench/RESULTS-NOTES.md, Observability).
  const inSpan = operation.runKind === undefined ? telemetry.inRequestSpan : telemetry.span;
  // A call its client stopped by going away failed no one, and whatever it ended with (an error,
  // a workflow run cut short) reached no one: it is counted and traced as CANCELLED.
  const result = await inSpan(scope, operation.name, { attributes }, async (span) => {
    const answer = await invokeUntraced(core, operation, request, scope);
    if (stoppedFromOutside(request.signal)) recordStopped(span);
    else if (!answer.ok) recordFailure(span, answer.error);
    return answer;
  });
  telemetry.events.operation({
    operation: operation.name,
    door: request.door,
    code: stoppedFromOutside(request.signal) ? STOPPED_CODE : result.ok ? 'OK' : result.error.code,
    durationSeconds: Number(process.hrtime.bigint() - startedAt) / 1e9,
  });
  return result;
}

/** `scope` is the request's, or the one the MCP door bound to its caller (`request.scope` is the door's alone). */
async function invokeUntraced(core: Core, operation: Operation, request: InvocationRequest, scope: RequestScope | undefined): Promise<InvocationResult> {
  const meta: InvocationMeta = { rateLimit: null, creditsRemaining: null };
  let caller: Caller | null = null;
  let takenSlotId: string | undefined;
  try {
    if (operation.access === 'public') {
      const input = parseOperationInput(operation, request);
      const data = await operation.run(input, {
        core,
        caller: null,
        requestId: request.requestId,
        idempotencyKey: request.idempotencyKey,
        signal: request.signal,
      });
      return { ok: true, status: operation.successStatus, data, meta };
    }

    caller = request.authenticated ?? (await core.authenticator.authenticate(request.credentials));
    core.telemetry.setCaller(scope, caller);
    // Who may call it at all before which scopes grant it (authentication.md: "whatever its scopes").
    const credentialClass = credentialClassOf(caller.credential);
    if (credentialClass !== null && operation.refuses?.includes(credentialClass))
      throw credentialClassRefusal(credentialClass, operation.name, operation.scopes);
    if (!grantsAny(caller.credential.scopes, operation.scopes)) {
      throw new PorchError('INSUFFICIENT_PERMISSIONS', `This key lacks the scope for ${operation.name}; it needs one of: ${operation.scopes.join(', ')}.`);
    }
    const { runKind } = operation;
    const { concurrency } = core.executions;
    // An execution run in this request (not queued, not answered from an idempotency record)
    // holds an in-flight slot; it is taken in the rate limiter's transaction, so admitting the
    // execution commits once. Its input is validated first so a malformed request never takes a
    // slot, but the answers keep their order: a full window's 429 before a validation error.
    const admitsWithSlot =
      holdsInFlightSlot(operation) &&
      operation.streamItems === undefined &&
      !(request.respondAsync && runKind !== undefined) &&
      !(operation.idempotencyKey && request.idempotencyKey !== undefined);
    let parsed: { input: Record<string, unknown> } | { error: unknown } | undefined;
    if (admitsWithSlot) {
      try {
        parsed = { input: parseOperationInput(operation, request) };
      } catch (error) {
        parsed = { error };
      }
    }
    if (parsed !== undefined && 'input' in parsed) {
      const slot = await concurrency.slotFor(caller.credential.id);
      const decision = await core.rateLimiter.consumeWithSlot(caller, slot);
      meta.rateLimit = decision.state;
      if (decision.refusal) throw decision.refusal;
      if (!decision.slotAcquired) throw concurrency.refusal();
      takenSlotId = slot.slotId;
    } else {
      const decision = await core.rateLimiter.consume(caller);
      meta.rateLimit = decision.state;
      if (decision.refusal) throw decision.refusal;
    }

    if (parsed !== undefined && 'error' in parsed) throw parsed.error;
    const input = parsed !== undefined && 'input' in parsed ? parsed.input : parseOperationInput(operation, request);
    // Asked to respond async, a stream is not opened: the run is queued and answered at once.
    if (request.respondAsync && runKind !== undefined) {
      // Queued, not executed: the run holds no in-flight slot until a process claims it, and the
      // per-account bound on running runs applies then. A key replays a queued answer only for
      // another asynchronous request, so the mode is part of what the key remembers.
      const { id, ...inputs } = input;
      const queuer = caller;
      const enqueue = () => core.runQueue.enqueue(queuer, runKind, String(id), inputs);
      const { status, data } =
        operation.idempotencyKey && request.idempotencyKey !== undefined
          ? await runIdempotently(core, operation, caller, request.idempotencyKey, { ...input, respond_async: true }, enqueue, QUEUED_STATUS, request.signal, {
              input,
              conflict: ANSWERED_AT_ONCE_CONFLICT,
            })
          : { status: QUEUED_STATUS, data: await enqueue() };
      meta.creditsRemaining = await core.credits.remainingCredits(caller.account.id);
      return { ok: true, status, data, meta, queuedRunId: queuedRunIdOf(data) };
    }
    const events = operation.streams === undefined ? undefined : request.events;
    const context = {
      core,
      caller,
      requestId: request.requestId,
      idempotencyKey: request.idempotencyKey,
      signal: request.signal,
      pollAfter: (seconds: number) => {
        meta.pollAfterSeconds = seconds;
      },
      ...(events === undefined ? {} : { events: { onDelta: events.onDelta, onNode: events.onNode } }),
    };
    if (events?.onStart !== undefined) {
      meta.creditsRemaining = await core.credits.remainingCredits(caller.account.id);
      events.onStart({ ...meta });
    }
    if (request.streamLists && operation.streamItems && input.limit === undefined) {
      const pages = operation.streamItems(input, context);
      meta.creditsRemaining = await core.credits.remainingCredits(caller.account.id);
      return { ok: true, status: operation.successStatus, data: undefined, pages, meta };
    }
    const keyedCaller = caller;
    const slotId = takenSlotId;
    // Handed to the task from here: it gives the slot back when the run ends.
    takenSlotId = undefined;
    // Executions hold reservations and provider calls open, and scans of long texts hold the
    // sanitiser's worker, so a key may have only so many of them in flight.
    const run = () =>
      slotId !== undefined
        ? concurrency.held(slotId, () => operation.run(input, context))
        : holdsInFlightSlot(operation)
          ? concurrency.run(keyedCaller.credential.id, () => operation.run(input, context))
          : operation.run(input, context);
    const { status, data } =
      operation.idempotencyKey && request.idempotencyKey !== undefined
        ? await runIdempotently(
            core,
            operation,
            caller,
            request.idempotencyKey,
            input,
            run,
            operation.successStatus,
            request.signal,
            runKind !== undefined ? { input: { ...input, respond_async: true }, conflict: QUEUED_CONFLICT } : undefined,
          )
        : { status: operation.successStatus, data: await run() };
    meta.creditsRemaining = await core.credits.remainingCredits(caller.account.id);
    return { ok: true, status, data, meta };
  } catch (err) {
    // A slot taken at admission whose run never started (its start failed) is given back here.
    if (takenSlotId !== undefined) await core.executions.concurrency.giveBack(takenSlotId);
    const error = toPorchError(err);
    if (error.code === 'INTERNAL_ERROR') {
      core.logger.error({ err, requestId: request.requestId, ...logFieldsOf(scope), operation: operation.name }, 'operation failed');
    }
    core.logStoreOutage(error, { requestId: request.requestId, ...logFieldsOf(scope), operation: operation.name });
    if (caller) await describeQuota(core, caller, meta);
    return { ok: false, error, meta };
  }
}
