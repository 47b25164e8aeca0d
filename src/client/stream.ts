/**
 * Streamed executions for the typed client: `client.stream.executePersona({ id, input })` is an
 * async iterator of the server's events (`Accept: text/event-stream`): `delta` (text as the model
 * produces it) or `node` (a finished workflow node), then one `done` with the same result the
 * non-streamed method returns. Refusals before the stream starts, and an `error` event after it
 * started, are thrown as PorchApiError (status 0 for the latter: the HTTP status was already 200).
 * Leaving the loop early (`break`) closes the connection, which stops the model call on the
 * server; the credits it used until then are charged.
 *
 * Streams are not retried: text already handed to the caller cannot be taken back. Each call
 * carries an Idempotency-Key (the caller's, or a new one), so a caller who retries with the same
 * key gets the stored result as a single `done` instead of a second charge.
 */
import type { operations } from '../operations/index.js';
import type { OperationId, OperationOutput } from '../operations/operation.js';
import { PorchApiError, readApiError } from './errors.js';
import type { ClientRoute } from './route.js';

/** The operations that stream, by name. */
type StreamingOperation = Extract<(typeof operations)[number], { name: 'execute_composition' | 'execute_skill' | 'execute_persona' | 'execute_workflow' }>;

/** A workflow node's trace entry, as `node` events and `node_results` carry it. */
export type StreamedNode = OperationOutput<Extract<StreamingOperation, { name: 'execute_workflow' }>>['node_results'][number];

export type StreamEvent<Data> =
  | { event: 'delta'; text: string }
  | { event: 'node'; node: StreamedNode }
  | {
      event: 'done';
      /** Exactly what the non-streamed method returns. */
      data: Data;
      /** Whole credits left after the call. */
      creditsRemaining: number | null;
    };

export interface StreamOptions {
  /** Aborting it closes the stream (and stops the model call on the server). */
  signal?: AbortSignal;
  idempotencyKey?: string;
  headers?: Record<string, string>;
}

type StreamMethod<Op, Request> = (input: Request, options?: StreamOptions) => AsyncGenerator<StreamEvent<OperationOutput<Op>>, void, undefined>;

/** One streaming method per operation that can stream; `Request` is the client's flat input type. */
export type PorchStreamClient<RequestOf extends Record<string, unknown>> = {
  [Op in StreamingOperation as OperationId<Op['name']>]: StreamMethod<Op, Op['name'] extends keyof RequestOf ? RequestOf[Op['name']] : never>;
};

interface RawEvent {
  event: string;
  data: string;
}

/** Splits a text/event-stream body into events; comment lines (keep-alives) are skipped. */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<RawEvent> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let boundary = buffer.indexOf('\n\n');
      while (boundary >= 0) {
        const block = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        boundary = buffer.indexOf('\n\n');
        let event = 'message';
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') event = value;
          else if (field === 'data') data.push(value);
        }
        if (data.length > 0) yield { event, data: data.join('\n') };
      }
    }
  } finally {
    // Leaving early (break, an error) closes the connection: the server stops the model call.
    await reader.cancel().catch(() => undefined);
  }
}

function streamError(data: unknown): PorchApiError {
  const error = (data as { error?: { code?: unknown; message?: unknown; request_id?: unknown } } | null)?.error ?? {};
  return new PorchApiError(
    0,
    typeof error.code === 'string' ? error.code : 'INTERNAL_ERROR',
    typeof error.message === 'string' ? error.message : 'The stream reported an error.',
    typeof error.request_id === 'string' ? error.request_id : null,
    null,
  );
}

export interface StreamTransport {
  /** Sends the request as the client sends any other (base URL, key, path and body from the input). */
  send(route: ClientRoute, input: Record<string, unknown>, headers: Record<string, string>, signal: AbortSignal | undefined): Promise<Response>;
}

export async function* streamOperation(
  transport: StreamTransport,
  route: ClientRoute,
  input: Record<string, unknown>,
  options: StreamOptions = {},
): AsyncGenerator<StreamEvent<unknown>, void, undefined> {
  const headers: Record<string, string> = { ...options.headers, accept: 'text/event-stream' };
  if (route.idempotent) headers['idempotency-key'] = options.idempotencyKey ?? globalThis.crypto.randomUUID();
  const response = await transport.send(route, input, headers, options.signal);
  if (!response.ok) throw await readApiError(response);
  if (response.body === null || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    await response.body?.cancel();
    throw new PorchApiError(
      response.status,
      'HTTP_NOT_A_STREAM',
      'The server did not answer with an event stream.',
      response.headers.get('x-request-id'),
      null,
    );
  }
  for await (const raw of readServerSentEvents(response.body)) {
    const data: unknown = JSON.parse(raw.data);
    if (raw.event === 'delta') yield { event: 'delta', text: String((data as { text?: unknown }).text ?? '') };
    else if (raw.event === 'node') yield { event: 'node', node: data as StreamedNode };
    else if (raw.event === 'done') {
      const done = data as { data: unknown; credits_remaining?: unknown };
      yield { event: 'done', data: done.data, creditsRemaining: typeof done.credits_remaining === 'number' ? done.credits_remaining : null };
      return;
    } else if (raw.event === 'error') throw streamError(data);
  }
  throw new PorchApiError(0, 'STREAM_ENDED', 'The stream ended before its done event (the connection was cut).', response.headers.get('x-request-id'), null);
}
