/**
 * Two small HTTP servers that put Porch where the MCP conformance suite can reach it. The suite
 * (0.1.16 and 0.2.0-alpha) connects with a bare Streamable HTTP client: it cannot send a header and cannot start
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

/** The revisions a client opens with the `initialize` handshake; any later one opens with a per-request envelope. */
const HANDSHAKE_REVISIONS = new Set(['2024-10-07', '2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);

type Era = 'handshake' | 'per-request';

/**
 * Which `porch mcp` a message belongs to. Over stdio the protocol era is the connection's, fixed
 * by its opening message, so one process cannot serve a 2025 client after a 2026-07-28 one (or
 * the other way round): the relay keeps one process per era, as a host keeps one process per
 * server connection. `initialize` goes to the handshake process, as a new connection opening with
 * it would. Any other message goes to the 2026-07-28 process when its `MCP-Protocol-Version`
 * header names a revision without the handshake (the suite's probes of unknown revisions
 * included), or when it carries the per-request envelope's protocol version, or is
 * `server/discover`; everything else (the 2025 clients after their `initialize`) to the other.
 */
function eraOf(message: Record<string, unknown>, headers: IncomingHttpHeaders): Era {
  // Whatever its header says: an `initialize` opening the 2026-07-28 process would bind it to the handshake era.
  if (message.method === 'initialize') return 'handshake';
  const header = headers['mcp-protocol-version'];
  if (typeof header === 'string' && header !== '') return HANDSHAKE_REVISIONS.has(header) ? 'handshake' : 'per-request';
  const meta = isRecord(message.params) ? message.params._meta : undefined;
  if (message.method === 'server/discover' || (isRecord(meta) && 'io.modelcontextprotocol/protocolVersion' in meta)) return 'per-request';
  return 'handshake';
}

function openingRequest(method: string): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    method,
    params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
  };
}

interface PorchProcess {
  /** Sends a request and resolves with its answer (under the client's own id). */
  request(message: Record<string, unknown>, clientId: JsonRpcId): Promise<Record<string, unknown>>;
  /** Sends a notification or an answer to a server request; nothing comes back. */
  notify(message: Record<string, unknown>): void;
  exited(): string | undefined;
  close(): Promise<void>;
}

function startPorchProcess(options: StdioRelayOptions, log: (chunk: string) => void): PorchProcess {
  const child: ChildProcessWithoutNullStreams = spawn(options.command, [...options.args], { cwd: options.cwd, env: options.env });
  child.stderr.on('data', (chunk: Buffer) => log(chunk.toString('utf8')));
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
    exited = `porch mcp exited (${signal ?? `status ${code}`})`;
    for (const waiting of pending.values()) waiting.answer({ jsonrpc: '2.0', id: waiting.clientId, error: { code: -32603, message: exited } });
    pending.clear();
  });

  return {
    request(message, clientId) {
      if (exited !== undefined) return Promise.resolve({ jsonrpc: '2.0', id: clientId, error: { code: -32603, message: exited } });
      nextId += 1;
      const relayId = `relay-${nextId}`;
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          pending.delete(relayId);
          resolve({
            jsonrpc: '2.0',
            id: clientId,
            error: { code: -32603, message: `porch mcp did not answer ${String(message.method)} within ${options.requestTimeoutMs} ms` },
          });
        }, options.requestTimeoutMs);
        pending.set(relayId, {
          clientId,
          answer(answer) {
            clearTimeout(timer);
            resolve(answer);
          },
        });
        child.stdin.write(`${JSON.stringify({ ...message, id: relayId })}\n`);
      });
    },
    notify(message) {
      if (exited === undefined) child.stdin.write(`${JSON.stringify(message)}\n`);
    },
    exited: () => exited,
    async close() {
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

/**
 * `porch mcp` serves every client of the relay, one after the other, as one stdio connection
 * would serve a host that reconnects: one process per protocol era (see `eraOf`), started at its
 * era's first message; each client's `initialize` is passed through, and request ids are
 * renumbered on the way in (every client starts at id 0) and restored on the way out. One process
 * per era instead of one per client because `porch mcp` takes seconds to start under tsx and the
 * suite opens a client per scenario. Messages the server sends on its own (notifications,
 * requests to the client) are dropped: the relay answers each POST with plain JSON. HTTP headers
 * do not reach Porch (stdio has none); the relay reads only `MCP-Protocol-Version`, to route.
 */
export async function startStdioRelay(options: StdioRelayOptions): Promise<Relay & { stderr(): string }> {
  let stderr = '';
  const log = (chunk: string) => {
    stderr = (stderr + chunk).slice(-8000);
  };
  const processes = new Map<Era, Promise<PorchProcess>>();
  const processFor = (era: Era): Promise<PorchProcess> => {
    let started = processes.get(era);
    if (started === undefined) {
      const porch = startPorchProcess(options, log);
      // The SDK fixes a stdio connection's era by its opening exchange, and the suite's first
      // 2026-07-28 message may be a probe without the envelope, which would open the 2025 era.
      // So the relay opens as a 2026-07-28 host does: `server/discover`, then a first request
      // (tools/list), which pins the era.
      started =
        era === 'per-request'
          ? porch
              .request(openingRequest('server/discover'), 'relay-discover')
              .then(() => porch.request(openingRequest('tools/list'), 'relay-pin'))
              .then(() => porch)
          : Promise.resolve(porch);
      processes.set(era, started);
    }
    return started;
  };

  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' });
      res.end();
      return;
    }
    readBody(req).then(
      async (body) => {
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
        const porch = await processFor(eraOf(message, req.headers));
        const clientId = message.id;
        if (typeof message.method !== 'string' || (typeof clientId !== 'string' && typeof clientId !== 'number')) {
          // A notification, or the client's answer to a server request (Porch sends none): no reply expected.
          porch.notify(message);
          res.writeHead(202);
          res.end();
          return;
        }
        const answer = await porch.request(message, clientId);
        sendJson(res, porch.exited() === undefined ? 200 : 502, answer);
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
      await Promise.all([...processes.values()].map(async (started) => (await started).close()));
    },
  };
}
