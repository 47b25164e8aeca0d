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
  insertCard,
  insertRecords,
  skillRecord,
  T0,
  UNBOUNDED_QUOTA,
  UNBOUNDED_QUOTAS,
  workflowRecord,
} from './fixtures.js';

describeEachEngine('owned content', (engine) => {
  it("another account's context card reads as absent and cannot be changed or deleted", async () => {
    const { store } = engine();
    const { account: owner } = await createAccount(store);
    const { account: other } = await createAccount(store);
    const card = contextCardRecord(owner.id);
    await insertCard(store, card);
    expect(await store.contextCards.findOwned({ accountId: owner.id, id: card.id })).toEqual(card);
    expect(await store.contextCards.findOwned({ accountId: other.id, id: card.id })).toBeNull();
    expect(await store.contextCards.update({ accountId: other.id, id: card.id, changes: { title: 'taken' }, quota: UNBOUNDED_QUOTA })).toBeNull();
    expect(await store.contextCards.delete({ accountId: other.id, id: card.id })).toBe(false);
    expect(await store.contextCards.findOwned({ accountId: owner.id, id: card.id })).toEqual(card);
  });

  it('updates and deletes an owned context card', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const card = contextCardRecord(account.id);
    await insertCard(store, card);
    const changes = { title: 'New title', tags: ['x', 'y'], category: 'persona', updatedAt: T0 + 1 };
    expect(await store.contextCards.update({ accountId: account.id, id: card.id, changes, quota: UNBOUNDED_QUOTA })).toEqual({
      ok: true,
      card: { ...card, ...changes },
    });
    expect(await store.contextCards.delete({ accountId: account.id, id: card.id })).toBe(true);
    expect(await store.contextCards.findOwned({ accountId: account.id, id: card.id })).toBeNull();
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
    expect(await store.catalog.findComposition({ accountId: account.id, id: composition.id })).toEqual(composition);
    expect(await store.catalog.findSkill({ accountId: account.id, id: skill.id })).toEqual(skill);
    expect(await store.catalog.findWorkflow({ accountId: account.id, id: workflow.id })).toEqual(workflow);
    expect(await store.catalog.findComposition({ accountId: other.id, id: composition.id })).toBeNull();
    expect(await store.catalog.findSkill({ accountId: other.id, id: skill.id })).toBeNull();
    expect(await store.catalog.findWorkflow({ accountId: other.id, id: workflow.id })).toBeNull();
    expect(await store.catalog.listCompositions({ accountId: other.id, page: {} })).toEqual([]);
    expect(await store.catalog.listSkills({ accountId: account.id, page: {} })).toEqual([skill]);
    expect(await store.catalog.listWorkflows({ accountId: account.id, page: { limit: 1 } })).toEqual([workflow]);
  });

  it('insertBundle writes all of a bundle, or nothing when one row fails', async () => {
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
    await expect(store.catalog.insertBundle({ records: failing, quotas: UNBOUNDED_QUOTAS })).rejects.toThrow();
    expect(await store.catalog.exportAll(account.id)).toEqual({ contextCards: [], compositions: [], skills: [], workflows: [] });
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
});
