/**
 * A webhook receiver on 127.0.0.1 for tests: a real HTTP server that records every request and
 * answers as the test tells it to (a status, a redirect, a hang, a closed socket). Tests wait on
 * `nextRequest()` instead of sleeping, and verify signatures with the `standardwebhooks` library
 * as a real receiver would.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

export type ReceiverBehaviour =
  | { kind: 'status'; status: number }
  | { kind: 'redirect'; location: string }
  /** Reads the request and never answers. */
  | { kind: 'hang' }
  /** Destroys the socket without answering. */
  | { kind: 'close' };

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  url: string;
  /** Every request received, in order. */
  received: ReceivedRequest[];
  /** How the next requests are answered: the first behaviour for the first request, and so on; the last one repeats. */
  respondWith(...behaviours: ReceiverBehaviour[]): void;
  /** Resolves with the next request received (or one already received and not yet taken). */
  nextRequest(): Promise<ReceivedRequest>;
  close(): Promise<void>;
}

const OK: ReceiverBehaviour = { kind: 'status', status: 204 };

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  let taken = 0;
  let behaviours: ReceiverBehaviour[] = [OK];
  let waiting: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '/', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const behaviour = behaviours.length > 1 ? (behaviours.shift() ?? OK) : (behaviours[0] ?? OK);
      for (const wake of waiting) wake();
      waiting = [];
      if (behaviour.kind === 'status') response.writeHead(behaviour.status).end();
      else if (behaviour.kind === 'redirect') response.writeHead(302, { location: behaviour.location }).end();
      else if (behaviour.kind === 'hang') hanging.add(response);
      else request.socket.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    url: `http://127.0.0.1:${port}`,
    received,
    respondWith(...next) {
      behaviours = next.length > 0 ? next : [OK];
    },
    async nextRequest() {
      while (received.length <= taken) await new Promise<void>((resolve) => waiting.push(resolve));
      const request = received[taken];
      taken += 1;
      if (!request) throw new Error('no request');
      return request;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Verifies a request as a receiver does, with the `standardwebhooks` library: the signature over
 * id, timestamp and body, and the timestamp within the library's tolerance of `now` (the
 * library reads the system clock, so the check runs at the time the test's clock says).
 */
export function verifyReceived(request: ReceivedRequest, secret: string): unknown {
  const headers: Record<string, string> = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return new Webhook(secret).verify(request.body, headers);
}
