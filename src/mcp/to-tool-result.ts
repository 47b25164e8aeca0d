/**
 * The one place the MCP door turns outcomes into what clients read: tool results (success and
 * `isError`), JSON-RPC errors for prompts and resources, and the HTTP refusals of the MCP
 * endpoint. Every text an agent sees for a PorchError starts with the code and ends with the
 * error table's hint, so the agent knows what to do next. Nothing internal is ever included.
 */
import type { CallToolResult, RequestId } from '@modelcontextprotocol/server';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { bearerChallenge } from '../core/access/oauth.js';
import { ERROR_TABLE, publicErrorCode, type ErrorCodeSet, type PorchError } from '../core/errors.js';
import type { InvocationMeta } from '../operations/invoke.js';

/**
 * Refusals (no key, bad key, missing scope, rate limit, credits) have no JSON-RPC code of their
 * own; -32000 opens the range JSON-RPC leaves to servers, and `data.code` says which refusal.
 */
export const REFUSAL_RPC_CODE = -32000;

/**
 * `_meta` keys Porch adds to results: the MCP counterparts of the REST headers X-RateLimit-*
 * (the minute window, and the day's as daily_limit / daily_remaining) and X-Credits-Remaining,
 * and the error code for programs that branch on it.
 */
export const META_RATE_LIMIT = 'porch/rate-limit';
export const META_CREDITS_REMAINING = 'porch/credits-remaining';
export const META_ERROR = 'porch/error';

/**
 * Hints for the refusals whose error-table hint names REST headers: an MCP client sends its key
 * differently (and a stdio one through the environment) and reads limits and credits from the
 * result's `_meta` and the error's details.
 */
const MCP_HINTS: Partial<Record<PorchError['code'], string>> = {
  MISSING_API_KEY: 'Send an API key (mdi_...): the X-API-Key or Authorization: Bearer header over HTTP, PORCH_API_KEY for stdio.',
  BILLING_FAILED: `Check the balance (${META_CREDITS_REMAINING} in _meta), then retry once.`,
  RATE_LIMITED: 'Wait the retry_after seconds the error reports, then retry.',
  DAILY_LIMIT_EXCEEDED: 'Wait until the limit resets (the retry_after seconds the error reports), then retry.',
  // Its messages say themselves whether a retry helps (a provider's 400 will not), and how.
  AI_SERVICE_ERROR: '',
  // Its messages say what to do (use a new key, or wait for the first request), for REST, whose
  // envelope has no hint: the table's would say it again (regression: "use a new key for a new
  // request. Use a new Idempotency-Key for a different request.").
  IDEMPOTENCY_CONFLICT: '',
};

/**
 * `CODE: message Hint` — the code first, so agents and scripts can branch on it. The hint is the
 * error's own when it has one (regression: a version conflict was told to "choose another key",
 * the remedy of a key already taken), else the door's or the table's. A message that
 * already says when to retry ("...; retry shortly", "Wait for one to finish, then retry") gets no
 * hint saying it again (regression: "retry shortly. Retry later.").
 */
export function errorText(error: PorchError, codeSet: ErrorCodeSet): string {
  const message = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
  const hint = /\bretry\b/i.test(message) ? '' : (error.details.hint ?? MCP_HINTS[error.code] ?? ERROR_TABLE[error.code].hint);
  return `${publicErrorCode(error.code, codeSet)}: ${message}${hint === '' ? '' : ` ${hint}`}`;
}

function metaOf(meta: InvocationMeta | null): Record<string, unknown> {
  if (!meta) return {};
  return {
    ...(meta.rateLimit
      ? {
          [META_RATE_LIMIT]: {
            limit: meta.rateLimit.limit,
            remaining: meta.rateLimit.remaining,
            reset: meta.rateLimit.resetSeconds,
            daily_limit: meta.rateLimit.dailyLimit,
            daily_remaining: meta.rateLimit.dailyRemaining,
          },
        }
      : {}),
    ...(meta.creditsRemaining === null ? {} : { [META_CREDITS_REMAINING]: meta.creditsRemaining }),
  };
}

function errorDetails(error: PorchError, codeSet: ErrorCodeSet): Record<string, unknown> {
  return {
    code: publicErrorCode(error.code, codeSet),
    ...(error.details.retryAfterSeconds === undefined ? {} : { retry_after: error.details.retryAfterSeconds }),
  };
}

/** A domain error as a tool result: `isError`, so the model sees it and can correct itself. */
export function toolErrorResult(error: PorchError, codeSet: ErrorCodeSet, meta: InvocationMeta | null = null): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: errorText(error, codeSet) }],
    _meta: { ...metaOf(meta), [META_ERROR]: errorDetails(error, codeSet) },
  };
}

/**
 * A structured answer: `structuredContent` for programs, the same JSON as text for models. The
 * text is compact: indentation is whitespace a model pays for in tokens (a 20-card list is 3,129
 * tokens indented, 2,382 compact) and the server in serialising it.
 */
export function toolDataResult(data: Record<string, unknown>, meta: InvocationMeta | null = null): CallToolResult {
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(data) }];
  const extra = metaOf(meta);
  // Two literals, not a copy with `_meta` added: on Node 20 that gives every result a map of its
  // own, and the SDK reads every field of it (bench/RESULTS-NOTES.md, "Objects of one shape").
  return Object.keys(extra).length > 0 ? { content, structuredContent: data, _meta: extra } : { content, structuredContent: data };
}

/** A text answer: a document the operation exports, or a short sentence for an answer without data (REST's 204). */
export function toolTextResult(text: string, meta: InvocationMeta | null = null): CallToolResult {
  const extra = metaOf(meta);
  return { content: [{ type: 'text', text }], ...(Object.keys(extra).length > 0 ? { _meta: extra } : {}) };
}

/**
 * A JSON-RPC error for prompts/* and resources/* requests, which have no `isError` result.
 * The SDK sends `code`, `message` and `data` of whatever a handler throws; McpError would prefix
 * the message with its own "MCP error -32602:", so this error keeps the message exactly as written.
 */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';

  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/**
 * The JSON-RPC error of a refusal. A missing resource (a card another account owns reads the same)
 * is -32602 Invalid params, as the current MCP revisions define "resource not found" (the SDK
 * sends the older -32002 as -32602 on every revision); `data.code` names it RESOURCE_NOT_FOUND.
 */
export function toProtocolError(error: PorchError, codeSet: ErrorCodeSet): ProtocolError {
  const status = ERROR_TABLE[error.code].status;
  // A 503 (the database out of reach) is no fault of the request or the server's code: like a
  // rate limit, a refusal to retry after `retry_after`, not -32603, which clients take as final.
  const code =
    status === 400 || status === 404 ? ProtocolErrorCode.InvalidParams : status >= 500 && status !== 503 ? ProtocolErrorCode.InternalError : REFUSAL_RPC_CODE;
  return new ProtocolError(code, errorText(error, codeSet), errorDetails(error, codeSet));
}

export interface HttpRefusal {
  status: number;
  headers: Record<string, string>;
  body: { jsonrpc: '2.0'; error: { code: number; message: string; data?: Record<string, unknown> }; id: RequestId | null };
}

export interface RefusalOptions {
  id: RequestId | null;
  /** Whether the request carried a key or token (one that does not work) rather than none. */
  tokenSent: boolean;
  /** `{site_url}`: the 401's challenge points at the MCP endpoint's protected-resource metadata there. */
  siteUrl: string;
  /** The scopes that would grant what was asked, for the host's authorization request (and, on a 403, its step-up). */
  scopes?: readonly string[];
}

/**
 * A refusal the MCP endpoint answers before MCP starts (a key that does not work, a malformed
 * Authorization header, a keyed request without a key, an OAuth token without the scope of the
 * tool it calls): the status of the error table, on 401 a Bearer challenge naming the
 * protected-resource metadata (how an MCP host learns to sign the user in with OAuth, RFC 9728
 * §5.1), on a 403 for missing scopes the `insufficient_scope` challenge naming them (how it asks
 * its user for more, RFC 6750 §3.1), and a JSON-RPC error body, so an MCP client shows the Porch
 * error code instead of a REST envelope it cannot read.
 */
export function httpRefusal(error: PorchError, codeSet: ErrorCodeSet, options: RefusalOptions): HttpRefusal {
  const status = ERROR_TABLE[error.code].status;
  const { code, message, data } = toProtocolError(error, codeSet);
  const scopes = options.scopes === undefined ? {} : { scopes: options.scopes };
  const challenge = (): string | undefined => {
    if (status === 401) {
      return bearerChallenge({
        siteUrl: options.siteUrl,
        ...(options.tokenSent ? { error: 'invalid_token' as const, errorDescription: error.message } : {}),
        ...scopes,
      });
    }
    if (error.code === 'INSUFFICIENT_PERMISSIONS' && options.scopes !== undefined) {
      return bearerChallenge({ siteUrl: options.siteUrl, error: 'insufficient_scope', errorDescription: error.message, ...scopes });
    }
    return undefined;
  };
  const wwwAuthenticate = challenge();
  const retryAfter = error.details.retryAfterSeconds;
  return {
    status,
    headers: {
      ...(wwwAuthenticate === undefined ? {} : { 'WWW-Authenticate': wwwAuthenticate }),
      // As the REST door sends it with a 429 or a 503 (regression: missing on the MCP endpoint's 503).
      ...(retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) }),
    },
    body: { jsonrpc: '2.0', error: { code, message, ...(data ? { data } : {}) }, id: options.id },
  };
}
