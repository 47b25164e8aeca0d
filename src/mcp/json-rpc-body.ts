/**
 * Reading JSON-RPC messages off the wire before the SDK sees them, for the two rules the SDK does
 * not apply: batches are refused under the protocol revisions that removed them, and on stdio a
 * line that cannot be read is answered instead of dropped.
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingHttpHeaders } from 'node:http';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { isSpecType, ProtocolErrorCode, type RequestId, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { isRecord } from '../core/validation.js';
import { malformedRequestParamsError } from './malformed-params.js';

/**
 * The one revision with JSON-RPC batching: 2025-03-26 added it and 2025-06-18 removed it, so the
 * earlier revisions (2024-11-05, 2024-10-07) never had it either (regression: they were served).
 * It is also what Streamable HTTP assumes when a request names no revision (MCP 2025-06-18,
 * "Protocol Version Header": the server SHOULD assume 2025-03-26).
 */
const REVISION_WITH_BATCHES = '2025-03-26';

export interface JsonRpcRefusal {
  status: number;
  code: number;
  message: string;
  /**
   * Set when the body is refused unread (too large, compressed): the answer closes the
   * connection, which would otherwise be kept by reading the rest of a body that may never end.
   */
  closesConnection?: boolean;
}

export function batchRefusal(revision: string): JsonRpcRefusal {
  return {
    status: 400,
    code: ProtocolErrorCode.InvalidRequest,
    message: `Invalid Request: JSON-RPC batches are not accepted under protocol revision ${revision} (only ${REVISION_WITH_BATCHES} had them); send one message per request.`,
  };
}

/** The revision a batch is sent under: the request's header, else the one an `initialize` in it asks for. */
function revisionOfBatch(headers: IncomingHttpHeaders, batch: readonly unknown[]): string {
  const header = headers['mcp-protocol-version'];
  if (typeof header === 'string') return header;
  for (const message of batch) {
    if (isRecord(message) && message.method === 'initialize' && isRecord(message.params) && typeof message.params.protocolVersion === 'string') {
      return message.params.protocolVersion;
    }
  }
  return REVISION_WITH_BATCHES;
}

/**
 * A batch sent under a revision that has none is refused; single messages always pass. So is a
 * batch the SDK would serve wrongly, before any of it runs: one holding `initialize` (2025-03-26:
 * it MUST NOT be batched), and one whose requests share an id, of which the SDK answered only one
 * though it executed both (an execution charged, its answer never sent).
 */
export function refuseBatchIfRemoved(headers: IncomingHttpHeaders, body: unknown): JsonRpcRefusal | null {
  if (!Array.isArray(body)) return null;
  const revision = revisionOfBatch(headers, body);
  // A revision the server does not serve is the SDK's to refuse, as for a single message.
  if (revision !== REVISION_WITH_BATCHES && SUPPORTED_PROTOCOL_VERSIONS.includes(revision)) return batchRefusal(revision);
  const invalid = (message: string): JsonRpcRefusal => ({ status: 400, code: ProtocolErrorCode.InvalidRequest, message: `Invalid Request: ${message}` });
  const ids = new Set<unknown>();
  for (const message of body) {
    if (!isRecord(message)) continue;
    if (message.method === 'initialize') return invalid('initialize must be sent alone, not in a batch.');
    if (typeof message.method === 'string' && 'id' in message) {
      if (ids.has(message.id)) return invalid(`two requests of the batch have the id ${JSON.stringify(message.id)}; each needs its own.`);
      ids.add(message.id);
    }
  }
  return null;
}

/**
 * The body's bytes, or null as soon as it passes the limit: the rest is left unread, and the
 * refusal closes the connection (regression: a chunked body over the limit was read to its end,
 * so one that never ended got 408 at the request timeout instead of 413). Read with stream
 * events rather than `for await`, whose async iterator costs more than the rest of reading a
 * small body.
 */
export function readBodyWithinLimit(req: Readable, limitBytes: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    // A stream already closed emits nothing more: waiting on it would never settle.
    if (req.destroyed) {
      reject(new Error('The request was closed before its body was read.'));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size <= limitBytes) chunks.push(chunk);
      else {
        // What still comes is discarded by the stream; the answer's Connection: close ends it.
        settled = true;
        resolve(null);
      }
    });
    req.once('end', () => {
      if (settled) return;
      settled = true;
      resolve(chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks));
    });
    req.once('error', reject);
    // A client gone before the end: the body will never be whole.
    req.once('close', () => {
      if (!settled) reject(new Error('The request was closed before its body was read.'));
    });
  });
}

/**
 * The request body, parsed, or the refusal the SDK's own reading would answer (413, -32700), plus
 * one it would not: a compressed body is refused 415 as over REST, instead of failing to parse
 * as JSON (README, Limits). The body is read whole, up to the limit, before any work on it; one
 * over the limit is refused as soon as that is known, by its Content-Length before any of it is
 * read, as REST refuses it (src/rest/json-body.ts).
 */
export async function readJsonRpcBody(
  req: Readable & { headers: IncomingHttpHeaders },
  limitBytes: number,
): Promise<{ body: unknown } | { refusal: JsonRpcRefusal }> {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    return {
      refusal: {
        status: 415,
        code: -32000,
        message: 'Unsupported Media Type: compressed request bodies are not accepted; send the JSON without Content-Encoding.',
        closesConnection: true,
      },
    };
  }
  const tooLarge = {
    refusal: { status: 413, code: -32000, message: `Payload Too Large: Request body must not exceed ${limitBytes} bytes`, closesConnection: true },
  };
  if (Number(req.headers['content-length'] ?? 0) > limitBytes) return tooLarge;
  const bytes = await readBodyWithinLimit(req, limitBytes);
  if (bytes === null) return tooLarge;
  // Decoding would replace bytes that are not UTF-8 with U+FFFD: the text used would not be the text sent.
  if (!isUtf8(bytes)) return { refusal: { status: 400, code: ProtocolErrorCode.ParseError, message: 'Parse error: the body is not valid UTF-8' } };
  try {
    return { body: JSON.parse(bytes.toString('utf8')) };
  } catch {
    return { refusal: { status: 400, code: ProtocolErrorCode.ParseError, message: 'Parse error: Invalid JSON' } };
  }
}

/** The SDK's own bound on a buffered stdio message (STDIO_DEFAULT_MAX_BUFFER_SIZE), kept per line here. */
export const MAX_STDIO_LINE_BYTES = 10 * 1024 * 1024;

function idOf(value: unknown): RequestId | null {
  if (!isRecord(value)) return null;
  return typeof value.id === 'string' || typeof value.id === 'number' ? value.id : null;
}

function errorLine(id: RequestId | null, code: number, message: string): string {
  return `${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`;
}

/** A line's end: a newline byte never occurs inside a multi-byte UTF-8 character, so lines are cut on bytes. */
const NEWLINE = 0x0a;

/**
 * Sits between stdin and the SDK's stdio transport, which drops a line it cannot read after
 * reporting it to `onerror`, so the client waits forever. Here such a line is answered as
 * JSON-RPC says: bytes that are not UTF-8, or text that is not JSON → -32700 Parse error (as the
 * HTTP endpoint refuses such a body: decoding would put U+FFFD in place of the bytes, and the text
 * used would not be the text sent); JSON that is not one JSON-RPC message (a batch among them: the
 * SDK's stdio transport reads single messages only) → -32600 Invalid Request, with the id when one
 * can be read, except a request whose params alone MCP refuses → -32602 Invalid params. Readable
 * lines pass through unchanged; blank lines are skipped.
 */
export function answerUnreadableLines(answer: (line: string) => void, maxLineBytes: number = MAX_STDIO_LINE_BYTES): Transform {
  // The bytes of the line not ended yet, kept as they came (joined once the line ends).
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  // Set while the rest of an over-long line is skipped, up to its newline.
  let skipping = false;
  const handle = (bytes: Buffer): string | null => {
    if (!isUtf8(bytes)) {
      answer(errorLine(null, ProtocolErrorCode.ParseError, 'Parse error: the line is not valid UTF-8.'));
      return null;
    }
    const text = bytes.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return null;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      answer(errorLine(null, ProtocolErrorCode.ParseError, 'Parse error: the line is not valid JSON.'));
      return null;
    }
    if (Array.isArray(message)) {
      answer(errorLine(null, ProtocolErrorCode.InvalidRequest, 'Invalid Request: JSON-RPC batches are not accepted over stdio; send one message per line.'));
      return null;
    }
    if (!isSpecType.JSONRPCMessage(message)) {
      // A request with params MCP refuses is still JSON-RPC: invalid params, as over HTTP.
      const malformed = malformedRequestParamsError(message);
      answer(
        malformed
          ? `${JSON.stringify(malformed)}\n`
          : errorLine(idOf(message), ProtocolErrorCode.InvalidRequest, 'Invalid Request: the line is not a JSON-RPC 2.0 message.'),
      );
      return null;
    }
    return `${text}\n`;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      let start = 0;
      let newline = chunk.indexOf(NEWLINE, start);
      while (newline !== -1) {
        const end = chunk.subarray(start, newline);
        const line = pending.length === 0 ? end : Buffer.concat([...pending, end]);
        const passed = skipping ? null : handle(line);
        skipping = false;
        pending = [];
        pendingBytes = 0;
        if (passed !== null) this.push(passed);
        start = newline + 1;
        newline = chunk.indexOf(NEWLINE, start);
      }
      if (start < chunk.length && !skipping) {
        pending.push(chunk.subarray(start));
        pendingBytes += chunk.length - start;
      }
      if (!skipping && pendingBytes > maxLineBytes) {
        answer(errorLine(null, ProtocolErrorCode.InvalidRequest, `Invalid Request: a message is longer than ${maxLineBytes} bytes.`));
        skipping = true;
      }
      if (skipping) {
        pending = [];
        pendingBytes = 0;
      }
      done();
    },
    flush(done: TransformCallback) {
      // A last line without its newline was never a message the SDK would have read either.
      pending = [];
      done();
    },
  });
}
