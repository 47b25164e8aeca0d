import type { RequestHandler } from 'express';

/**
 * A handler built on its first request; every request after that goes straight to it. For parts
 * of the server a process may never use (the MCP SDK, the discovery documents), so start-up does
 * not pay for loading them. A load that fails answers that request with the error (500) and is
 * tried again on the next.
 */
export function lazyHandler(load: () => Promise<RequestHandler>): RequestHandler {
  let loading: Promise<RequestHandler> | undefined;
  return (req, res, next) => {
    loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    loading.then((handler) => handler(req, res, next), next);
  };
}
