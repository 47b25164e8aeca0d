/**
 * Server-Sent Events for the operations that can stream (`operation.streams`), when the request
 * sends `Accept: text/event-stream`. The door only translates: the invocation path runs the
 * operation as it would for JSON, and its events become SSE events:
 * - `delta` `{"text": "..."}`: the answer's text as the model produces it;
 * - `node`: a workflow node's trace entry when it finishes;
 * - `done` `{"data": <the result, exactly as the JSON envelope's data>, "credits_remaining": n}`;
 * - `error`: the error envelope, for a failure after the stream started.
 *
 * The stream opens (status and headers) with its first event, so everything refused before the
 * model answers (key, scope, rate limit, validation, credits) is the ordinary JSON error with its
 * status; an execution that sends no event for the keep-alive interval opens it with a comment. An Idempotency-Key replay runs nothing, so it answers the stored result as one `done`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import accepts from 'accepts';
import type { Core } from '../core/core.js';
import type { ErrorCodeSet } from '../core/errors.js';
import { errorEnvelope } from '../operations/envelope.js';
import type { InvocationMeta, InvocationRequest, InvocationResult } from '../operations/invoke.js';
import { invokeOperation } from '../operations/invoke.js';
import type { Operation } from '../operations/operation.js';
import { sendError, setMetaHeaders } from './envelope.js';

export const EVENT_STREAM_MEDIA_TYPE = 'text/event-stream';

/** The SSE event names, as the OpenAPI document lists them. */
export const STREAM_EVENTS = ['delta', 'node', 'done', 'error'] as const;
export type StreamEventName = (typeof STREAM_EVENTS)[number];

/**
 * A comment line sent this often on an open stream while no event is due (a workflow node that
 * takes minutes), so proxies and clients that close idle connections keep it open.
 */
export const STREAM_KEEP_ALIVE_MS = 15_000;

/**
 * What the door offers, in order of preference. The stream is also offered with the charset it
 * is sent in, so `Accept: text/event-stream; charset=utf-8` (a range with a parameter matches
 * only an offer with it, RFC 9110) asks for the stream too (regression: it got JSON).
 */
const STREAM_OFFERS = ['application/json', EVENT_STREAM_MEDIA_TYPE, `${EVENT_STREAM_MEDIA_TYPE}; charset=utf-8`];

/** Whether the request asks for the event stream over JSON (`Accept: text/event-stream`). */
export function wantsEventStream(req: IncomingMessage, operation: Operation): boolean {
  if (operation.streams === undefined) return false;
  const chosen = accepts(req).type(STREAM_OFFERS);
  return typeof chosen === 'string' && chosen.startsWith(EVENT_STREAM_MEDIA_TYPE);
}

/** One SSE event: `event:` and a one-line JSON `data:` (JSON never holds a raw newline). */
export function formatEvent(event: StreamEventName, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

class EventStreamResponse {
  private opened = false;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly status: number,
    private readonly keepAliveMs: number,
  ) {}

  get isOpen(): boolean {
    return this.opened;
  }

  /**
   * Status and headers, sent with the event that opens the stream (every caller sends one at
   * once): one write to the socket instead of two before the first event, which is what the
   * time to first byte of a stream measures.
   */
  open(meta: InvocationMeta | null): void {
    if (this.opened) return;
    this.opened = true;
    const { res } = this;
    if (meta !== null) setMetaHeaders(res, meta);
    res.statusCode = this.status;
    res.setHeader('Content-Type', `${EVENT_STREAM_MEDIA_TYPE}; charset=utf-8`);
    res.setHeader('Cache-Control', 'no-cache');
    // nginx (and proxies that follow it) would otherwise buffer the response and send it whole.
    res.setHeader('X-Accel-Buffering', 'no');
    this.heartbeat = setInterval(() => this.write(': keep-alive\n\n'), this.keepAliveMs);
    this.heartbeat.unref();
  }

  /** Opens the stream with a keep-alive comment alone: an execution admitted long ago has not sent its first event yet. */
  openIdle(meta: InvocationMeta | null): void {
    if (this.opened) return;
    this.open(meta);
    this.write(': keep-alive\n\n');
  }

  send(event: StreamEventName, data: unknown): void {
    this.write(formatEvent(event, data));
  }

  end(): void {
    clearInterval(this.heartbeat);
    if (!this.res.destroyed && !this.res.writableEnded) this.res.end();
  }

  /** Each write goes straight to the socket: nothing compresses or collects the body. */
  private write(text: string): void {
    if (this.res.destroyed || this.res.writableEnded) return;
    this.res.write(text);
  }
}

/**
 * Runs the operation through the invocation path and answers as an event stream (see the top
 * of this file). `request` is what the JSON route would pass, without `events`.
 */
export async function sendOperationAsEvents(
  core: Core,
  operation: Operation,
  request: InvocationRequest,
  res: ServerResponse,
  codeSet: ErrorCodeSet,
  keepAliveMs = STREAM_KEEP_ALIVE_MS,
): Promise<void> {
  const stream = new EventStreamResponse(res, operation.successStatus, keepAliveMs);
  let startMeta: InvocationMeta | null = null;
  let firstHeartbeat: NodeJS.Timeout | undefined;
  const opened = (): EventStreamResponse => {
    stream.open(startMeta);
    return stream;
  };
  const result: InvocationResult = await invokeOperation(core, operation, {
    ...request,
    events: {
      onStart: (meta) => {
        startMeta = meta;
        // A first event that takes long (a workflow's first node, a slow first token) would leave
        // the connection silent, and proxies cut silent connections (nginx after 60 s): then the
        // stream opens with a keep-alive comment, and a later error is its `error` event.
        firstHeartbeat = setTimeout(() => stream.openIdle(startMeta), keepAliveMs);
        firstHeartbeat.unref();
      },
      onDelta: (text) => opened().send('delta', { text }),
      onNode: (node) => opened().send('node', node),
    },
  });
  clearTimeout(firstHeartbeat);
  if (!stream.isOpen) {
    setMetaHeaders(res, result.meta);
    if (!result.ok) {
      sendError(res, result.error, codeSet, request.requestId);
      return;
    }
    stream.open(null);
  }
  if (result.ok) stream.send('done', { data: result.data, credits_remaining: result.meta.creditsRemaining });
  else stream.send('error', errorEnvelope(result.error, request.requestId, codeSet));
  stream.end();
}
