/**
 * Two small HTTP servers that put Porch where the MCP conformance suite can reach it. The suite
 * (0.1.16) connects with a bare Streamable HTTP client: it cannot send a header and cannot start
 * a stdio server. So:
 * - `startKeyRelay` forwards every request to Porch's HTTP endpoint with `X-API-Key` added, as an
 *   MCP host configured with a header would send it;
 * - `startStdioRelay` starts `porch mcp` and carries each HTTP message to it as a line on stdin
 *   and its answer back as the HTTP response (the role of a stdio-to-HTTP gateway).
 * Both listen on 127.0.0.1 on a free port and are closed by the caller.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import { createInterface } from 'node:readline';

export interface Relay {
  /** The MCP endpoint to give the suite, e.g. http://127.0.0.1:41234/mcp. */
  url: string;
  close(): Promise<void>;
}

/** What a relay lets through: the suite's requests are small JSON-RPC messages. */
const MAX_BODY_BYTES = 1024 * 1024;

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('The relay has no TCP address');
  return address.port;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy(new Error('request body over the relay limit'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Forwards to `targetMcpUrl` with `X-API-Key: key`. The relay is meant to be invisible: a Host or
 * Origin naming the relay itself is rewritten to name the target, so Porch judges the request as
 * if the client had come straight to it; any other Host or Origin (a DNS-rebinding probe such as
 * `evil.example.com`) passes unchanged for Porch to refuse.
 */
export async function startKeyRelay(targetMcpUrl: string, key: string): Promise<Relay> {
  const target = new URL(targetMcpUrl);
  let ownAuthority = '';
  const server = createServer((req, res) => {
    const headers: IncomingHttpHeaders = { ...req.headers, 'x-api-key': key };
    if (headers.host === ownAuthority) headers.host = target.host;
    if (headers.origin === `http://${ownAuthority}`) headers.origin = target.origin;
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: target.pathname + (new URL(req.url ?? '/', 'http://relay').search || ''), headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`key relay: ${err.message}`);
    });
    req.pipe(upstream);
  });
  const port = await listen(server);
  ownAuthority = `127.0.0.1:${port}`;
  return { url: `http://${ownAuthority}/mcp`, close: () => closeServer(server) };
}

export interface StdioRelayOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** How long one request may wait for its answer before the relay gives up (504). */
  requestTimeoutMs: number;
}

type JsonRpcId = string | number;

interface PendingRequest {
  clientId: JsonRpcId;
  answer(message: Record<string, unknown>): void;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * One `porch mcp` process serves every client of the relay, one after the other, as one stdio
 * connection would serve a host that reconnects: each client's `initialize` is passed through, and
 * request ids are renumbered on the way in (every client starts at id 0) and restored on the way
 * out. One process instead of one per client because `porch mcp` takes seconds to start under tsx
 * and the suite opens a client per scenario. Messages the server sends on its own (notifications,
 * requests to the client) are dropped: the relay answers each POST with plain JSON.
 */
export async function startStdioRelay(options: StdioRelayOptions): Promise<Relay & { stderr(): string }> {
  const child: ChildProcessWithoutNullStreams = spawn(options.command, [...options.args], { cwd: options.cwd, env: options.env });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-8000);
  });
  child.stdin.on('error', () => undefined);
  const pending = new Map<string, PendingRequest>();
  let nextId = 0;
  let exited: string | undefined;

  createInterface({ input: child.stdout }).on('line', (line) => {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    const id = isRecord(message) && !('method' in message) ? message.id : undefined;
    const waiting = typeof id === 'string' ? pending.get(id) : undefined;
    if (!isRecord(message) || typeof id !== 'string' || !waiting) return;
    pending.delete(id);
    waiting.answer({ ...message, id: waiting.clientId });
  });
  child.on('exit', (code, signal) => {
    exited = `porch mcp exited (${signal ?? `status ${code}`}); its stderr ends with: ${stderr.slice(-1000)}`;
    for (const waiting of pending.values()) waiting.answer({ jsonrpc: '2.0', id: waiting.clientId, error: { code: -32603, message: exited } });
    pending.clear();
  });

  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' });
      res.end();
      return;
    }
    readBody(req).then(
      (body) => {
        let message: unknown;
        try {
          message = JSON.parse(body.toString('utf8'));
        } catch {
          sendJson(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
          return;
        }
        if (!isRecord(message)) {
          sendJson(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'The relay passes single messages only' } });
          return;
        }
        const clientId = message.id;
        if (typeof message.method !== 'string' || (typeof clientId !== 'string' && typeof clientId !== 'number')) {
          // A notification, or the client's answer to a server request (Porch sends none): no reply expected.
          if (exited === undefined) child.stdin.write(`${JSON.stringify(message)}\n`);
          res.writeHead(202);
          res.end();
          return;
        }
        if (exited !== undefined) {
          sendJson(res, 502, { jsonrpc: '2.0', id: clientId, error: { code: -32603, message: exited } });
          return;
        }
        nextId += 1;
        const relayId = `relay-${nextId}`;
        const timer = setTimeout(() => {
          pending.delete(relayId);
          sendJson(res, 504, {
            jsonrpc: '2.0',
            id: clientId,
            error: { code: -32603, message: `porch mcp did not answer ${message.method} within ${options.requestTimeoutMs} ms` },
          });
        }, options.requestTimeoutMs);
        pending.set(relayId, {
          clientId,
          answer(answer) {
            clearTimeout(timer);
            sendJson(res, 200, answer);
          },
        });
        child.stdin.write(`${JSON.stringify({ ...message, id: relayId })}\n`);
      },
      () => sendJson(res, 413, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Request body too large for the relay' } }),
    );
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stderr: () => stderr,
    async close() {
      await closeServer(server);
      if (exited !== undefined) return;
      // `porch mcp` exits when its stdin closes; a kill is only the fallback.
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin.end();
      const fallback = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(fallback);
    },
  };
}
