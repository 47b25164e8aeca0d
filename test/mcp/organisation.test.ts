/**
 * The organisation tools over MCP give the answers REST gives, by the same core rule: the owner
 * with manage:organisation may; a member is refused ACCESS_DENIED; a BYOK key cannot be stored
 * through a tool (it would stay in the agent's transcript).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { connectInMemory, describeResult, resultText } from '../helpers/mcp-client.js';

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness({ backgroundWork: false });
});
afterAll(() => harness.close());

it("lists the organisation tools for the owner's key, never put_byok_key, and runs them", async () => {
  const { accountId } = await harness.createAccount();
  const { key } = await harness.createKey(accountId, { scopes: ['manage:organisation'] });
  const connection = await connectInMemory(harness, { key });
  try {
    const names = (await connection.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['get_organisation', 'update_organisation_policies', 'put_sanitiser_rule', 'revoke_byok_key']));
    expect(names).not.toContain('put_byok_key');
    const changed = await connection.client.callTool({ name: 'update_organisation_policies', arguments: { eu_only_models: true } });
    expect(changed.isError, describeResult(changed)).toBeFalsy();
    expect(changed.structuredContent).toMatchObject({ owner_account_id: accountId, policies: { eu_only_models: true } });
  } finally {
    await connection.close();
  }
});

it('refuses a member who is not the owner with an isError ACCESS_DENIED result', async () => {
  const { organisationId } = await harness.createAccount();
  const member = await harness.core.accounts.createAccount({ email: `mcp-member-${Date.now()}@example.com`, plan: 'expert', organisationId });
  const { key } = await harness.createKey(member.id, { scopes: ['manage:organisation'] });
  const connection = await connectInMemory(harness, { key });
  try {
    const refused = await connection.client.callTool({ name: 'get_organisation', arguments: {} });
    expect(refused.isError, describeResult(refused)).toBe(true);
    expect(resultText(refused)).toMatch(/^ACCESS_DENIED: Only the organisation's admin/);
  } finally {
    await connection.close();
  }
});
