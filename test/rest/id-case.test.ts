/**
 * Ids are uuids, whose hex digits mean the same in either case (RFC 9562): every place a caller
 * sends one reads it as the lower-case id it is stored as, not only the `{id}` of a path
 * (regressions: an upper-case cursor answered an empty page, an upper-case filter no runs, an
 * upper-case X-Porch-Account 403 "not in this organisation", a node's upper-case id "no skill").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';

let harness: Harness;
let key: string;
let accountId: string;
let organisationId: string;
let ids: Record<string, string>;
beforeAll(async () => {
  harness = await createHarness();
  ({ key, accountId, organisationId } = await harness.expertWithKey());
  ({ ids } = await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE));
});
afterAll(() => harness.close());

const upper = (id: string) => id.toUpperCase();

describe('an id sent in upper case', () => {
  it('pages a list from an upper-case cursor as from the cursor', async () => {
    for (let index = 0; index < 3; index++) await harness.api('POST', '/context-cards', { key, body: { title: `Card ${index}`, content: 'x' } });
    const first = await harness.api<{ next_cursor: string }>('GET', '/context-cards?limit=1', { key });
    const cursor = first.body.data.next_cursor;
    const lower = await harness.api<{ items: Array<{ id: string }> }>('GET', `/context-cards?limit=2&cursor=${cursor}`, { key });
    const shouted = await harness.api<{ items: Array<{ id: string }> }>('GET', `/context-cards?limit=2&cursor=${upper(cursor)}`, { key });
    expect(shouted.status, describeResponse(shouted)).toBe(200);
    expect(lower.body.data.items).toHaveLength(2);
    expect(shouted.body.data.items).toEqual(lower.body.data.items);
  });

  it('filters runs by an upper-case resource_id', async () => {
    const compositionId = ids['composition:release-notes'] ?? '';
    const executed = await harness.api('POST', `/compositions/${compositionId}/execute`, { key, body: { variables: RELEASE_VARIABLES } });
    expect(executed.status, describeResponse(executed)).toBe(200);
    const runs = await harness.api<{ count: number }>('GET', `/runs?resource_id=${upper(compositionId)}`, { key });
    expect(runs.body.data.count).toBe(1);
  });

  it('lets a partner key act for an account named in upper case', async () => {
    const partner = await harness.core.accounts.createPartnerKey({ organisationId, scopes: ['api:context-cards'] });
    const acting = await harness.api('GET', '/context-cards', { key: partner.plaintext, headers: { 'x-porch-account': upper(accountId) } });
    expect(acting.status, describeResponse(acting)).toBe(200);
  });

  it('resolves a workflow node naming a skill by its upper-case id, storing the id as it is', async () => {
    const skillId = ids['skill:summarise'] ?? '';
    const created = await harness.api<{ nodes: Array<{ skill?: string }> }>('POST', '/workflows', {
      key,
      body: { name: 'Shouted', nodes: [{ id: 'a', kind: 'skill', skill: upper(skillId), input: 'Some text.' }] },
    });
    expect(created.status, describeResponse(created)).toBe(201);
    expect(created.body.data.nodes[0]?.skill).toBe(skillId);
  });

  it('names where an unknown reference was looked for: the account, over REST (regression: "the bundle or the account")', async () => {
    const refused = await harness.api('POST', '/workflows', {
      key,
      body: { name: 'Unknown', nodes: [{ id: 'a', kind: 'skill', skill: 'no-such-skill', input: 'x' }] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('nodes[0].skill: no skill "no-such-skill" in the account');
  });
});
