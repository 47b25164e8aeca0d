/**
 * Spans that cannot reach the OTLP receiver: a receiver that fails is reported (a warning at most
 * once a minute, and the dropped spans counted), and one that hangs cannot hold up a stopping
 * process: the final flush gives up after its bound and says how many spans were lost.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TracingConfig } from '../../src/config.js';
import { createTracing } from '../../src/observability/tracing.js';

let servers: Server[] = [];
afterEach(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  servers = [];
});

/** A receiver that answers every export with `answer`, or never answers when it does nothing. */
async function receiver(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(req, res));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
}

function capture(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, destination), lines };
}

function configFor(endpoint: string): TracingConfig {
  return { endpoint, headers: {}, serviceName: 'porch', captureMessageContent: false, sampler: 'always_on', samplerRatio: 1 };
}

describe('an OTLP receiver that fails', () => {
  it('gets its dropped spans counted and one warning, not one per export (regression: silent)', async () => {
    const endpoint = await receiver((_req, res) => res.writeHead(500).end('collector broke'));
    const { logger, lines } = capture();
    let dropped = 0;
    // A collector behind credentials in its URL: they never reach the log (review).
    const withCredentials = endpoint.replace('http://', 'http://collector:s3cret-token@');
    const tracing = await createTracing(configFor(withCredentials), '2026-05-05', { logger, onSpansDropped: (spans) => (dropped += spans) });
    for (let round = 0; round < 3; round++) {
      tracing.tracer.startSpan(`round ${round}`).end();
      // A flush reports the failed export to its caller too.
      await expect(tracing.flush()).rejects.toThrow();
    }
    expect(dropped).toBe(3);
    const warnings = lines.filter((line) => Number(line.level) === 40);
    expect(warnings, JSON.stringify(lines)).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ spans: 1, endpoint });
    expect(JSON.stringify(lines)).not.toContain('collector broke');
    expect(JSON.stringify(lines)).not.toContain('s3cret-token');
    await tracing.shutdown();
  });
});

describe('the final flush with a receiver that hangs', () => {
  it('gives up after its bound and says how many spans were not sent (regression: a stop waited for the exporter’s 10 s timeout)', async () => {
    const endpoint = await receiver(() => undefined);
    const { logger, lines } = capture();
    let dropped = 0;
    const tracing = await createTracing(configFor(endpoint), '2026-05-05', { logger, onSpansDropped: (spans) => (dropped += spans) });
    for (let index = 0; index < 4; index++) tracing.tracer.startSpan(`span ${index}`).end();
    const started = performance.now();
    await tracing.shutdown(200);
    const tookMs = performance.now() - started;
    // Bounded well below the exporter's own 10 s timeout.
    expect(tookMs).toBeLessThan(2_000);
    expect(dropped).toBe(4);
    await vi.waitFor(() => expect(lines.find((line) => Number(line.level) === 40)).toMatchObject({ spans: 4, timeoutMs: 200 }));
  });
});
