/**
 * A key sent in a URL path (`GET /api/public/v1/context-cards/<the key>`, by mistake or to probe)
 * reaches neither the access log nor the request's span: the logs promise no key material.
 * Regression: the access line's `path` quoted the key in plain text.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { withoutKeys } from '../../src/logger.js';
import { accountHelpers } from '../helpers/core-harness.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';

let receiver: OtlpReceiver;
let server: RunningServer;
let key: string;
let partnerKey: string;
const lines: string[] = [];

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(line);
      done();
    },
  });
  const config = loadConfig({
    DATABASE_URL: ':memory:',
    PORT: '0',
    HOST: '127.0.0.1',
    PORCH_NO_BOOTSTRAP: '1',
    LOG_LEVEL: 'info',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
  });
  server = await startServer(config, { logDestination: destination, processMetrics: false });
  const helpers = accountHelpers(server.application.core);
  const owner = await helpers.expertWithKey();
  key = owner.key;
  partnerKey = (await server.application.core.accounts.createPartnerKey({ organisationId: owner.organisationId })).plaintext;
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});

describe('a key in the URL path', () => {
  it('is replaced by a marker in the access line and the span, whichever kind of key it is', async () => {
    const paths = [
      `/api/public/v1/context-cards/${key}`,
      `/api/public/v1/context-cards/${partnerKey}/more`,
      // Its underscore percent-encoded is the same key to a reader of the log.
      `/api/public/v1/workflows/${key.replace('_', '%5F')}`,
    ];
    for (const path of paths) {
      const response = await fetch(`${server.url}${path}`, { headers: { 'x-api-key': key } });
      await response.text();
    }
    await server.application.flushTraces();

    const secrets = [key, partnerKey, key.slice(4), partnerKey.slice(4)];
    const logged = lines.join('\n');
    for (const secret of secrets) expect(logged.includes(secret), `a key in the log:\n${logged}`).toBe(false);
    const accessPaths = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 'request')
      .map((line) => line.path);
    expect(accessPaths).toEqual([
      '/api/public/v1/context-cards/mdi_[redacted]',
      '/api/public/v1/context-cards/mpk_[redacted]/more',
      '/api/public/v1/workflows/mdi_[redacted]',
    ]);

    const spanPaths = receiver.spans.map((span) => span.attributes['url.path']).filter((path) => path !== undefined);
    expect(spanPaths).toHaveLength(paths.length);
    for (const secret of secrets) expect(JSON.stringify(spanPaths).includes(secret), JSON.stringify(spanPaths)).toBe(false);
  });

  it('leaves a path without a key as it was', () => {
    expect(withoutKeys('/api/public/v1/context-cards/0196a0c4-7e3a-7c1e-9b1d-2f6c8e4a5b10')).toBe(
      '/api/public/v1/context-cards/0196a0c4-7e3a-7c1e-9b1d-2f6c8e4a5b10',
    );
    expect(withoutKeys('/docs/rate_limits')).toBe('/docs/rate_limits');
  });
});
