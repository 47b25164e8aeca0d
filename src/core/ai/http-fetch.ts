/**
 * The `fetch` the openai SDK is given for provider calls: the same request and response, sent
 * over node:http(s) with keep-alive agents instead of the runtime's fetch (undici). Every model
 * call pays undici's request and response machinery, which measured ~0.17 ms more per call than
 * node:http against a local upstream, a good part of what Porch adds to an execution beyond what
 * it must do (bench/RESULTS-NOTES.md, 28 Nov 2026).
 *
 * It keeps what the SDK relies on: the abort signal (which carries the SDK's per-attempt timeout)
 * rejects with an `AbortError`, a network failure rejects with `TypeError('fetch failed')` and its
 * cause (the SDK retries both as connection errors), a streamed answer (`text/event-stream`)
 * arrives as it is produced, and compressed answers are inflated. Anything it does not handle
 * the same way, the runtime's fetch still does: a `Request` object or a non-string body, another
 * protocol, and redirects (re-sent through fetch, which follows them as it always did).
 */
import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * Idle connections are closed after this long. Servers close idle keep-alive connections too
 * (Node's default after 5 s); closing ours first keeps a request from being sent on a connection
 * the server is closing. Only idle sockets are affected: a request in flight has no timeout here.
 */
const IDLE_SOCKET_MS = 4_000;

const agents = {
  'http:': new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' }),
  'https:': new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' }),
};

/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

function abortError(signal: AbortSignal): unknown {
  return signal.reason instanceof Error && signal.reason.name === 'AbortError' ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}

/** The body as the caller reads it: inflated when the upstream compressed it. */
function decoded(response: IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return response.pipe(createGunzip());
  if (encoding === 'deflate') return response.pipe(createInflate());
  if (encoding === 'br') return response.pipe(createBrotliDecompress());
  return response;
}

function responseHeaders(response: IncomingMessage, inflated: boolean): Headers {
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index] ?? '';
    // An inflated body no longer has the length or encoding the upstream announced.
    if (inflated && /^content-(encoding|length)$/i.test(name)) continue;
    headers.append(name, raw[index + 1] ?? '');
  }
  return headers;
}

export const httpFetch: FetchFunction = (input, init) => {
  const body = init?.body;
  if (input instanceof Request || (body !== undefined && body !== null && typeof body !== 'string')) return fetch(input, init);
  const url = new URL(input);
  const agent = url.protocol === 'http:' ? agents['http:'] : url.protocol === 'https:' ? agents['https:'] : undefined;
  if (agent === undefined) return fetch(input, init);
  const signal = init?.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortError(signal));

  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    headers[name] = value;
  });
  if (typeof body === 'string') headers['content-length'] = String(Buffer.byteLength(body));

  return new Promise<Response>((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(url, { method: init?.method ?? 'GET', headers, agent }, (response) => {
      const status = response.statusCode ?? 0;
      if (REDIRECT_STATUSES.has(status)) {
        response.resume();
        settle();
        resolve(fetch(input, init));
        return;
      }
      const inflated = response.headers['content-encoding'] !== undefined;
      const stream = decoded(response);
      const options = { status, statusText: response.statusMessage ?? '', headers: responseHeaders(response, inflated) };
      const failed = (err: unknown) => {
        settle();
        reject(signal?.aborted ? abortError(signal) : new TypeError('fetch failed', { cause: err }));
      };
      if (NULL_BODY_STATUSES.has(status)) {
        response.resume();
        settle();
        resolve(new Response(null, options));
        return;
      }
      if (String(response.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        // A stream is handed over as it arrives; the signal still ends it (the request is destroyed).
        stream.once('close', settle);
        resolve(new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, options));
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.once('error', failed);
      response.once('aborted', () => failed(new Error('The upstream closed the connection mid-answer.')));
      stream.once('end', () => {
        settle();
        resolve(new Response(Buffer.concat(chunks), options));
      });
    });
    const onAbort = () => {
      request.destroy(signal === undefined ? undefined : new DOMException('This operation was aborted', 'AbortError'));
    };
    function settle(): void {
      signal?.removeEventListener('abort', onAbort);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    request.once('error', (err) => {
      settle();
      reject(signal?.aborted ? abortError(signal) : new TypeError('fetch failed', { cause: err }));
    });
    request.end(body ?? undefined);
  });
};
