/**
 * An OTLP/HTTP trace receiver on 127.0.0.1, as a collector would run it: it accepts the JSON
 * encoding the OTLP/HTTP exporter sends (POST /v1/traces) and keeps every span, flattened, with
 * its attributes decoded to plain values.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  /** The W3C tracestate the span carries; undefined when it has none. */
  traceState: string | undefined;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  statusCode: number;
  resource: Record<string, string | number | boolean>;
}

export interface OtlpReceiver {
  /** The base endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Every request body as received, for checks over the raw export. */
  bodies: string[];
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}

interface KeyValue {
  key: string;
  value: AnyValue;
}

interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        traceState?: string;
        name: string;
        kind: number;
        attributes?: KeyValue[];
        status?: { code?: number };
      }>;
    }>;
  }>;
}

function decode(attributes: readonly KeyValue[] | undefined): Record<string, string | number | boolean> {
  const decoded: Record<string, string | number | boolean> = {};
  for (const { key, value } of attributes ?? []) {
    if (value.stringValue !== undefined) decoded[key] = value.stringValue;
    else if (value.intValue !== undefined) decoded[key] = Number(value.intValue);
    else if (value.doubleValue !== undefined) decoded[key] = value.doubleValue;
    else if (value.boolValue !== undefined) decoded[key] = value.boolValue;
  }
  return decoded;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).includes('application/json')) {
        res.writeHead(415).end();
        return;
      }
      bodies.push(text);
      const request = JSON.parse(text) as ExportRequest;
      for (const resourceSpans of request.resourceSpans ?? []) {
        const resource = decode(resourceSpans.resource?.attributes);
        for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
          for (const span of scopeSpans.spans ?? []) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId === '' ? undefined : span.parentSpanId,
              traceState: span.traceState === '' ? undefined : span.traceState,
              name: span.name,
              kind: span.kind,
              attributes: decode(span.attributes),
              statusCode: span.status?.code ?? 0,
              resource,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
