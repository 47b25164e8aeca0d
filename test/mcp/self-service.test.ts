/**
 * Self-service through a real MCP client: the same operations as REST, with the same rules. A
 * key rotated with a grace period keeps working over MCP until it ends; a key cannot mint a
 * scope it lacks; usage and runs read back what an execution over MCP recorded.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import type { getUsage } from '../../src/operations/get-usage.js';
import type { listRuns } from '../../src/operations/list-runs.js';
import type { OperationOutput } from '../../src/operations/operation.js';
import type { rotateKey } from '../../src/operations/rotate-key.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { connectInMemory, describeResult, resultText } from '../helpers/mcp-client.js';

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness();
});
afterAll(() => harness.close());

async function callTool(key: string, name: string, args: Record<string, unknown> = {}) {
  const connection = await connectInMemory(harness, { key });
  try {
    return await connection.client.callTool({ name, arguments: args });
  } finally {
    await connection.close();
  }
}

it('rotates a key with a one-hour grace over MCP: both keys work until it ends, then the old one is refused', async () => {
  const { keyId, key } = await harness.expertWithKey({ scopes: ['manage:keys'] });
  const rotated = await callTool(key, 'rotate_key', { id: keyId, grace_seconds: 3600 });
  expect(rotated.isError, describeResult(rotated)).toBeFalsy();
  const { api_key: fresh, previous } = rotated.structuredContent as OperationOutput<typeof rotateKey>;
  expect(previous.status).toBe('active');
  harness.clock.advance(3_599_000);
  for (const candidate of [key, fresh]) expect((await callTool(candidate, 'list_keys')).isError).toBeFalsy();
  harness.clock.advance(1_000);
  expect(resultText(await callTool(key, 'list_keys'))).toMatch(/^INVALID_API_KEY: /);
  expect((await callTool(fresh, 'list_keys')).isError).toBeFalsy();
});

it('refuses to create a key with a scope the calling key lacks, naming it', async () => {
  const { key } = await harness.expertWithKey({ scopes: ['manage:keys'] });
  const result = await callTool(key, 'create_key', { scopes: ['manage:keys', 'api:judge'] });
  expect(result.isError, describeResult(result)).toBe(true);
  expect(resultText(result)).toMatch(/^INSUFFICIENT_PERMISSIONS: .*lacks: api:judge/);
});

it('reads back the usage and the run of an execution made over MCP', async () => {
  const { accountId, key } = await harness.expertWithKey({ scopes: ['read:usage', 'execute:persona'] });
  const personaId = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids['persona:plain-editor'] ?? '';
  expect((await callTool(key, 'execute_persona', { id: personaId, input: 'Utilise synergies.' })).isError).toBeFalsy();
  const usage = (await callTool(key, 'get_usage', { group_by: 'operation' })).structuredContent as OperationOutput<typeof getUsage>;
  const [row] = await harness.store.usage.listByAccount(accountId);
  expect(usage.rows).toEqual([
    {
      group: 'execute_persona',
      requests: 1,
      errors: 0,
      model_calls: 1,
      input_tokens: row?.inputTokens,
      output_tokens: row?.outputTokens,
      total_tokens: row?.totalTokens,
      credits_charged: (row?.chargedTokens ?? 0) / 1000,
    },
  ]);
  const runs = (await callTool(key, 'list_runs', { kind: 'persona' })).structuredContent as OperationOutput<typeof listRuns>;
  expect(runs.items).toMatchObject([{ kind: 'persona', resource_id: personaId, status: 'completed', token_usage: { total_tokens: row?.totalTokens } }]);
});
