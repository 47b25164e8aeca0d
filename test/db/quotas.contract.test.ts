/**
 * Storage contract: per-account quotas (items and bytes per kind) are checked in the transaction
 * that writes. A write over a quota writes nothing and says what the account would have held;
 * each account and each kind is counted apart; a write that shrinks always passes.
 */
import { expect, it } from 'vitest';
import { contextCardSizeBytes, skillSizeBytes } from '../../src/db/content-size.js';
import type { BundleRecords, ContentQuotas, ContextCardRecord, KindQuota, Store } from '../../src/db/store.js';
import { describeEachEngine } from './engines.js';
import { compositionRecord, contextCardRecord, createAccount, createsOf, skillRecord, UNBOUNDED_QUOTAS, workflowRecord, writeCatalog } from './fixtures.js';

/** Writes one card as a new resource, bounded by `quota` on cards. */
const insertCard = (store: Store, card: ContextCardRecord, quota: KindQuota) =>
  writeCatalog(store, card.accountId, { creates: [{ kind: 'contextCards', record: card }] }, { ...UNBOUNDED_QUOTAS, contextCards: quota });

/** Writes a whole bundle of one account's records as new resources. */
const insertBundle = (store: Store, accountId: string, records: Partial<BundleRecords>, quotas: ContentQuotas) =>
  writeCatalog(store, accountId, { creates: createsOf(records) }, quotas);

/** Changes a card's fields as its next version, bounded by `quota` on cards. */
const updateCard = (store: Store, card: ContextCardRecord, changes: Partial<ContextCardRecord>, quota: KindQuota, baseVersion: number) =>
  writeCatalog(
    store,
    card.accountId,
    { updates: [{ kind: 'contextCards', record: { ...card, ...changes, version: baseVersion + 1 }, baseVersion }] },
    { ...UNBOUNDED_QUOTAS, contextCards: quota },
  );

describeEachEngine('content quotas', (engine, definition) => {
  it('refuses the card beyond the item quota, writes nothing, and names the count it would have made', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const quota: KindQuota = { maxItems: 2, maxBytes: 1_000_000 };
    for (let index = 0; index < 2; index += 1) expect(await insertCard(store, contextCardRecord(account.id), quota)).toEqual({ ok: true });
    const third = contextCardRecord(account.id);
    const outcome = await insertCard(store, third, quota);
    expect(outcome).toMatchObject({ ok: false, excess: { kind: 'contextCards', quota, items: 3 } });
    expect(await store.contextCards.findOwned({ accountId: account.id, id: third.id })).toBeNull();
  });

  it('refuses the card whose text would take the account over the byte quota, counting the bytes of every stored field', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const first = contextCardRecord(account.id, { content: 'é'.repeat(100), tags: ['ünïcode'], description: 'd', emoji: '✍️' });
    const second = contextCardRecord(account.id, { content: 'x' });
    const quota: KindQuota = { maxItems: 100, maxBytes: contextCardSizeBytes(first) + contextCardSizeBytes(second) - 1 };
    expect(await insertCard(store, first, quota)).toEqual({ ok: true });
    const outcome = await insertCard(store, second, quota);
    expect(outcome).toEqual({
      ok: false,
      excess: { kind: 'contextCards', quota, items: 2, bytes: contextCardSizeBytes(first) + contextCardSizeBytes(second) },
    });
    expect(await insertCard(store, second, { ...quota, maxBytes: quota.maxBytes + 1 }), 'exactly at the quota').toEqual({ ok: true });
  });

  it('refuses an update that grows the cards past the byte quota, and always lets one shrink them', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const card = contextCardRecord(account.id, { content: 'x'.repeat(100) });
    await insertCard(store, card, UNBOUNDED_QUOTAS.contextCards);
    const quota: KindQuota = { maxItems: 10, maxBytes: contextCardSizeBytes(card) + 10 };
    const grown = await updateCard(store, card, { content: 'x'.repeat(111) }, quota, 1);
    expect(grown).toMatchObject({ ok: false, excess: { kind: 'contextCards', items: 1, bytes: contextCardSizeBytes(card) + 11 } });
    expect((await store.contextCards.findOwned({ accountId: account.id, id: card.id }))?.content, 'the refused update wrote nothing').toBe(card.content);
    const lowered: KindQuota = { maxItems: 10, maxBytes: 10 };
    const shrunk = await updateCard(store, card, { content: 'x'.repeat(50) }, lowered, 1);
    expect(shrunk, 'an account over a lowered quota can still trim').toEqual({ ok: true });
    const trimmed = { ...card, content: 'x'.repeat(50) };
    const retitled = await updateCard(store, trimmed, { title: 'A much longer title than before' }, quota, 2);
    expect(retitled, 'the size is of the card as changed, all fields counted').toMatchObject({ ok: true });
  });

  it('refuses a whole bundle when one kind would exceed its quota, counting what the account already holds', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const existing = skillRecord(account.id);
    const quotas = { ...UNBOUNDED_QUOTAS, skills: { maxItems: 2, maxBytes: 1_000_000 } };
    expect(await insertBundle(store, account.id, { skills: [existing] }, quotas)).toEqual({ ok: true });
    const records = {
      contextCards: [contextCardRecord(account.id)],
      compositions: [compositionRecord(account.id)],
      skills: [skillRecord(account.id), skillRecord(account.id)],
      workflows: [workflowRecord(account.id)],
    };
    const outcome = await insertBundle(store, account.id, records, quotas);
    expect(outcome).toMatchObject({ ok: false, excess: { kind: 'skills', items: 3 } });
    expect(await store.catalog.exportAll(account.id)).toEqual({ contextCards: [], compositions: [], skills: [existing], workflows: [] });
    const bytes = skillSizeBytes(existing) + (records.skills[0] ? skillSizeBytes(records.skills[0]) : 0);
    const oneMore = await insertBundle(
      store,
      account.id,
      { ...records, skills: records.skills.slice(0, 1) },
      { ...quotas, skills: { maxItems: 2, maxBytes: bytes } },
    );
    expect(oneMore, 'exactly at both quotas').toEqual({ ok: true });
  });

  it("counts each account's content apart", async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const { account: other } = await createAccount(store);
    const quota: KindQuota = { maxItems: 1, maxBytes: 1_000_000 };
    expect(await insertCard(store, contextCardRecord(account.id), quota)).toEqual({ ok: true });
    expect(await insertCard(store, contextCardRecord(other.id), quota)).toEqual({ ok: true });
    const workflows = { ...UNBOUNDED_QUOTAS, workflows: quota };
    expect(await insertBundle(store, account.id, { workflows: [workflowRecord(account.id)] }, workflows)).toEqual({ ok: true });
    expect(await insertBundle(store, other.id, { workflows: [workflowRecord(other.id)] }, workflows)).toEqual({ ok: true });
  });

  it.runIf(definition.shared)('lets concurrent inserts from two connections fill the item quota exactly, never past it', async () => {
    const opened = engine();
    const { account } = await createAccount(opened.store);
    const another = await opened.openAnother();
    const quota: KindQuota = { maxItems: 5, maxBytes: 1_000_000 };
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, index) => insertCard(index % 2 === 0 ? opened.store : another, contextCardRecord(account.id), quota)),
    );
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(5);
    expect(await opened.store.contextCards.list({ accountId: account.id, page: {} })).toHaveLength(5);
  });
});
