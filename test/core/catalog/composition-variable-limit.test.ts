/**
 * A composition has at most 100 variables, its template's placeholders included, wherever it is
 * written: what a composition stores is what its `variables` accept, so its GET can be sent back
 * as a PATCH and its export imported (regression: a template of 150 placeholders was saved, and
 * then neither its PATCH nor the import of its export was accepted).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CompositionRecord } from '../../../src/db/store.js';
import { PorchError } from '../../../src/core/errors.js';
import { newId } from '../../../src/core/ids.js';
import { createCoreHarness, type CoreHarness } from '../../helpers/core-harness.js';
import { createHarness, describeResponse, type Harness } from '../../helpers/harness.js';
import { UNBOUNDED_QUOTAS, writeCatalog } from '../../db/fixtures.js';

/** A template of `count` distinct placeholders, {{v0}} to {{v<count - 1>}}. */
const placeholders = (count: number) => Array.from({ length: count }, (_, index) => `{{v${index}}}`).join(' ');

async function refusal(promise: Promise<unknown>): Promise<PorchError> {
  const error = await promise.then(
    () => new Error('expected a refusal'),
    (err: unknown) => err,
  );
  if (!(error instanceof PorchError)) throw error;
  return error;
}

describe('over REST', () => {
  let harness: Harness;
  let key: string;
  beforeEach(async () => {
    harness = await createHarness();
    ({ key } = await harness.expertWithKey());
  });
  afterEach(() => harness.close());

  it('refuses a create whose template has more than 100 distinct placeholders, at the template', async () => {
    const response = await harness.api('POST', '/compositions', { key, body: { name: 'ManyVars', template: placeholders(150) } });
    expect(response.status, describeResponse(response)).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.message).toBe('template: has 150 distinct placeholders; a composition may have at most 100 variables (one per placeholder)');
  });

  it('accepts 100 placeholders, and a PATCH of the variables as its GET returned them', async () => {
    const created = await harness.api<{ id: string }>('POST', '/compositions', { key, body: { name: 'Hundred', template: placeholders(100) } });
    expect(created.status, describeResponse(created)).toBe(201);
    const got = await harness.api<{ variables: Array<{ name: string; required: boolean; description?: string }> }>(
      'GET',
      `/compositions/${created.body.data.id}`,
      {
        key,
      },
    );
    expect(got.body.data.variables).toHaveLength(100);
    const variables = got.body.data.variables.map((variable, index) => (index === 0 ? { ...variable, description: 'The first' } : variable));
    const patched = await harness.api('PATCH', `/compositions/${created.body.data.id}`, { key, body: { variables } });
    expect(patched.status, describeResponse(patched)).toBe(200);
  });

  it('refuses an update whose new template brings the variables over 100, counting declared ones it does not use', async () => {
    const created = await harness.api<{ id: string }>('POST', '/compositions', {
      key,
      body: { name: 'Declared', template: 'Hi', variables: [{ name: 'tone', required: false, description: 'How to sound' }] },
    });
    expect(created.status, describeResponse(created)).toBe(201);
    const patched = await harness.api('PATCH', `/compositions/${created.body.data.id}`, { key, body: { template: placeholders(100) } });
    expect(patched.status, describeResponse(patched)).toBe(400);
    expect(patched.body.error.message).toBe(
      'template: has 100 distinct placeholders, which with the 1 declared variables it does not use make 101 variables; a composition may have at most 100',
    );
  });
});

describe('import and export', () => {
  let harness: CoreHarness;
  let accountId: string;
  beforeEach(async () => {
    harness = await createCoreHarness();
    ({ accountId } = await harness.createAccount());
  });
  afterEach(() => harness.close());

  it('refuses a bundle whose composition template has more than 100 placeholders, naming its path, and writes nothing', async () => {
    const error = await refusal(
      harness.core.bundles.importBundle(accountId, { compositions: [{ key: 'many', name: 'ManyVars', template: placeholders(101) }] }),
    );
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toBe(
      'Invalid bundle: compositions[0].template: has 101 distinct placeholders; a composition may have at most 100 variables (one per placeholder)',
    );
    expect((await harness.store.catalog.exportAll(accountId)).compositions).toEqual([]);
  });

  it('exports a composition of 100 placeholders that imports into a fresh account and exports back the same', async () => {
    await harness.core.lifecycle.create(null, 'composition', accountId, {
      name: 'Hundred',
      description: '',
      tags: [],
      template: placeholders(100),
      variables: [],
    });
    const exported = await harness.core.bundles.exportBundle(accountId);
    const fresh = await harness.createAccount();
    await harness.core.bundles.importBundle(fresh.accountId, exported);
    expect(await harness.core.bundles.exportBundle(fresh.accountId)).toEqual(exported);
  });

  it('names the limit and the way out for a composition stored over it before the limit was enforced', async () => {
    const now = harness.clock.now();
    const record: CompositionRecord = {
      id: newId(),
      accountId,
      name: 'Legacy',
      description: '',
      tags: [],
      template: placeholders(150),
      variables: Array.from({ length: 150 }, (_, index) => ({ name: `v${index}`, required: true })),
      defaultModel: null,
      timesUsed: 0,
      version: 1,
      bundleKey: 'legacy',
      createdAt: now,
      updatedAt: now,
    };
    const outcome = await writeCatalog(harness.store, accountId, { creates: [{ kind: 'compositions', record }], at: now }, UNBOUNDED_QUOTAS);
    expect(outcome.ok).toBe(true);

    const exported = await harness.core.bundles.exportBundle(accountId);
    const fresh = await harness.createAccount();
    const importError = await refusal(harness.core.bundles.importBundle(fresh.accountId, exported));
    expect(importError.message).toContain('compositions[0].variables: must have at most 100 variables');

    // A change that leaves its template and variables as they are is not refused for them (review:
    // a rename was refused at the template, a field it did not send).
    const renamed = await harness.core.lifecycle.update(null, 'composition', accountId, record.id, { name: 'Renamed' });
    expect(renamed).toMatchObject({ name: 'Renamed', version: 2 });
    const described = await refusal(
      harness.core.lifecycle.update(null, 'composition', accountId, record.id, { variables: [{ name: 'v0', required: true, description: 'first' }] }),
    );
    expect(described.message).toContain('at most 100 variables');

    // Cutting the template drops the variables only the old one implied, as any template change does.
    const cut = await harness.core.lifecycle.update(null, 'composition', accountId, record.id, { template: placeholders(10) });
    expect(cut.variables).toHaveLength(10);
    await harness.core.bundles.importBundle(fresh.accountId, await harness.core.bundles.exportBundle(accountId));
  });
});
