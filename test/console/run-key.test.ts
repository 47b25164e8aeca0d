/**
 * Which key a run names: the key that started it, as usage grouped by key names it. Regression: a
 * run started in the console's playground named the console session's id as its key_id, an id no
 * list of keys holds, while usage grouped by key counted the same calls under null.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { signedInBrowser } from '../helpers/console-browser.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';

interface Run {
  id: string;
  key_id: string | null;
}

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness({ backgroundWork: false });
});
afterAll(async () => {
  await harness.close();
});

describe('a run’s key_id', () => {
  it('is null for a run started in the console, as usage grouped by key counts it, and the key’s id for a key’s run', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const ids = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids;
    const composition = ids['composition:release-notes'] ?? '';
    await browser.get(`/console/playground?resource=composition:${composition}`);
    const ran = await browser.post('/console/playground', {
      resource: `composition:${composition}`,
      selector: '',
      ...Object.fromEntries(Object.entries(RELEASE_VARIABLES).map(([name, value]) => [`var.${name}`, value])),
    });
    expect(ran.status, ran.html).toBe(200);
    const { key, id: keyId } = await harness.createKey(accountId, { scopes: ['read:usage', 'execute:composition'] });
    const byKey = await harness.api('POST', `/compositions/${composition}/execute`, { key, body: { variables: RELEASE_VARIABLES } });
    expect(byKey.status, describeResponse(byKey)).toBe(200);
    harness.clock.advance(1);

    const runs = await harness.api<{ items: Run[] }>('GET', '/runs', { key });
    expect(runs.status, describeResponse(runs)).toBe(200);
    expect(runs.body.data.items.map((run) => run.key_id).sort()).toEqual([keyId, null].sort());
    const usage = await harness.api<{ rows: Array<{ group: string | null; requests: number }> }>('GET', '/usage?group_by=key', { key });
    expect(usage.body.data.rows).toEqual([expect.objectContaining({ group: null, requests: 1 }), expect.objectContaining({ group: keyId, requests: 1 })]);
    const keys = await harness.api<{ items: Array<{ id: string }> }>('GET', '/keys', {
      key: (await harness.createKey(accountId, { scopes: ['manage:keys'] })).key,
    });
    const listed = new Set(keys.body.data.items.map((item) => item.id));
    for (const run of runs.body.data.items) if (run.key_id !== null) expect(listed.has(run.key_id), run.key_id).toBe(true);
  });
});
