/**
 * A CONFLICT tool result ends with the remedy of that conflict: one code covers an update made
 * from an old version and a key another resource already has, and each needs its own next step.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { connectInMemory, describeResult, resultText, type McpConnection } from '../helpers/mcp-client.js';

let harness: Harness;
let connection: McpConnection;
beforeEach(async () => {
  harness = await createHarness();
  const { key } = await harness.expertWithKey({ scopes: ['read:composition', 'write:composition'] });
  connection = await connectInMemory(harness, { key });
});
afterEach(async () => {
  await connection.close();
  await harness.close();
});

async function createComposition(key: string): Promise<string> {
  const created = await connection.client.callTool({ name: 'create_composition', arguments: { name: 'Notes', template: 'One {{topic}}.', key } });
  expect(created.isError, describeResult(created)).toBeFalsy();
  return String((created.structuredContent as { id: string }).id);
}

describe('conflict hints', () => {
  it('tells an update from an old version to read again and send the newest version, never to choose another key (regression)', async () => {
    const id = await createComposition('notes');
    const second = await connection.client.callTool({ name: 'update_composition', arguments: { id, template: 'Two {{topic}}.', expected_version: 1 } });
    expect(second.isError, describeResult(second)).toBeFalsy();
    const stale = await connection.client.callTool({ name: 'update_composition', arguments: { id, template: 'Made from one.', expected_version: 1 } });
    const text = resultText(stale);
    expect(stale.isError, text).toBe(true);
    expect(text).toMatch(/^CONFLICT: /);
    expect(text).toMatch(/send expected_version 2\.$/);
    expect(text).not.toContain('choose another key');
  });

  it('tells a create whose key is taken to choose another key', async () => {
    await createComposition('notes');
    const taken = await connection.client.callTool({ name: 'create_composition', arguments: { name: 'Other', template: 'Hi.', key: 'notes' } });
    const text = resultText(taken);
    expect(taken.isError, text).toBe(true);
    expect(text).toMatch(/^CONFLICT: key: another composition of this account already has the key "notes"\. Choose another key/);
  });
});
