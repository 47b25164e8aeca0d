import { Router, type Request, type Response } from 'express';
import type { Core } from '../core/core.js';
import type { ErrorCodeSet } from '../core/errors.js';
import { invokeOperation } from '../operations/invoke.js';
import type { Operation } from '../operations/operation.js';
import { sendError, sendSuccess, setMetaHeaders } from './envelope.js';
import { DEFAULT_BODY_LIMIT_BYTES, jsonBody } from './middleware.js';

/** `/context-cards/{id}` → `/context-cards/:id` (Express route syntax). */
export function toExpressPath(path: string): string {
  return path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
}

/** The key from X-API-Key, or from `Authorization: Bearer` (accepted for MCP-style clients). */
export function apiKeyFrom(req: Request): string | undefined {
  const header = req.headers['x-api-key'];
  if (typeof header === 'string') return header;
  const authorization = req.headers.authorization;
  if (authorization?.toLowerCase().startsWith('bearer ')) return authorization.slice('bearer '.length);
  return undefined;
}

function headerValue(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** A document export (responseType 'markdown'): the output string itself, not the JSON envelope. */
function sendMarkdown(res: Response, status: number, data: unknown): void {
  res
    .status(status)
    .type('text/markdown; charset=utf-8')
    .send(typeof data === 'string' ? data : String(data));
}

/** One route per operation it is given (the app passes those exposed on `rest`), all through the shared invocation path; handlers only translate. */
export function mountOperations(
  core: Core,
  operations: readonly Operation[],
  codeSet: ErrorCodeSet,
  bodyLimitBytes: number = DEFAULT_BODY_LIMIT_BYTES,
): Router {
  const router = Router();
  const parseBody = jsonBody(bodyLimitBytes);
  for (const operation of operations) {
    const handler = async (req: Request, res: Response) => {
      const abort = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) abort.abort();
      });
      const result = await invokeOperation(core, operation, {
        credentials: { apiKey: apiKeyFrom(req), actingAccountId: headerValue(req, 'x-porch-account') },
        params: req.params,
        query: req.query,
        body: req.body,
        ...(req.bodyError ? { bodyError: req.bodyError } : {}),
        requestId: String(res.locals.requestId),
        idempotencyKey: headerValue(req, 'idempotency-key'),
        signal: abort.signal,
        pathStyle: 'located',
      });
      setMetaHeaders(res, result.meta);
      if (result.ok && operation.responseType === 'markdown') sendMarkdown(res, result.status, result.data);
      else if (result.ok) sendSuccess(res, result.status, result.data);
      else sendError(res, result.error, codeSet);
    };
    router[operation.method === 'GET' ? 'get' : operation.method === 'POST' ? 'post' : operation.method === 'PATCH' ? 'patch' : 'delete'](
      toExpressPath(operation.path),
      // Only operations that take a body read one (regression: a GET with a body, or a body sent
      // to `/workflows//execute`, was answered 415 before routing instead of being ignored or 404).
      ...(operation.body ? [parseBody] : []),
      handler,
    );
  }
  return router;
}
