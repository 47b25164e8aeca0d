/**
 * The one error table. The REST error handler, the MCP result mapper and the OpenAPI error
 * responses all read it, so a code's status and meaning are written down exactly once.
 */
import { StoreUnavailableError } from '../db/store.js';

export interface ErrorDefinition {
  /** HTTP status the REST door answers with. */
  readonly status: number;
  /** One line for documentation (OpenAPI, README, MCP tool descriptions). */
  readonly summary: string;
  /** The spec's alternate naming ("Set B"), emitted when PORCH_ERROR_CODES=b. */
  readonly setB?: string;
  /** What a caller should do next; MCP error results append it so an agent can act on it. */
  readonly hint: string;
  /** Set for codes only the web console answers (sign-in, its forms): the API and MCP never do, so their documents leave them out. */
  readonly consoleOnly?: true;
}

export const ERROR_TABLE = {
  VALIDATION_ERROR: {
    status: 400,
    summary: 'Malformed JSON, a missing or invalid field, or an invalid id',
    setB: 'INVALID_REQUEST',
    hint: 'Fix the request as the message says and send it again.',
  },
  MISSING_API_KEY: {
    status: 401,
    summary: 'No X-API-Key header was sent',
    setB: 'UNAUTHORIZED',
    hint: 'Send an API key (mdi_...) in the X-API-Key header.',
  },
  INVALID_API_KEY: {
    status: 401,
    summary: 'The API key is invalid, expired or revoked',
    setB: 'UNAUTHORIZED',
    hint: 'Do not retry; use a valid, unrevoked key.',
  },
  SIGN_IN_FAILED: {
    status: 401,
    summary: 'Console sign-in: the email or password is incorrect',
    hint: 'Check the email and password; an operator can send a reset link.',
    consoleOnly: true,
  },
  CSRF_TOKEN_INVALID: {
    status: 403,
    summary: 'Console: the form was not sent from a page of this console session (missing or wrong CSRF token)',
    hint: 'Reload the page and submit the form again.',
    consoleOnly: true,
  },
  LINK_INVALID: {
    status: 400,
    summary: 'Console: an invite or reset link that is unknown, expired or already used',
    hint: 'Ask the operator for a new link (porch account invite or reset-password).',
    consoleOnly: true,
  },
  API_EXPERT_ONLY: {
    status: 401,
    summary: 'The account is not on the Expert plan',
    hint: 'Do not retry; the API is available on the Expert plan only.',
  },
  INSUFFICIENT_CREDITS: {
    status: 402,
    summary: 'Not enough credits to start the execution',
    hint: 'Do not retry; add credits to the account first.',
  },
  BILLING_FAILED: {
    status: 402,
    summary: 'Credit deduction failed after execution; the result was withheld',
    hint: 'Check the balance (X-Credits-Remaining), then retry once.',
  },
  INSUFFICIENT_PERMISSIONS: {
    status: 403,
    summary: 'The key lacks a scope this operation requires',
    setB: 'INSUFFICIENT_SCOPE',
    hint: 'Use a key with one of the scopes named in the message.',
  },
  MODEL_ACCESS_DENIED: {
    status: 403,
    summary: "The requested model is not available on the account's plan or under its organisation's policy",
    hint: 'Choose another model or omit the model override.',
  },
  ACCESS_DENIED: {
    status: 403,
    summary: "The resource exists in the caller's organisation but is not theirs to use",
    hint: 'Do not retry with this key.',
  },
  QUOTA_EXCEEDED: {
    status: 403,
    summary: 'The write would take the account over its quota of items or bytes for that kind of resource',
    hint: 'Do not retry; delete items of that kind, or ask the operator to raise limits.quotas.',
  },
  RESOURCE_NOT_FOUND: {
    status: 404,
    summary: 'The resource does not exist or is not owned by the caller',
    hint: "List the resources (or the resource's versions) to find a valid id or version.",
  },
  NOT_FOUND: {
    status: 404,
    summary: 'No such route',
    hint: 'Check the path against the OpenAPI document at /openapi.json.',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    summary: 'The method is not allowed on this path',
    hint: 'Use one of the methods listed in the Allow header.',
  },
  IDEMPOTENCY_CONFLICT: {
    status: 409,
    summary: 'The Idempotency-Key was already used with a different request body',
    hint: 'Use a new Idempotency-Key for a different request.',
  },
  CONFLICT: {
    status: 409,
    summary: 'The request conflicts with the current state: a key already taken, a resource changed by concurrent writers, a run already finished',
    hint: 'Nothing was changed; the message says what conflicted and what to do instead.',
  },
  CONTENT_BLOCKED: {
    status: 422,
    summary: "The request or the model's answer holds content the organisation's guardrail blocks",
    hint: 'Remove or redact what the message names (rule ids and positions), or ask an organisation admin about the guardrail policy.',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    summary: 'The request body is larger than the limit',
    hint: 'Send a smaller body.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    summary: 'The request body is not application/json, or is compressed',
    hint: 'Send the body as plain UTF-8 JSON with Content-Type: application/json and no Content-Encoding.',
  },
  REQUEST_TIMEOUT: {
    status: 408,
    summary: 'The request (its headers, or its body) did not arrive within the time the server allows',
    hint: 'Send the whole request again, without pauses.',
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    summary: 'The request headers (with the URL) are larger than the server accepts',
    hint: 'Send fewer or smaller headers, or a shorter URL.',
  },
  RATE_LIMITED: {
    status: 429,
    summary: 'The per-minute request limit of the key is exceeded',
    setB: 'RATE_LIMIT_EXCEEDED',
    hint: 'Wait Retry-After seconds, then retry.',
  },
  DAILY_LIMIT_EXCEEDED: {
    status: 429,
    summary: 'The daily request limit of the key is exceeded',
    setB: 'RATE_LIMIT_EXCEEDED',
    hint: 'Wait until the limit resets (Retry-After seconds), then retry.',
  },
  INTERNAL_ERROR: {
    status: 500,
    summary: 'An internal error occurred',
    hint: 'Retry later; report the request id if it persists.',
  },
  AI_SERVICE_ERROR: {
    status: 500,
    summary: 'The upstream AI provider failed',
    hint: 'Retry with exponential backoff (1 s, 2 s, 4 s): at most 3 retries, 4 attempts in all.',
  },
  BYOK_KEY_INVALID: {
    status: 502,
    summary: "The caller's own provider key (BYOK) was rejected by the provider",
    hint: 'Replace the BYOK key; there is no fallback to the shared gateway.',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    summary: 'The service cannot answer right now (the database is unavailable)',
    hint: 'Retry later.',
  },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof ERROR_TABLE;

export const ERROR_CODES = Object.keys(ERROR_TABLE) as ErrorCode[];

/** The codes the API (REST and MCP) may answer: every code but the console's own. */
export const API_ERROR_CODES = ERROR_CODES.filter((code) => !(ERROR_TABLE[code] as ErrorDefinition).consoleOnly);

/** Safe, structured extras that may be shown to the caller. Never put secrets or internals here. */
export interface ErrorDetails {
  /** Seconds to wait before retrying (429). */
  retryAfterSeconds?: number;
  /** Methods allowed on the path (405). */
  allow?: readonly string[];
  /**
   * What to do next, where it differs from the code's hint in the table: one code covers unlike
   * situations (CONFLICT: an update made from an old version, a key already taken), and an agent
   * told the remedy of another would act on it. MCP error results append it instead of the table's.
   */
  hint?: string;
}

/**
 * The only error class of the domain. Its message is shown to callers, so it must be safe:
 * no stack traces, SQL, upstream bodies or key material. Put the underlying fault in `cause`,
 * which is logged but never sent.
 */
export class PorchError extends Error {
  override readonly name = 'PorchError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  get status(): number {
    return ERROR_TABLE[this.code].status;
  }
}

/**
 * Why a call was stopped from outside (its client went away, its run was cancelled, the process
 * is shutting down): the abort reason, which the error the call ends with names.
 */
export class CallStopped extends Error {
  override readonly name = 'CallStopped';
}

/** How many causes deep a CallStopped is looked for: a workflow hands it to its nodes wrapped in its own error. */
const MAX_STOP_CAUSE_DEPTH = 3;

/**
 * Whether `err` is a CallStopped or was caused by one: what it ended was stopped from outside
 * (its caller went away or cancelled it), and nothing failed.
 */
export function isCallStop(err: unknown): boolean {
  let cause: unknown = err;
  for (let depth = 0; depth <= MAX_STOP_CAUSE_DEPTH && cause instanceof Error; depth++) {
    if (cause instanceof CallStopped) return true;
    cause = cause.cause;
  }
  return false;
}

export function isPorchError(value: unknown): value is PorchError {
  return value instanceof PorchError;
}

export type ErrorCodeSet = 'a' | 'b';

/** The code as the deployment emits it: Set A by default, the spec's Set B names when configured. */
export function publicErrorCode(code: ErrorCode, codeSet: ErrorCodeSet): string {
  if (codeSet === 'b') {
    const definition: ErrorDefinition = ERROR_TABLE[code];
    return definition.setB ?? code;
  }
  return code;
}

/**
 * The code whose public name in `codeSet` is `name` (what publicErrorCode gave), for reading back
 * an error a view already renamed; undefined for a name of neither set. A Set B name several codes
 * share reads as the last of them in the table (`UNAUTHORIZED` as `INVALID_API_KEY`: what is
 * stored, a run or a replay, was made with a key, so never lacked one).
 */
export function errorCodeNamed(name: string, codeSet: ErrorCodeSet): ErrorCode | undefined {
  return ERROR_CODES.findLast((code) => publicErrorCode(code, codeSet) === name);
}

/**
 * Why the store could not answer, in its own words (a locked SQLite file, a full disk, PostgreSQL
 * out of reach; never a URL), for the operator's log: the client hears only that it was
 * unavailable. Undefined for any other error.
 */
export function storeOutageOf(error: PorchError): string | undefined {
  return error.cause instanceof StoreUnavailableError ? error.cause.message : undefined;
}

/** Wraps anything thrown into a PorchError, hiding what is not safe to show. */
export function toPorchError(err: unknown): PorchError {
  if (err instanceof PorchError) return err;
  if (err instanceof StoreUnavailableError) {
    return new PorchError(
      'SERVICE_UNAVAILABLE',
      'The database is unavailable right now; retry shortly.',
      { retryAfterSeconds: err.retryAfterSeconds },
      { cause: err },
    );
  }
  return new PorchError('INTERNAL_ERROR', 'An internal error occurred.', {}, { cause: err });
}
