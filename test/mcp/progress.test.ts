/**
 * MCP progress notifications, with a real MCP client over Streamable HTTP: a tool call that sends
 * `_meta.progressToken` hears of each finished workflow node and of a model answer as it grows;
 * a call without one is answered exactly as before (one JSON response, no notifications).
 */
import type { Progress } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { PROGRESS_CHARACTERS_STEP } from '../../src/mcp/progress.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { connectHttp, describeResult, mcpUrl, type McpConnection } from '../helpers/mcp-client.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';

let harness: Harness;
let connection: McpConnection;
let key: string;
let ids: Record<string, string>;

beforeEach(async () => {
  harness = await createHarness();
  let accountId: string;
  ({ key, accountId } = await harness.expertWithKey());
  ids = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids;
  connection = await connectHttp(harness, { key });
});
afterEach(async () => {
  await connection.close();
  await harness.close();
});

describe('progress notifications', () => {
  it('reports each finished workflow node: progress = nodes finished, total = nodes, message = node id', async () => {
    const received: Progress[] = [];
    const result = await connection.client.callTool(
      { name: 'execute_workflow', arguments: { id: ids['workflow:release-announcement'], variables: RELEASE_VARIABLES } },
      { onprogress: (progress: Progress) => received.push(progress) },
    );
    expect(result.isError, describeResult(result)).toBeFalsy();
    expect(received).toEqual([
      { progress: 1, total: 4, message: 'draft' },
      { progress: 2, total: 4, message: 'summary' },
      { progress: 3, total: 4, message: 'plain' },
      { progress: 4, total: 4, message: 'scan' },
    ]);
  });

  it('reports a single model call as its answer grows, in steps of characters', async () => {
    const input = Array.from({ length: 120 }, (_, index) => `word${index}`).join(' ');
    const received: Progress[] = [];
    const result = await connection.client.callTool(
      { name: 'execute_persona', arguments: { id: ids['persona:plain-editor'], input } },
      {
        onprogress: (progress: Progress) => received.push(progress),
      },
    );
    expect(result.isError, describeResult(result)).toBeFalsy();
    expect(received.length).toBeGreaterThanOrEqual(Math.floor(input.length / PROGRESS_CHARACTERS_STEP));
    const values = received.map((progress) => progress.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
    expect(values.at(-1)).toBeLessThanOrEqual(input.length);
    expect((result.structuredContent as { content?: string } | undefined)?.content).toBe(input);
  });

  it('answers a tool call without a progress token as one JSON response, and one with a token as an event stream', async () => {
    const call = (meta: Record<string, unknown>) =>
      fetch(mcpUrl(harness), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'execute_persona', arguments: { id: ids['persona:plain-editor'], input: 'hello there' }, _meta: meta },
        }),
      });
    const plain = await call({});
    expect(plain.headers.get('content-type')).toContain('application/json');
    expect(await plain.text()).not.toContain('notifications/progress');

    const withToken = await call({ progressToken: 'p-1' });
    expect(withToken.headers.get('content-type')).toContain('text/event-stream');
    const text = await withToken.text();
    expect(text).toContain('"method":"notifications/progress"');
    expect(text).toContain('"progressToken":"p-1"');
    expect(text).toContain('"id":7');
  });
});
