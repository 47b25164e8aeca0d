/**
 * Storage contract: per-account quotas (items and bytes per kind) are checked in the transaction
 * that writes. A write over a quota writes nothing and says what the account would have held;
 * each account and each kind is counted apart; a write that shrinks always passes.
 */
import { expect, it } from 'vitest';
import { contextCardSizeBytes, skillSizeBytes } from '../../src/db/content-size.js';
import type { KindQuota } from '../../src/db/store.js';
import { describeEachEngine } from './engines.js';
import { compositionRecord, contextCardRecord, createAccount, skillRecord, UNBOUNDED_QUOTA, UNBOUNDED_QUOTAS, workflowRecord } from './fixtures.js';

describeEachEngine('content quotas', (engine, definition) => {
  it('refuses the card beyond the item quota, writes nothing, and names the count it would have made', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const quota: KindQuota = { maxItems: 2, maxBytes: 1_000_000 };
    for (let index = 0; index < 2; index += 1) expect(await store.contextCards.insert({ card: contextCardRecord(account.id), quota })).toEqual({ ok: true });
    const third = contextCardRecord(account.id);
    const outcome = await store.contextCards.insert({ card: third, quota });
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? null : outcome.excess).toMatchObject({ kind: 'contextCards', quota, items: 3 });
    expect(await store.contextCards.findOwned({ accountId: account.id, id: third.id })).toBeNull();
  });

  it('refuses the card whose text would take the account over the byte quota, counting the bytes of every stored field', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const first = contextCardRecord(account.id, { content: 'é'.repeat(100), tags: ['ünïcode'], description: 'd', emoji: '✍️' });
    const second = contextCardRecord(account.id, { content: 'x' });
    const quota: KindQuota = { maxItems: 100, maxBytes: contextCardSizeBytes(first) + contextCardSizeBytes(second) - 1 };
    expect(await store.contextCards.insert({ card: first, quota })).toEqual({ ok: true });
    const outcome = await store.contextCards.insert({ card: second, quota });
    expect(outcome.ok ? null : outcome.excess).toEqual({
      kind: 'contextCards',
      quota,
      items: 2,
      bytes: contextCardSizeBytes(first) + contextCardSizeBytes(second),
    });
    expect(await store.contextCards.insert({ card: second, quota: { ...quota, maxBytes: quota.maxBytes + 1 } }), 'exactly at the quota').toEqual({ ok: true });
  });

  it('refuses an update that grows the cards past the byte quota, and always lets one shrink them', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const card = contextCardRecord(account.id, { content: 'x'.repeat(100) });
    await store.contextCards.insert({ card, quota: UNBOUNDED_QUOTA });
    const quota: KindQuota = { maxItems: 10, maxBytes: contextCardSizeBytes(card) + 10 };
    const grown = await store.contextCards.update({ accountId: account.id, id: card.id, changes: { content: 'x'.repeat(111) }, quota });
    expect(grown).toMatchObject({ ok: false, excess: { kind: 'contextCards', items: 1, bytes: contextCardSizeBytes(card) + 11 } });
    expect((await store.contextCards.findOwned({ accountId: account.id, id: card.id }))?.content, 'the refused update wrote nothing').toBe(card.content);
    const lowered: KindQuota = { maxItems: 10, maxBytes: 10 };
    const shrunk = await store.contextCards.update({ accountId: account.id, id: card.id, changes: { content: 'x'.repeat(50) }, quota: lowered });
    expect(shrunk, 'an account over a lowered quota can still trim').toMatchObject({ ok: true, card: { content: 'x'.repeat(50) } });
    const retitled = await store.contextCards.update({ accountId: account.id, id: card.id, changes: { title: 'A much longer title than before' }, quota });
    expect(retitled, 'the size is of the card as changed, all fields counted').toMatchObject({ ok: true });
  });

  it('refuses a whole bundle when one kind would exceed its quota, counting what the account already holds', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const existing = skillRecord(account.id);
    const quotas = { ...UNBOUNDED_QUOTAS, skills: { maxItems: 2, maxBytes: 1_000_000 } };
    expect(await store.catalog.insertBundle({ records: { contextCards: [], compositions: [], skills: [existing], workflows: [] }, quotas })).toEqual({
      ok: true,
    });
    const records = {
      contextCards: [contextCardRecord(account.id)],
      compositions: [compositionRecord(account.id)],
      skills: [skillRecord(account.id), skillRecord(account.id)],
      workflows: [workflowRecord(account.id)],
    };
    const outcome = await store.catalog.insertBundle({ records, quotas });
    expect(outcome).toMatchObject({ ok: false, excess: { kind: 'skills', items: 3 } });
    expect(await store.catalog.exportAll(account.id)).toEqual({ contextCards: [], compositions: [], skills: [existing], workflows: [] });
    const bytes = skillSizeBytes(existing) + (records.skills[0] ? skillSizeBytes(records.skills[0]) : 0);
    const oneMore = await store.catalog.insertBundle({
      records: { ...records, skills: records.skills.slice(0, 1) },
      quotas: { ...quotas, skills: { maxItems: 2, maxBytes: bytes } },
    });
    expect(oneMore, 'exactly at both quotas').toEqual({ ok: true });
  });

  it("counts each account's content apart", async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const { account: other } = await createAccount(store);
    const quota: KindQuota = { maxItems: 1, maxBytes: 1_000_000 };
    expect(await store.contextCards.insert({ card: contextCardRecord(account.id), quota })).toEqual({ ok: true });
    expect(await store.contextCards.insert({ card: contextCardRecord(other.id), quota })).toEqual({ ok: true });
    const workflows = { ...UNBOUNDED_QUOTAS, workflows: quota };
    const records = { contextCards: [], compositions: [], skills: [] };
    expect(await store.catalog.insertBundle({ records: { ...records, workflows: [workflowRecord(account.id)] }, quotas: workflows })).toEqual({ ok: true });
    expect(await store.catalog.insertBundle({ records: { ...records, workflows: [workflowRecord(other.id)] }, quotas: workflows })).toEqual({ ok: true });
  });

  it.runIf(definition.shared)('lets concurrent inserts from two connections fill the item quota exactly, never past it', async () => {
    const opened = engine();
    const { account } = await createAccount(opened.store);
    const another = await opened.openAnother();
    const quota: KindQuota = { maxItems: 5, maxBytes: 1_000_000 };
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, index) => (index % 2 === 0 ? opened.store : another).contextCards.insert({ card: contextCardRecord(account.id), quota })),
    );
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(5);
    expect(await opened.store.contextCards.list({ accountId: account.id, page: {} })).toHaveLength(5);
  });
});
