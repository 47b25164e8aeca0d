/**
 * Reading Server-Sent Events over real HTTP in tests: each event as it arrives (with the time it
 * arrived), so a test can act mid-stream (disconnect after the first delta) and check what came.
 */
import { readServerSentEvents } from '../../src/client/stream.js';
import { API_BASE_PATH } from '../../src/rest/create-rest-app.js';
import { validateAgainstOpenApi } from './openapi-validation.js';

export interface ReceivedEvent {
  event: string;
  data: unknown;
  /** performance.now() when the event's last line arrived. */
  receivedAtMs: number;
}

export interface EventStreamResponse {
  status: number;
  headers: Headers;
  /** The JSON body when the answer was not an event stream (an error before the first event). */
  json: unknown;
  /** The events, as they arrive; ends with the stream. Empty for a JSON answer. */
  events: AsyncIterable<ReceivedEvent>;
  /** Stops reading and closes the connection (a client that goes away). */
  disconnect(): void;
}

/**
 * The events of an SSE byte stream, as the typed client reads them (one parser for both), with
 * their data parsed and the time each arrived; `onText` sees the raw text as it comes.
 */
export async function* parseEventStream(body: ReadableStream<Uint8Array>, onText?: (text: string) => void): AsyncGenerator<ReceivedEvent> {
  const decoder = new TextDecoder();
  const observed =
    onText === undefined
      ? body
      : body.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              onText(decoder.decode(chunk, { stream: true }));
              controller.enqueue(chunk);
            },
          }),
        );
  for await (const raw of readServerSentEvents(observed)) {
    yield { event: raw.event, data: JSON.parse(raw.data) as unknown, receivedAtMs: performance.now() };
  }
}

/**
 * POSTs with `Accept: text/event-stream` under the API base. When the whole stream was read, the
 * response (status, headers, body text) is checked against the OpenAPI document like every other.
 */
export async function postEventStream(
  serverUrl: string,
  path: string,
  options: { key: string; body?: unknown; headers?: Record<string, string> },
): Promise<EventStreamResponse> {
  const controller = new AbortController();
  const response = await fetch(`${serverUrl}${API_BASE_PATH}${path}`, {
    method: 'POST',
    headers: { accept: 'text/event-stream', 'content-type': 'application/json', 'x-api-key': options.key, ...options.headers },
    body: JSON.stringify(options.body ?? {}),
    signal: controller.signal,
  });
  const isStream = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  let json: unknown;
  if (!isStream) {
    const text = await response.text();
    json = text === '' ? undefined : (JSON.parse(text) as unknown);
    validateAgainstOpenApi('POST', path, response.status, response.headers, json);
  }
  const body = response.body;
  async function* events(): AsyncGenerator<ReceivedEvent> {
    if (!isStream || body === null) return;
    let text = '';
    yield* parseEventStream(body, (part) => {
      text += part;
    });
    validateAgainstOpenApi('POST', path, response.status, response.headers, text);
  }
  return { status: response.status, headers: response.headers, json, events: events(), disconnect: () => controller.abort() };
}

/** Every event of the stream, read to its end. */
export async function collectEvents(response: EventStreamResponse): Promise<ReceivedEvent[]> {
  const received: ReceivedEvent[] = [];
  for await (const event of response.events) received.push(event);
  return received;
}
