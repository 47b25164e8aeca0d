/**
 * Storage contract: what accounts own (context cards, catalog, BYOK keys; runs in runs.contract.test.ts) and the
 * organisation's sanitiser rules. Another account's id reads as absent; a bundle is written whole
 * or not at all; a new BYOK key replaces the active one; every rule change bumps the version.
 */
import { expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import type { SanitiserRuleRecord } from '../../src/db/store.js';
import { describeEachEngine } from './engines.js';
import {
  byokKeyRecord,
  compositionRecord,
  contextCardRecord,
  createAccount,
  createsOf,
  insertCard,
  insertRecords,
  skillRecord,
  T0,
  workflowRecord,
  writeCatalog,
} from './fixtures.js';

describeEachEngine('owned content', (engine) => {
  it("another account's context card reads as absent and cannot be changed or deleted", async () => {
    const { store } = engine();
    const { account: owner } = await createAccount(store);
    const { account: other } = await createAccount(store);
    const card = contextCardRecord(owner.id);
    await insertCard(store, card);
    expect(await store.contextCards.findOwned({ accountId: owner.id, id: card.id })).toEqual({ ...card, productionVersion: null });
    expect(await store.contextCards.findOwned({ accountId: other.id, id: card.id })).toBeNull();
    const taken = { ...card, accountId: other.id, title: 'taken', version: 2 };
    expect(await writeCatalog(store, other.id, { updates: [{ kind: 'contextCards', record: taken, baseVersion: 1 }] })).toEqual({
      ok: false,
      stale: { kind: 'contextCards', id: card.id, version: null },
    });
    expect(await writeCatalog(store, other.id, { deletes: [{ kind: 'contextCards', id: card.id }] })).toMatchObject({ ok: false });
    expect(await store.contextCards.findOwned({ accountId: owner.id, id: card.id })).toEqual({ ...card, productionVersion: null });
  });

  it('updates an owned card as a new version and deletes it, keeping its versions marked deleted', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const card = contextCardRecord(account.id);
    await insertCard(store, card);
    const changed = { ...card, title: 'New title', tags: ['x', 'y'], category: 'persona', version: 2, updatedAt: T0 + 1 };
    expect(await writeCatalog(store, account.id, { updates: [{ kind: 'contextCards', record: changed, baseVersion: 1 }], at: T0 + 1 })).toEqual({ ok: true });
    expect(await store.contextCards.findOwned({ accountId: account.id, id: card.id })).toEqual({ ...changed, productionVersion: null });
    const versions = await store.catalog.listVersions({ accountId: account.id, id: card.id, page: {} });
    expect(versions.map((version) => [version.version, version.content.title, version.createdAt])).toEqual([
      [2, 'New title', T0 + 1],
      [1, card.title, T0],
    ]);
    expect(await writeCatalog(store, account.id, { deletes: [{ kind: 'contextCards', id: card.id }], at: T0 + 2 })).toEqual({ ok: true });
    expect(await store.contextCards.findOwned({ accountId: account.id, id: card.id })).toBeNull();
    const kept = await store.catalog.listVersions({ accountId: account.id, id: card.id, page: {} });
    expect(kept.map((version) => version.deletedAt)).toEqual([T0 + 2, T0 + 2]);
    expect(await store.catalog.pruneDeletedVersions(T0 + 1)).toBe(0);
    expect(await store.catalog.pruneDeletedVersions(T0 + 2)).toBe(2);
    expect(await store.catalog.listVersions({ accountId: account.id, id: card.id, page: {} })).toEqual([]);
  });

  it('lists context cards newest first, by category when asked, a page at a time after a cursor', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const { account: other } = await createAccount(store);
    const cards = [
      contextCardRecord(account.id),
      contextCardRecord(account.id, { category: 'persona' }),
      contextCardRecord(account.id),
      contextCardRecord(account.id, { category: 'persona' }),
    ];
    for (const card of [...cards, contextCardRecord(other.id)]) await insertCard(store, card);
    const newestFirst = [...cards].reverse();
    expect(await store.contextCards.list({ accountId: account.id, page: {} })).toEqual(newestFirst);
    expect(await store.contextCards.list({ accountId: account.id, page: {}, category: 'persona' })).toEqual(
      newestFirst.filter((card) => card.category === 'persona'),
    );
    const first = await store.contextCards.list({ accountId: account.id, page: { limit: 2 } });
    expect(first).toEqual(newestFirst.slice(0, 2));
    expect(await store.contextCards.list({ accountId: account.id, page: { limit: 2, cursor: first[1]?.id ?? '' } })).toEqual(newestFirst.slice(2));
  });

  it('finds and lists catalog items for their owner only', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const { account: other } = await createAccount(store);
    const composition = compositionRecord(account.id);
    const skill = skillRecord(account.id);
    const workflow = workflowRecord(account.id, { definition: { nodes: [{ id: 'a', kind: 'model' }], outputs: { a: 'a' } } });
    await insertRecords(store, { compositions: [composition], skills: [skill], workflows: [workflow] });
    expect(await store.catalog.findComposition({ accountId: account.id, id: composition.id })).toEqual({ ...composition, productionVersion: null });
    expect(await store.catalog.findSkill({ accountId: account.id, id: skill.id })).toEqual({ ...skill, productionVersion: null });
    expect(await store.catalog.findWorkflow({ accountId: account.id, id: workflow.id })).toEqual({ ...workflow, productionVersion: null });
    expect(await store.catalog.findComposition({ accountId: other.id, id: composition.id })).toBeNull();
    expect(await store.catalog.findSkill({ accountId: other.id, id: skill.id })).toBeNull();
    expect(await store.catalog.findWorkflow({ accountId: other.id, id: workflow.id })).toBeNull();
    expect(await store.catalog.listCompositions({ accountId: other.id, page: {} })).toEqual([]);
    expect(await store.catalog.listSkills({ accountId: account.id, page: {} })).toEqual([skill]);
    expect(await store.catalog.listWorkflows({ accountId: account.id, page: { limit: 1 } })).toEqual([workflow]);
  });

  it('a catalog write lands whole, or not at all when one row fails', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const duplicateId = newId();
    const failing = {
      contextCards: [contextCardRecord(account.id)],
      compositions: [compositionRecord(account.id)],
      skills: [skillRecord(account.id)],
      // The second workflow reuses the first one's id, so the last row written fails.
      workflows: [workflowRecord(account.id, { id: duplicateId }), workflowRecord(account.id, { id: duplicateId })],
    };
    await expect(writeCatalog(store, account.id, { creates: createsOf(failing) })).rejects.toThrow();
    expect(await store.catalog.exportAll(account.id)).toEqual({ contextCards: [], compositions: [], skills: [], workflows: [] });
  });

  it('refuses a stale update, and each of two writers of one version gets its own outcome', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const composition = compositionRecord(account.id);
    await insertRecords(store, { compositions: [composition] });
    const edit = (template: string) => ({ kind: 'compositions' as const, record: { ...composition, template, version: 2 }, baseVersion: 1 });
    const outcomes = await Promise.all([writeCatalog(store, account.id, { updates: [edit('A')] }), writeCatalog(store, account.id, { updates: [edit('B')] })]);
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
    expect(outcomes.find((outcome) => !outcome.ok)).toEqual({ ok: false, stale: { kind: 'compositions', id: composition.id, version: 2 } });
    const versions = await store.catalog.listVersions({ accountId: account.id, id: composition.id, page: {} });
    expect(versions.map((version) => version.version)).toEqual([2, 1]);
    const found = await store.catalog.findComposition({ accountId: account.id, id: composition.id });
    expect(found?.template).toBe(versions[0]?.content.template);
    expect(found?.timesUsed).toBe(0);
  });

  it('keeps bundle keys unique per account and kind, and finds a resource by its key', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const { account: other } = await createAccount(store);
    const skill = skillRecord(account.id, { bundleKey: 'triage' });
    await insertRecords(store, { skills: [skill], compositions: [compositionRecord(account.id, { bundleKey: 'triage' })] });
    await insertRecords(store, { skills: [skillRecord(other.id, { bundleKey: 'triage' })] });
    expect(await store.catalog.findIdByKey({ accountId: account.id, kind: 'skills', key: 'triage' })).toBe(skill.id);
    expect(await store.catalog.findIdByKey({ accountId: account.id, kind: 'workflows', key: 'triage' })).toBeNull();
    const again = skillRecord(account.id, { bundleKey: 'triage' });
    expect(await writeCatalog(store, account.id, { creates: createsOf({ skills: [again] }) })).toEqual({
      ok: false,
      keyTaken: { kind: 'skills', key: 'triage' },
    });
    // Deleting the holder in the same write frees the key.
    expect(await writeCatalog(store, account.id, { creates: createsOf({ skills: [again] }), deletes: [{ kind: 'skills', id: skill.id }] })).toEqual({
      ok: true,
    });
    expect(await store.catalog.findIdByKey({ accountId: account.id, kind: 'skills', key: 'triage' })).toBe(again.id);
  });

  it('gives a resource without a key the key a write names, with no new version, unless another holds it or the resource moved on', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const keyless = skillRecord(account.id, { bundleKey: null });
    const holder = skillRecord(account.id, { bundleKey: 'triage' });
    await insertRecords(store, { skills: [keyless, holder] });
    const adopt = (key: string, baseVersion = 1) => writeCatalog(store, account.id, { keys: [{ kind: 'skills', id: keyless.id, key, baseVersion }] });
    expect(await adopt('triage')).toEqual({ ok: false, keyTaken: { kind: 'skills', key: 'triage' } });
    expect(await adopt('summarise', 2)).toEqual({ ok: false, stale: { kind: 'skills', id: keyless.id, version: 1 } });
    expect(await adopt('summarise')).toEqual({ ok: true });
    expect(await store.catalog.findIdByKey({ accountId: account.id, kind: 'skills', key: 'summarise' })).toBe(keyless.id);
    expect((await store.catalog.findSkill({ accountId: account.id, id: keyless.id }))?.version).toBe(1);
    expect(await store.catalog.listVersions({ accountId: account.id, id: keyless.id, page: {} })).toHaveLength(1);
    // An update made from a read before the adoption (its key null) keeps the key (regression: it was lost).
    const staleRead = { ...keyless, bundleKey: null, instructions: 'Newer instructions.', version: 2 };
    expect(await writeCatalog(store, account.id, { updates: [{ kind: 'skills', record: staleRead, baseVersion: 1 }] })).toEqual({ ok: true });
    expect(await store.catalog.findSkill({ accountId: account.id, id: keyless.id })).toMatchObject({ bundleKey: 'summarise', version: 2 });
  });

  it('labels name existing versions of the owner’s live resources, and a find reads the production label', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const { account: other } = await createAccount(store);
    const workflow = workflowRecord(account.id);
    await insertRecords(store, { workflows: [workflow] });
    await writeCatalog(store, account.id, { updates: [{ kind: 'workflows', record: { ...workflow, name: 'v2', version: 2 }, baseVersion: 1 }] });
    const label = { accountId: account.id, id: workflow.id, kind: 'workflows' as const, at: T0 + 5 };
    expect(await store.catalog.setLabel({ ...label, label: 'production', version: 3 })).toBe('no_version');
    expect(await store.catalog.setLabel({ ...label, accountId: other.id, label: 'production', version: 1 })).toBe('no_resource');
    expect(await store.catalog.setLabel({ ...label, label: 'production', version: 1 })).toBe('set');
    expect(await store.catalog.setLabel({ ...label, label: 'staging', version: 2 })).toBe('set');
    expect((await store.catalog.findWorkflow({ accountId: account.id, id: workflow.id }))?.productionVersion).toBe(1);
    expect(await store.catalog.setLabel({ ...label, label: 'production', version: 2 })).toBe('set');
    expect((await store.catalog.findWorkflow({ accountId: account.id, id: workflow.id }))?.productionVersion).toBe(2);
    expect(await store.catalog.listLabels({ accountId: account.id, id: workflow.id })).toEqual([
      { resourceId: workflow.id, label: 'production', version: 2, updatedAt: T0 + 5 },
      { resourceId: workflow.id, label: 'staging', version: 2, updatedAt: T0 + 5 },
    ]);
    expect(await store.catalog.listLabels({ accountId: other.id, id: workflow.id })).toEqual([]);
    expect(await store.catalog.removeLabel({ accountId: other.id, id: workflow.id, label: 'staging' })).toBe(false);
    expect(await store.catalog.removeLabel({ accountId: account.id, id: workflow.id, label: 'staging' })).toBe(true);
    expect((await store.catalog.findVersion({ accountId: account.id, id: workflow.id, version: 1 }))?.content.name).toBe(workflow.name);
    expect(await store.catalog.findVersion({ accountId: other.id, id: workflow.id, version: 1 })).toBeNull();
    const page = await store.catalog.listVersions({ accountId: account.id, id: workflow.id, page: { limit: 1 } });
    expect(page.map((version) => version.version)).toEqual([2]);
    expect((await store.catalog.listVersions({ accountId: account.id, id: workflow.id, page: { limit: 1, cursor: '2' } })).map((v) => v.version)).toEqual([1]);
    // Deleting the resource removes its labels.
    await writeCatalog(store, account.id, { deletes: [{ kind: 'workflows', id: workflow.id }] });
    expect(await store.catalog.listLabels({ accountId: account.id, id: workflow.id })).toEqual([]);
  });

  it('exportAll returns everything an account owns, oldest first', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const { account: other } = await createAccount(store);
    const bundle = {
      contextCards: [contextCardRecord(account.id), contextCardRecord(account.id, { category: 'persona' })],
      compositions: [compositionRecord(account.id), compositionRecord(account.id)],
      skills: [skillRecord(account.id)],
      workflows: [workflowRecord(account.id)],
    };
    await insertRecords(store, bundle);
    await insertRecords(store, { contextCards: [contextCardRecord(other.id)], skills: [skillRecord(other.id)] });
    expect(await store.catalog.exportAll(account.id)).toEqual(bundle);
  });

  it('counts each use of a composition and a workflow', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const composition = compositionRecord(account.id);
    const workflow = workflowRecord(account.id);
    await insertRecords(store, { compositions: [composition], workflows: [workflow] });
    await Promise.all([
      store.catalog.incrementCompositionUse(composition.id),
      store.catalog.incrementCompositionUse(composition.id),
      store.catalog.incrementWorkflowUse(workflow.id),
    ]);
    expect((await store.catalog.findComposition({ accountId: account.id, id: composition.id }))?.timesUsed).toBe(2);
    expect((await store.catalog.findWorkflow({ accountId: account.id, id: workflow.id }))?.usageCount).toBe(1);
  });

  it('putting a BYOK key revokes the active key of the same owner and provider, and no other', async () => {
    const { store } = engine();
    const { account, organisation } = await createAccount(store);
    const owner = { accountId: account.id };
    const first = byokKeyRecord(owner);
    const otherProvider = byokKeyRecord(owner, { provider: 'mistral' });
    const organisationKey = byokKeyRecord({ organisationId: organisation.id });
    for (const record of [first, otherProvider, organisationKey]) await store.byokKeys.put(record);
    const second = byokKeyRecord(owner, { createdAt: T0 + 5 });
    await store.byokKeys.put(second);
    expect(await store.byokKeys.findActive({ owner, provider: 'openai' })).toEqual(second);
    const listed = await store.byokKeys.list(owner);
    expect(listed.find((record) => record.id === first.id)?.revokedAt).toBe(T0 + 5);
    expect(listed.find((record) => record.id === otherProvider.id)?.revokedAt).toBeNull();
    expect(await store.byokKeys.findActive({ owner: { organisationId: organisation.id }, provider: 'openai' })).toEqual(organisationKey);
  });

  it('a revoked BYOK key is no longer active at once', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const owner = { accountId: account.id };
    const key = byokKeyRecord(owner);
    await store.byokKeys.put(key);
    expect(await store.byokKeys.revoke({ id: key.id, at: T0 + 1 })).toEqual({ ...key, revokedAt: T0 + 1 });
    expect(await store.byokKeys.findActive({ owner, provider: 'openai' })).toBeNull();
    expect(await store.byokKeys.revoke({ id: newId(), at: T0 })).toBeNull();
  });

  it('every sanitiser rule change bumps the organisation rules version', async () => {
    const { store } = engine();
    const { organisation } = await createAccount(store);
    const rule = (ruleId: string, definition: unknown, at = T0): SanitiserRuleRecord => ({
      id: newId(),
      organisationId: organisation.id,
      ruleId,
      kind: 'custom',
      definition,
      createdAt: at,
      updatedAt: at,
    });
    expect(await store.sanitiserRules.version(organisation.id)).toBe(0);
    await store.sanitiserRules.upsert(rule('custom.a', { pattern: 'a' }));
    await store.sanitiserRules.upsert(rule('custom.b', { pattern: 'b' }));
    expect(await store.sanitiserRules.version(organisation.id)).toBe(2);
    await store.sanitiserRules.upsert({ ...rule('custom.a', { pattern: 'a2' }, T0 + 1), kind: 'override' });
    expect(await store.sanitiserRules.version(organisation.id)).toBe(3);
    const listed = await store.sanitiserRules.list(organisation.id);
    expect(listed.map((record) => [record.ruleId, record.kind, record.definition, record.updatedAt])).toEqual([
      ['custom.a', 'override', { pattern: 'a2' }, T0 + 1],
      ['custom.b', 'custom', { pattern: 'b' }, T0],
    ]);
    expect(await store.sanitiserRules.remove({ organisationId: organisation.id, ruleId: 'custom.b' })).toBe(true);
    expect(await store.sanitiserRules.version(organisation.id)).toBe(4);
    expect(await store.sanitiserRules.remove({ organisationId: organisation.id, ruleId: 'custom.b' }), 'removing a missing rule').toBe(false);
    expect(await store.sanitiserRules.version(organisation.id), 'a change that changed nothing keeps the version').toBe(4);
    expect(await store.sanitiserRules.version(newId()), 'an unknown organisation').toBe(0);
  });

  it('writes a sanitiser rule against an expected rules version only while that version stands', async () => {
    const { store } = engine();
    const { organisation } = await createAccount(store);
    const rule = (ruleId: string): SanitiserRuleRecord => ({
      id: newId(),
      organisationId: organisation.id,
      ruleId,
      kind: 'custom',
      definition: { pattern: ruleId },
      createdAt: T0,
      updatedAt: T0,
    });
    expect(await store.sanitiserRules.upsert(rule('custom.a'), 0)).toBe(true);
    expect(await store.sanitiserRules.upsert(rule('custom.b'), 0), 'checked against a version another write replaced').toBe(false);
    expect(await store.sanitiserRules.version(organisation.id)).toBe(1);
    expect((await store.sanitiserRules.list(organisation.id)).map((record) => record.ruleId)).toEqual(['custom.a']);
    expect(await store.sanitiserRules.upsert(rule('custom.b'), 1)).toBe(true);
    expect(await store.sanitiserRules.upsert(rule('custom.c')), 'without an expected version').toBe(true);
    expect(await store.sanitiserRules.version(organisation.id)).toBe(3);
  });
});
