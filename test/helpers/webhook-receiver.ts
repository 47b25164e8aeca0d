/**
 * A webhook receiver on 127.0.0.1 for tests: a real HTTP server that records every request and
 * answers as the test tells it to (a status, a redirect, a hang, a closed socket). Tests wait on
 * `nextRequest()` instead of sleeping, and verify signatures with the `standardwebhooks` library
 * as a real receiver would. With `tls: 'self-signed'` it serves https with a certificate no client
 * trusts, as a receiver with a broken certificate does.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
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

/**
 * A self-signed certificate for localhost and 127.0.0.1 (P-256, valid until 2126), made for these
 * tests only: no client trusts it, which is what a test of a refused certificate needs. Once it
 * expires it is refused as expired instead, which those tests accept alike.
 */
const SELF_SIGNED_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgb+MOgbBNQDtGfr0n
plh+pCbA4vAiC53Y3KHybIebSOuhRANCAAS1q840gVC+1MvR3j5/HcZ7dMCsroQ7
jiR3k0Dn2UJhZOiQQyGTT5EDJ47Qr7HyvYSpajY29+LbHoxgqgFYZ5zY
-----END PRIVATE KEY-----
`;
const SELF_SIGNED_CERTIFICATE = `-----BEGIN CERTIFICATE-----
MIIBnDCCAUGgAwIBAgIUWLifGXQ6s7OvH0t3PocqT7qAsTgwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEzMDAwNTk0NFoYDzIxMjYxMTA2
MDA1OTQ0WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAS1q840gVC+1MvR3j5/HcZ7dMCsroQ7jiR3k0Dn2UJhZOiQQyGTT5ED
J47Qr7HyvYSpajY29+LbHoxgqgFYZ5zYo28wbTAdBgNVHQ4EFgQUd/0KUhKWI9AR
txP9hrFYGL/fWMcwHwYDVR0jBBgwFoAUd/0KUhKWI9ARtxP9hrFYGL/fWMcwDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
zj0EAwIDSQAwRgIhAI+5ZC2St3SyBT7i13E6oMNlyDscLOIQTK48hqtcuSjGAiEA
9YYK0fivze/KTMtU2x6gt7W4owdtO2WX0LTs2wt33d0=
-----END CERTIFICATE-----
`;

export async function startWebhookReceiver(options: { tls?: 'self-signed' } = {}): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  let taken = 0;
  let behaviours: ReceiverBehaviour[] = [OK];
  let waiting: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();

  const handle = (request: IncomingMessage, response: ServerResponse) => {
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
  };
  const server: Server =
    options.tls === 'self-signed' ? createTlsServer({ key: SELF_SIGNED_KEY, cert: SELF_SIGNED_CERTIFICATE }, handle) : createServer(handle);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    url: `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
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
