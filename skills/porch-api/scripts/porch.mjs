#!/usr/bin/env node
// Porch REST client for agents without MCP. Dependency-free; Node.js 20 or later.
//
//   node porch.mjs <METHOD> <path> [json-body | -]
//
//   PORCH_API_KEY  the API key (mdi_...); needed for every path except /health
//   PORCH_URL      the Porch site, default http://127.0.0.1:3000 (the API is under /api/public/v1)
//
// Prints the response's `data` as JSON (the text itself for Markdown answers, nothing for 204).
// On an API error prints "CODE (status): message [request id]" on stderr and exits 1, as it does
// with "UNREACHABLE: ..." when the server cannot be reached; a usage error exits 2.
// It follows the API's client rules: 429 waits Retry-After seconds (60 when absent) and retries,
// unless the wait is over a minute (a daily limit: the error is printed instead); 500
// AI_SERVICE_ERROR retries after 1 s, 2 s, 4 s; 402 BILLING_FAILED retries once if credits
// remain; 401, 402 INSUFFICIENT_CREDITS and other errors never retry.
// POST requests carry an Idempotency-Key, so a retried execution never runs or charges twice.
// The same file is also a module: import { porchRequest } from './porch.mjs'.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export const API_PATH = '/api/public/v1';
export const DEFAULT_URL = 'http://127.0.0.1:3000';
/** The API's client rules: at most 3 retry attempts after the first request. */
export const MAX_RETRIES = 3;
/** Retry-After is absent: wait this long (the API's rule: 60 seconds). */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;
/** The longest wait before a retry: a 429 asking for longer (a daily limit, until UTC midnight) fails at once. */
export const MAX_RETRY_WAIT_SECONDS = 60;
/** Waits before each retry of 500 AI_SERVICE_ERROR (the API's rule: 1 s, 2 s, 4 s). */
export const AI_ERROR_BACKOFF_SECONDS = [1, 2, 4];

export class PorchApiError extends Error {
  constructor(status, code, message, requestId, retryAfterSeconds) {
    super(message);
    this.name = 'PorchApiError';
    this.status = status;
    this.code = code;
    this.requestId = requestId;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function retryDelaySeconds(error, retriesDone, headers, billingRetried) {
  if (error.status === 429) {
    const header = headers.get('retry-after');
    const seconds = header === null || header.trim() === '' ? Number.NaN : Number(header);
    const wait = Number.isFinite(seconds) && seconds >= 0 ? seconds : (error.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS);
    return wait <= MAX_RETRY_WAIT_SECONDS ? wait : null;
  }
  if (error.status === 500 && error.code === 'AI_SERVICE_ERROR') return AI_ERROR_BACKOFF_SECONDS[retriesDone] ?? null;
  if (error.code === 'BILLING_FAILED' && !billingRetried) {
    // "Check the balance, then retry once": the balance arrives in X-Credits-Remaining.
    const credits = Number(headers.get('x-credits-remaining') ?? Number.NaN);
    return Number.isFinite(credits) && credits > 0 ? 0 : null;
  }
  return null;
}

/**
 * One API call with the retry rules. Options: body, apiKey, baseUrl, idempotencyKey, and for
 * tests and embedding: sleep(ms) (default: a timer), onRetry({ error, delaySeconds, attempt }).
 * Resolves { status, data, headers, attempts }; rejects with PorchApiError.
 */
export async function porchRequest(method, path, options = {}) {
  const {
    body,
    apiKey = process.env.PORCH_API_KEY,
    baseUrl = process.env.PORCH_URL || DEFAULT_URL,
    idempotencyKey = method.toUpperCase() === 'POST' ? randomUUID() : undefined,
    sleep = wait,
    onRetry = () => {},
  } = options;
  const url = `${baseUrl.replace(/\/+$/, '')}${API_PATH}${path.startsWith('/') ? path : `/${path}`}`;
  const headers = { accept: 'application/json, text/markdown' };
  if (apiKey) headers['x-api-key'] = apiKey;
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;

  let billingRetried = false;
  for (let retriesDone = 0; ; retriesDone += 1) {
    let response;
    let text;
    try {
      response = await fetch(url, { method: method.toUpperCase(), headers, body: body === undefined ? undefined : JSON.stringify(body) });
      text = await response.text();
    } catch (err) {
      // No answer at all (refused, unknown host, connection cut): say so instead of fetch's bare "fetch failed".
      // fetch's own messages may quote the URL, with any user name and password in it: those are cut.
      const reason = String(err?.cause?.code ?? err?.cause?.message ?? err?.message ?? 'no answer').replace(/\/\/[^/@\s]*@/g, '//');
      throw new PorchApiError(undefined, 'UNREACHABLE', `cannot reach ${withoutCredentials(baseUrl)}: ${reason}`);
    }
    const type = response.headers.get('content-type') ?? '';
    if (response.ok) {
      const data = response.status === 204 ? null : type.includes('json') ? JSON.parse(text).data : text;
      return { status: response.status, data, headers: response.headers, attempts: retriesDone + 1 };
    }
    let envelope;
    try {
      envelope = JSON.parse(text).error;
    } catch {
      envelope = undefined;
    }
    const error = new PorchApiError(
      response.status,
      envelope?.code ?? `HTTP_${response.status}`,
      envelope?.message ?? (text.slice(0, 200) || response.statusText),
      envelope?.request_id ?? response.headers.get('x-request-id') ?? undefined,
      envelope?.retry_after,
    );
    const delaySeconds = retriesDone < MAX_RETRIES ? retryDelaySeconds(error, retriesDone, response.headers, billingRetried) : null;
    if (delaySeconds === null) throw error;
    if (error.code === 'BILLING_FAILED') billingRetried = true;
    onRetry({ error, delaySeconds, attempt: retriesDone + 2 });
    await sleep(delaySeconds * 1000);
  }
}

/** `url` without a user name or password it may carry, so a message never shows them. */
function withoutCredentials(url) {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.href.replace(/\/$/, '');
  } catch {
    return '(PORCH_URL, not a valid URL)';
  }
}

/** "CODE (status): message [request id]", or "UNREACHABLE: message" when no answer came. */
export function describeError(err) {
  const status = err.status === undefined ? '' : ` (${err.status})`;
  return `${err.code}${status}: ${err.message}${err.requestId ? ` [request ${err.requestId}]` : ''}`;
}

function usage(message) {
  process.stderr.write(`porch.mjs: ${message}\nusage: node porch.mjs <GET|POST|PATCH|DELETE> <path> [json-body | -]\n`);
  process.exit(2);
}

async function main(argv) {
  const [method, path, bodyArgument] = argv;
  if (!method || !path) usage('a method and a path are required');
  if (!/^(GET|POST|PATCH|DELETE)$/i.test(method)) usage(`unknown method ${method}`);
  let body;
  if (bodyArgument !== undefined) {
    const text = bodyArgument === '-' ? readFileSync(0, 'utf8') : bodyArgument;
    try {
      body = JSON.parse(text);
    } catch {
      usage('the body is not valid JSON');
    }
  }
  if (!process.env.PORCH_API_KEY && !/^\/?health\/?$/.test(path)) usage('set PORCH_API_KEY to your API key (mdi_...)');
  try {
    const result = await porchRequest(method, path, {
      body,
      onRetry: ({ error, delaySeconds, attempt }) =>
        process.stderr.write(`porch.mjs: ${error.code} (${error.status}), retrying in ${delaySeconds} s (request ${attempt} of ${MAX_RETRIES + 1})\n`),
    });
    if (result.data !== null) process.stdout.write(typeof result.data === 'string' ? result.data : `${JSON.stringify(result.data, null, 2)}\n`);
  } catch (err) {
    if (!(err instanceof PorchApiError)) throw err;
    process.stderr.write(`${describeError(err)}\n`);
    process.exit(1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
