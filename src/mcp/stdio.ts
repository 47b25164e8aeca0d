/**
 * MCP over stdio (`porch mcp`): one long-lived connection for one key. The key is checked once
 * at start so a wrong key fails loudly before a client waits on it; afterwards every listing
 * and call authenticates again, so revoking the key takes effect on the next request.
 * stdout carries only the protocol; logs go to stderr.
 */
import type { Readable, Writable } from 'node:stream';
import { ProtocolErrorCode, type RequestId } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Credentials } from '../core/access/authenticator.js';
import type { Core } from '../core/core.js';
import { type ErrorCodeSet, PorchError } from '../core/errors.js';
import type { Operation } from '../operations/operation.js';
import { createMcpServer, createToolset } from './create-mcp-server.js';
import { hasApiKey, liveIdentity } from './identity.js';
import { answerUnreadableLines } from './json-rpc-body.js';
import { ParamsCheckingTransport } from './malformed-params.js';

export interface StdioOptions {
  core: Core;
  operations: readonly Operation[];
  errorCodes: ErrorCodeSet;
  credentials: Credentials;
  input?: Readable;
  output?: Writable;
}

/**
 * Serves until the client closes stdin (or the transport closes), then resolves. Rejects with
 * the authenticator's PorchError when a key was given and does not work.
 */
export async function serveMcpOverStdio(options: StdioOptions): Promise<void> {
  const { core, operations, errorCodes, credentials, input = process.stdin, output = process.stdout } = options;
  if (hasApiKey(credentials)) {
    try {
      await core.authenticator.authenticate(credentials);
    } catch (err) {
      if (!(err instanceof PorchError)) throw err;
      // Over stdio the acting account is PORCH_ACCOUNT: the refusal names the setting the user has.
      const refused = new PorchError(err.code, err.message.replaceAll('X-Porch-Account', 'PORCH_ACCOUNT'));
      // The client is waiting: it is told why, or all it shows is "Connection closed".
      await refuseStartup(input, output, `porch mcp cannot start: PORCH_API_KEY was refused: ${refused.code}: ${refused.message}`);
      throw refused;
    }
  }

  // Lines the SDK would drop in silence are answered with a JSON-RPC error on the same output.
  const readable = input.pipe(answerUnreadableLines((line) => output.write(line)));
  let finish = () => {};
  const closed = new Promise<void>((resolve) => {
    finish = resolve;
  });
  // The SDK's entry decides the connection's protocol era from its opening message (2025
  // initialize, or a 2026-07-28 request) and builds the one server that serves it. The
  // connection ends when the entry closes the wire, not when a server closes: a server built for
  // a `server/discover` probe is closed and replaced when the client goes on with `initialize`.
  const tools = createToolset(operations);
  const handle = serveStdio(() => createMcpServer(core, liveIdentity(core, credentials), { tools, errorCodes }), {
    transport: new ConnectionTransport(new StdioServerTransport(readable, output), finish),
    onerror: (err) => core.logger.warn({ err }, 'MCP transport error'),
  });
  // A client that goes away closes stdin, also before its first message built a server.
  const end = () => void handle.close().then(finish, finish);
  input.once('end', end);
  input.once('close', end);
  core.logger.info({ keyed: hasApiKey(credentials) }, 'MCP server ready on stdio');
  await closed;
}

/** The stdio wire; `ended` runs once it is closed, which ends the connection. */
class ConnectionTransport extends ParamsCheckingTransport {
  constructor(
    inner: StdioServerTransport,
    private readonly ended: () => void,
  ) {
    super(inner);
  }

  override async close(): Promise<void> {
    try {
      await super.close();
    } finally {
      this.ended();
    }
  }
}

/**
 * For a `porch mcp` that cannot start (a bad config, no database): answers the client's first
 * request with a JSON-RPC error carrying `reason`, then resolves (also when input ends first).
 * A server that only exits is shown by MCP clients as "Connection closed", with the reason left
 * in a log the user may never find (regression: Inspector showed nothing else).
 */
export function refuseStartup(input: Readable, output: Writable, reason: string): Promise<void> {
  return new Promise((resolve) => {
    let pending = '';
    const finish = () => {
      input.off('data', onData);
      input.off('end', finish);
      input.off('close', finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      let newline = pending.indexOf('\n');
      while (newline !== -1) {
        const id = requestIdOf(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
        if (id !== undefined) {
          output.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code: ProtocolErrorCode.InternalError, message: reason } })}\n`, () => finish());
          return;
        }
        newline = pending.indexOf('\n');
      }
    };
    input.on('data', onData);
    input.once('end', finish);
    input.once('close', finish);
  });
}

/** The id of a JSON-RPC request line; undefined for a notification or a line that is not one. */
function requestIdOf(line: string): RequestId | undefined {
  try {
    const message: unknown = JSON.parse(line);
    if (typeof message !== 'object' || message === null || !('id' in message) || !('method' in message)) return undefined;
    return typeof message.id === 'string' || typeof message.id === 'number' ? message.id : undefined;
  } catch {
    return undefined;
  }
}
