/**
 * Reading a JSON request body, on Node's own request: every problem with it (413 too large, 415
 * not JSON or compressed, 400 malformed or too deeply nested) comes back as a value, which the
 * shared invocation path reports at its validation step (see `jsonBodyReader`).
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import bodyParser from 'body-parser';
import typeIs from 'type-is';
import { PorchError } from '../core/errors.js';
import { MAX_JSON_DEPTH } from '../operations/invoke.js';

/** Whether the request announces a body (which may still be on its way). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function notJson(): PorchError {
  return new PorchError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON, sent with Content-Type: application/json.');
}

/**
 * A chunked request without Content-Type may carry nothing at all (some clients send a body-less
 * POST that way), and no body means `{}` (DECISIONS.md: an execute without a body). Whether it is
 * empty is known only at its end; its first byte settles that it is a body that is not JSON.
 */
function expectEmptyBody(req: IncomingMessage, res: ServerResponse): Promise<BodyOutcome> {
  return new Promise((resolve) => {
    const settle = (error?: PorchError) => resolve(error ? { error } : {});
    const refuseOnFirstByte = (chunk: Buffer) => {
      if (chunk.length === 0) return;
      req.off('data', refuseOnFirstByte);
      resolve(refusedUnread(res, notJson()));
    };
    req.on('data', refuseOnFirstByte);
    req.on('end', () => settle());
    req.on('error', () => settle(new PorchError('VALIDATION_ERROR', 'The request body could not be read.')));
  });
}

/**
 * A body refused before it is read (not JSON, another charset, compressed, too large): the
 * connection is closed after the answer, so the rest of the body is not received. Node would
 * otherwise read it to its end to reuse the connection (regression: a compressed or non-JSON
 * body of any declared size was received in full after its 415).
 */
function refusedUnread(res: ServerResponse, error: PorchError): BodyOutcome {
  res.setHeader('Connection', 'close');
  return { error };
}

/** The charset parameter of a Content-Type, lower-cased; undefined when there is none. */
const CHARSET_PARAMETER = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/**
 * JSON is UTF-8 (RFC 8259 §8.1), and the depth pre-check reads UTF-8 bytes: a body labelled with
 * any other charset is refused, not decoded (regression: UTF-16 bodies were accepted, and a
 * UTF-8 body labelled UTF-16 was read as garbage and answered "not valid JSON").
 */
function declaresOtherCharset(req: IncomingMessage): boolean {
  const charset = CHARSET_PARAMETER.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
  return charset !== undefined && charset !== 'utf-8';
}

/** DECISIONS.md: the default body limit is 1 MiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

const TOO_DEEP = 'entity.too.deep';
const NOT_UTF8 = 'entity.not.utf8';

/**
 * Refuses, before JSON.parse, a body that is not UTF-8 (decoding would quietly replace the bad
 * bytes with U+FFFD, and the text stored would not be the text sent) or that nests deeper than
 * MAX_JSON_DEPTH: one linear pass over the bytes is far cheaper than parsing a megabyte of nested
 * arrays, a cost any authenticated caller, or anyone calling a public operation, could otherwise
 * impose (figures in bench/RESULTS-NOTES.md).
 */
function checkBodyBytes(_req: unknown, _res: unknown, body: Buffer): void {
  if (!isUtf8(body)) throw Object.assign(new Error('the body is not UTF-8'), { type: NOT_UTF8 });
  let depth = 0;
  let inString = false;
  for (let index = 0; index < body.length; index += 1) {
    const byte = body[index];
    if (inString) {
      if (byte === 0x5c)
        index += 1; // a backslash: skip the escaped byte
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      depth += 1;
      if (depth > MAX_JSON_DEPTH) throw Object.assign(new Error('JSON nests too deeply'), { type: TOO_DEEP });
    } else if (byte === 0x5d || byte === 0x7d) depth -= 1;
  }
}

/** A request's body as read: its value, a problem with it, or neither (no body was sent). */
export type BodyOutcome = { body?: unknown; error?: PorchError };

/** Whether `text` is a JSON value other than an object or array (what strict parsing refuses). */
function isJsonScalar(text: string): boolean {
  const first = text.trimStart()[0];
  if (first === '{' || first === '[') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function tooLarge(limitBytes: number): PorchError {
  return new PorchError('PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${limitBytes} bytes.`);
}

/** What body-parser's JSON reader reports, as the error the caller gets. */
function bodyParserError(err: unknown, limitBytes: number): PorchError {
  const type = (err as { type?: string }).type;
  if (type === 'entity.too.large') return tooLarge(limitBytes);
  if (type === 'encoding.unsupported') {
    return new PorchError('UNSUPPORTED_MEDIA_TYPE', 'Compressed request bodies are not accepted; send the JSON without Content-Encoding.');
  }
  if (type === 'charset.unsupported') return new PorchError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be UTF-8 JSON.');
  if (type === 'entity.parse.failed') {
    // Strict JSON bodies start with { or [; a bare value is JSON all the same, just not an object.
    const body = (err as { body?: unknown }).body;
    const scalar = typeof body === 'string' && isJsonScalar(body);
    return new PorchError('VALIDATION_ERROR', scalar ? 'The request body must be a JSON object.' : 'The request body is not valid JSON.');
  }
  if (type === NOT_UTF8) return new PorchError('VALIDATION_ERROR', 'The request body is not valid UTF-8.');
  if (type === TOO_DEEP) return new PorchError('VALIDATION_ERROR', `Invalid request: the body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  return new PorchError('VALIDATION_ERROR', 'The request body could not be read.');
}

/** Whether body-parser refused the body from its headers alone (a Content-Encoding, a charset), not reading it. */
function refusedBeforeReading(err: unknown): boolean {
  const type = (err as { type?: string }).type;
  return type === 'encoding.unsupported' || type === 'charset.unsupported';
}

/**
 * JSON bodies only, read by the routes of operations that take a body, so a body sent to an
 * unknown path or with GET/DELETE is ignored (Node discards it, bounded by the request timeout)
 * rather than answered 413/415 before routing. A problem with the body is returned, not thrown:
 * the caller is authenticated and counted first, so the answer carries the rate-limit and
 * credits headers like any other answer to an authenticated caller (DECISIONS.md, Headers).
 *
 * Keyed operations read it only after the key was checked (operation-routes.ts). Compressed
 * bodies (Content-Encoding) are refused: 19 bytes of brotli inflate to a megabyte of JSON, and
 * public operations read their body without any key.
 */
export function jsonBodyReader(limitBytes: number): (req: IncomingMessage, res: ServerResponse) => Promise<BodyOutcome> {
  const parse = bodyParser.json({ limit: limitBytes, type: () => true, inflate: false, verify: checkBodyBytes });
  return async (req, res) => {
    if (!hasBody(req)) return {};
    if (req.headers['content-type'] === undefined && req.headers['content-length'] === undefined) return expectEmptyBody(req, res);
    if (!typeIs(req, ['application/json', '+json'])) return refusedUnread(res, notJson());
    if (declaresOtherCharset(req))
      return refusedUnread(res, new PorchError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be UTF-8 JSON (charset=utf-8, or no charset).'));
    // A body refused for its size is refused at once: body-parser reads a too-large body to its
    // end before it reports it (regression: 5 MiB, or a declared 500 MB, were received in full
    // before the 413).
    const refuseTooLarge = (): BodyOutcome => refusedUnread(res, tooLarge(limitBytes));
    if (Number(req.headers['content-length']) > limitBytes) return refuseTooLarge();
    const parsed = req as IncomingMessage & { body?: unknown };
    return new Promise((resolve) => {
      // A body without a length (chunked) is refused as soon as it passes the limit; body-parser,
      // which stops keeping it there, still reads on to its end before it answers, and its late
      // answer then settles nothing.
      let receivedBytes = 0;
      const countBytes = (chunk: Buffer) => {
        receivedBytes += chunk.length;
        if (receivedBytes <= limitBytes) return;
        req.off('data', countBytes);
        resolve(refuseTooLarge());
      };
      req.on('data', countBytes);
      parse(parsed, res, (err?: unknown) => {
        req.off('data', countBytes);
        if (err === undefined || err === null) resolve({ body: parsed.body });
        else if (refusedBeforeReading(err)) resolve(refusedUnread(res, bodyParserError(err, limitBytes)));
        else resolve({ error: bodyParserError(err, limitBytes) });
      });
    });
  };
}
