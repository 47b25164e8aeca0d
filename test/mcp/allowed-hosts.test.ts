/** PORCH_ALLOWED_HOSTS: the MCP endpoint's Host allow-list is configurable (DNS rebinding guard). */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

let harness: Harness | undefined;
afterEach(() => harness?.close());

function postWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
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
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('MCP Host validation', () => {
  it('refuses an unknown Host by default and accepts one listed in PORCH_ALLOWED_HOSTS', async () => {
    harness = await createHarness();
    const refused = await postWithHost(harness.url, 'porch.example.com');
    expect(refused.status).toBe(403);
    // It names the setting, as the Origin refusal does (regression: "Invalid Host: porch.example.com" alone).
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Invalid Host: porch.example.com; add it to PORCH_ALLOWED_HOSTS if this server is meant to answer it.' },
      id: null,
    });
    await harness.close();
    harness = await createHarness({ env: { PORCH_ALLOWED_HOSTS: 'porch.example.com' } });
    expect((await postWithHost(harness.url, 'porch.example.com')).status).toBe(200);
  });
});
