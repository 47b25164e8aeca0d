/**
 * Bodies the site serves compressed: each is compressed once, with brotli and gzip, when it is
 * first asked for, and the variants are kept for the life of the process, so no request ever pays
 * for compressing the same bytes again. Everything the site serves is fixed while the process runs
 * (documents, pages, assets), which is why precomputed variants fit better than a compressing
 * middleware (the `compression` package compresses every response anew, on the request's time).
 * API JSON and Server-Sent Events never come through here.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Request, Response } from 'express';

const brotliCompressAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Below this, a compressed body plus its header costs about what it saves. */
const MIN_COMPRESSED_BYTES = 512;
/**
 * Brotli's best quality (11) takes about 6 s of one core for the 1.7 MB Swagger UI bundle, for
 * 8 % fewer bytes than quality 9 (0.25 s); larger bodies use 9 so the first request that needs
 * one does not wait seconds.
 */
const BEST_QUALITY_MAX_BYTES = 256 * 1024;

export type ContentCoding = 'br' | 'gzip' | 'identity';

export interface EncodedBody {
  contentType: string;
  /** The hex digest of the identity bytes; the ETags of the variants derive from it. */
  digest: string;
  identity: Buffer;
  br?: Buffer;
  gzip?: Buffer;
}

/** Whether a media type is text-like and so worth compressing (archives and images are not). */
export function isCompressible(contentType: string): boolean {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return type.startsWith('text/') || /^application\/([a-z0-9.+-]*\+)?(json|yaml|javascript|xml)$/.test(type);
}

export function contentDigest(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The body with its brotli and gzip variants, each kept only when it is smaller than the original. */
export async function encodeBody(body: Uint8Array | string, contentType: string): Promise<EncodedBody> {
  const identity = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  const encoded: EncodedBody = { contentType, digest: contentDigest(identity), identity };
  if (identity.length < MIN_COMPRESSED_BYTES || !isCompressible(contentType)) return encoded;
  // On the libuv thread pool: the event loop goes on serving while a large body compresses.
  const [br, gz] = await Promise.all([
    brotliCompressAsync(identity, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: identity.length <= BEST_QUALITY_MAX_BYTES ? constants.BROTLI_MAX_QUALITY : 9,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
      },
    }),
    gzipAsync(identity, { level: constants.Z_BEST_COMPRESSION }),
  ]);
  if (br.length < identity.length) encoded.br = br;
  if (gz.length < identity.length) encoded.gzip = gz;
  return encoded;
}

/** A function that encodes its body on first call and hands every later caller the same variants. */
export function encodedOnce(build: () => { body: Uint8Array | string; contentType: string }): () => Promise<EncodedBody> {
  let encoded: Promise<EncodedBody> | undefined;
  return () => {
    if (!encoded) {
      const { body, contentType } = build();
      encoded = encodeBody(body, contentType);
      // A failure is not kept: the next request tries again.
      encoded.catch(() => {
        encoded = undefined;
      });
    }
    return encoded;
  };
}

/** Each coding's q-value from an Accept-Encoding header (RFC 9110 §12.5.3); `*` stands for any coding not named. */
function acceptedCodings(header: string): Map<string, number> {
  const codings = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    if (name === '') continue;
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    codings.set(name, Number.isFinite(value) ? value : 0);
  }
  return codings;
}

/**
 * The coding to send: the highest q-value among the variants there are, brotli first on a tie
 * (browsers list `gzip, deflate, br` at equal weight, and brotli is the smaller). No header means
 * the client takes anything, but compressing for a client that did not ask (curl without
 * --compressed) would hand it bytes it cannot read, so that gets the body as it is.
 */
export function chooseCoding(req: Request, body: EncodedBody): ContentCoding {
  const header = req.headers['accept-encoding'];
  if (typeof header !== 'string' || header.trim() === '') return 'identity';
  const accepted = acceptedCodings(header);
  const wildcard = accepted.get('*');
  const weight = (coding: string) => accepted.get(coding) ?? (coding === 'identity' ? (wildcard === 0 ? 0 : 1) : (wildcard ?? 0));
  let best: ContentCoding = 'identity';
  let bestWeight = weight('identity');
  for (const coding of ['gzip', 'br'] as const) {
    if (!body[coding]) continue;
    const candidate = weight(coding);
    if (candidate > 0 && candidate >= bestWeight) {
      best = coding;
      bestWeight = candidate;
    }
  }
  return best;
}

/** Strong ETags differ between codings of one representation (RFC 9110 §8.8.3). */
function etagOf(body: EncodedBody, coding: ContentCoding): string {
  const tag = body.digest.slice(0, 32);
  return coding === 'identity' ? `"${tag}"` : `"${tag}-${coding}"`;
}

/** Adds names to the Vary header, keeping what is there. */
export function addVary(res: Response, ...names: string[]): void {
  const current = String(res.getHeader('Vary') ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  for (const name of names) if (!current.some((existing) => existing.toLowerCase() === name.toLowerCase())) current.push(name);
  res.setHeader('Vary', current.join(', '));
}

export interface SendEncodedOptions {
  cacheControl: string;
  status?: number;
}

/**
 * Whether If-None-Match matches one of the representation's `etags` (RFC 9110, 13.1.2): `*`, or
 * any listed tag by weak comparison, `W/` ignored on either side (regression: a weak tag or `*`
 * got the whole body again).
 */
export function ifNoneMatchHolds(header: string | undefined, etags: readonly string[]): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const known = new Set(etags.map((tag) => tag.replace(/^W\//, '')));
  return header.split(',').some((tag) => known.has(tag.trim().replace(/^W\//, '')));
}

/**
 * Sends the variant the client accepts best, with Content-Encoding, Vary: Accept-Encoding, an
 * ETag and Cache-Control; an If-None-Match naming that variant's tag gets 304. Only that one's:
 * a 304 tells the client to use the body it holds under that tag (RFC 9110, 13.1.2), so a tag of
 * another coding must get the body (regression: `Accept-Encoding: gzip` with the brotli tag got
 * 304, and a cache that stored brotli bytes would have handed them to a gzip-only client).
 */
export function sendEncoded(req: Request, res: Response, body: EncodedBody, { cacheControl, status = 200 }: SendEncodedOptions): void {
  const coding = chooseCoding(req, body);
  const etag = etagOf(body, coding);
  if (body.br || body.gzip) addVary(res, 'Accept-Encoding');
  res.setHeader('Content-Type', body.contentType);
  res.setHeader('Cache-Control', cacheControl);
  if (status === 200) {
    res.setHeader('ETag', etag);
    if (ifNoneMatchHolds(req.headers['if-none-match'], [etag])) {
      res.status(304).end();
      return;
    }
  }
  const bytes = coding === 'identity' ? body.identity : (body[coding] ?? body.identity);
  if (coding !== 'identity') res.setHeader('Content-Encoding', coding);
  res.setHeader('Content-Length', String(bytes.length));
  res.status(status);
  if (req.method === 'HEAD') res.end();
  else res.end(bytes);
}
