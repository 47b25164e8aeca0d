/** PORCH_ALLOWED_HOSTS: the MCP endpoint's Host allow-list is configurable (DNS rebinding guard). */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

let harness: Harness | undefined;
afterEach(() => harness?.close());

function postWithHost(url: string, host: string): Promise<number> {
  const target = new URL('/api/public/mcp', url);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('MCP Host validation', () => {
  it('refuses an unknown Host by default and accepts one listed in PORCH_ALLOWED_HOSTS', async () => {
    harness = await createHarness();
    expect(await postWithHost(harness.url, 'porch.example.com')).toBe(403);
    await harness.close();
    harness = await createHarness({ env: { PORCH_ALLOWED_HOSTS: 'porch.example.com' } });
    expect(await postWithHost(harness.url, 'porch.example.com')).toBe(200);
  });
});
