/**
 * Behind a proxy Porch does not trust, every client has the proxy's address, so the per-address
 * limits (sign-in, OAuth registration) count them all as one. Nothing else shows it: a request
 * carrying X-Forwarded-For while PORCH_TRUSTED_PROXIES is unset is logged as a warning naming
 * the setting, once per process.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type RunningServer, startServer } from '../../src/main.js';

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server logging at info into lines this test reads. */
async function startLogged(env: Record<string, string> = {}) {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const config = loadConfig({ DATABASE_URL: ':memory:', PORT: '0', HOST: '127.0.0.1', PORCH_NO_BOOTSTRAP: '1', LOG_LEVEL: 'info', ...env });
  server = await startServer(config, { logDestination: destination, processMetrics: false, backgroundWork: false });
  const warnings = () => lines.filter((line) => line.level === 40 && String(line.msg).includes('X-Forwarded-For'));
  return { server, warnings };
}

async function get(on: RunningServer, path: string, headers: Record<string, string> = {}): Promise<void> {
  const response = await fetch(`${on.url}${path}`, { headers });
  await response.text();
}

describe('X-Forwarded-For without PORCH_TRUSTED_PROXIES', () => {
  it('is logged once, naming the setting (regression: every client behind the proxy shared one limit, silently)', async () => {
    const { server: running, warnings } = await startLogged();
    await get(running, '/console/sign-in');
    expect(warnings()).toEqual([]);
    await get(running, '/console/sign-in', { 'x-forwarded-for': '203.0.113.7' });
    await get(running, '/api/public/v1/health', { 'x-forwarded-for': '203.0.113.8' });
    const logged = warnings();
    expect(logged, JSON.stringify(logged)).toHaveLength(1);
    expect(String(logged[0]?.msg)).toContain('PORCH_TRUSTED_PROXIES');
  });

  it('is not logged when a proxy is trusted', async () => {
    const { server: running, warnings } = await startLogged({ PORCH_TRUSTED_PROXIES: 'loopback' });
    await get(running, '/console/sign-in', { 'x-forwarded-for': '203.0.113.7' });
    expect(warnings()).toEqual([]);
  });
});
