/**
 * Storage contract: organisations, accounts, API keys and partner keys. Creation is all or
 * nothing, the active-key limit holds under concurrency, and a revocation is visible at once.
 */
import { expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import type { PartnerKeyRecord } from '../../src/db/store.js';
import { describeEachEngine } from './engines.js';
import { accountRecord, apiKeyRecord, createAccount, DAY_MS, organisationRecord, T0 } from './fixtures.js';

describeEachEngine('accounts and keys', (engine, definition) => {
  it('creates an account with its organisation, balance and grant in one step', async () => {
    const { store } = engine();
    const organisation = organisationRecord();
    const account = accountRecord(organisation.id, { name: 'Ada', plan: 'builder' });
    const grantEntryId = newId();
    await store.accounts.create({ account, organisation, initialTokens: 2_000, grantEntryId });
    expect(await store.accounts.findById(account.id)).toEqual(account);
    expect(await store.organisations.findById(organisation.id)).toEqual(organisation);
    expect(await store.credits.balance(account.id)).toEqual({ balanceTokens: 2_000, reservedTokens: 0 });
    expect(await store.credits.ledger(account.id)).toEqual([
      { id: grantEntryId, accountId: account.id, kind: 'grant', deltaTokens: 2_000, balanceAfterTokens: 2_000, reference: 'account created', createdAt: T0 },
    ]);
  });

  it('an account that cannot be written leaves no organisation, balance or grant behind', async () => {
    const { store } = engine();
    const { account: existing } = await createAccount(store);
    const organisation = organisationRecord();
    const duplicate = accountRecord(organisation.id, { email: existing.email });
    await expect(store.accounts.create({ account: duplicate, organisation, initialTokens: 1_000, grantEntryId: newId() })).rejects.toThrow();
    expect(await store.organisations.findById(organisation.id)).toBeNull();
    expect(await store.accounts.findById(duplicate.id)).toBeNull();
    expect(await store.credits.ledger(duplicate.id)).toEqual([]);
  });

  it('an account joins an existing organisation when none is created with it', async () => {
    const { store } = engine();
    const { organisation } = await createAccount(store);
    const member = accountRecord(organisation.id);
    await store.accounts.create({ account: member, organisation: null, initialTokens: 0, grantEntryId: newId() });
    expect(await store.accounts.findById(member.id)).toEqual(member);
    expect(await store.credits.balance(member.id)).toEqual({ balanceTokens: 0, reservedTokens: 0 });
  });

  it("lists an organisation's members, oldest first, and no other organisation's accounts", async () => {
    const { store } = engine();
    const { account: owner, organisation } = await createAccount(store);
    await createAccount(store);
    const member = accountRecord(organisation.id, { createdAt: owner.createdAt + 1 });
    await store.accounts.create({ account: member, organisation: null, initialTokens: 0, grantEntryId: newId() });
    expect(await store.accounts.listByOrganisation(organisation.id)).toEqual([owner, member]);
    expect(await store.accounts.listByOrganisation(newId())).toEqual([]);
  });

  it('finds accounts by id and email, lists them oldest first and counts them', async () => {
    const { store } = engine();
    expect(await store.accounts.count()).toBe(0);
    const { account: first } = await createAccount(store);
    const { account: second } = await createAccount(store);
    expect(await store.accounts.findByEmail(second.email)).toEqual(second);
    expect(await store.accounts.findByEmail('nobody@example.com')).toBeNull();
    expect(await store.accounts.findById(newId())).toBeNull();
    expect(await store.accounts.list()).toEqual([first, second]);
    expect(await store.accounts.count()).toBe(2);
  });

  it('setPlan revokes every active key of the account in the same step when asked', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const key = apiKeyRecord(account.id);
    const revokedBefore = apiKeyRecord(account.id, { revokedAt: T0 - DAY_MS });
    for (const record of [key, revokedBefore]) await store.apiKeys.insertIfBelowLimit({ key: record, maxActive: 5, now: T0 });
    const downgraded = await store.accounts.setPlan({ id: account.id, plan: 'free', downgradedAt: T0, revokeKeysAt: null });
    expect(downgraded).toMatchObject({ plan: 'free', downgradedAt: T0 });
    expect((await store.apiKeys.findById(key.id))?.revokedAt, 'no revocation unless asked').toBeNull();
    await store.accounts.setPlan({ id: account.id, plan: 'free', downgradedAt: T0, revokeKeysAt: T0 + DAY_MS });
    expect((await store.apiKeys.findById(key.id))?.revokedAt).toBe(T0 + DAY_MS);
    expect((await store.apiKeys.findById(revokedBefore.id))?.revokedAt, 'an earlier revocation keeps its time').toBe(T0 - DAY_MS);
    expect(await store.accounts.setPlan({ id: newId(), plan: 'expert', downgradedAt: null, revokeKeysAt: null })).toBeNull();
  });

  it('organisation update changes only the named fields; an unknown organisation is null', async () => {
    const { store } = engine();
    const { organisation } = await createAccount(store);
    expect(await store.organisations.update({ id: organisation.id, changes: { strictByok: true } })).toEqual({ ...organisation, strictByok: true });
    expect(await store.organisations.update({ id: newId(), changes: { euOnlyModels: true } })).toBeNull();
  });

  it('insertIfBelowLimit respects maxActive under concurrency', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const inserted = await Promise.all(
      Array.from({ length: 12 }, () => store.apiKeys.insertIfBelowLimit({ key: apiKeyRecord(account.id), maxActive: 5, now: T0 })),
    );
    expect(inserted.filter(Boolean)).toHaveLength(5);
    expect(await store.apiKeys.listByAccount(account.id)).toHaveLength(5);
  });

  it('revoked and expired keys do not count against maxActive', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    await store.apiKeys.insertIfBelowLimit({ key: apiKeyRecord(account.id, { revokedAt: T0 }), maxActive: 1, now: T0 });
    await store.apiKeys.insertIfBelowLimit({ key: apiKeyRecord(account.id, { expiresAt: T0 }), maxActive: 1, now: T0 + 1 });
    expect(await store.apiKeys.insertIfBelowLimit({ key: apiKeyRecord(account.id), maxActive: 1, now: T0 + 1 })).toBe(true);
    expect(await store.apiKeys.insertIfBelowLimit({ key: apiKeyRecord(account.id), maxActive: 1, now: T0 + 1 })).toBe(false);
  });

  it('a revocation is visible at once to findByHash, and a second revocation keeps the first time', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const key = apiKeyRecord(account.id);
    await store.apiKeys.insertIfBelowLimit({ key, maxActive: 5, now: T0 });
    expect(await store.apiKeys.findByHash(key.hash)).toEqual(key);
    expect(await store.apiKeys.revoke({ id: key.id, at: T0 + 1 })).toEqual({ ...key, revokedAt: T0 + 1 });
    expect((await store.apiKeys.findByHash(key.hash))?.revokedAt).toBe(T0 + 1);
    expect((await store.apiKeys.revoke({ id: key.id, at: T0 + 2 }))?.revokedAt).toBe(T0 + 1);
    expect(await store.apiKeys.revoke({ id: newId(), at: T0 })).toBeNull();
    expect(await store.apiKeys.findByHash('no-such-hash')).toBeNull();
  });

  it('findUsableByHash answers a key with its account only while the key is neither revoked nor expired', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const key = apiKeyRecord(account.id, { expiresAt: T0 + DAY_MS });
    await store.apiKeys.insertIfBelowLimit({ key, maxActive: 5, now: T0 });
    expect(await store.apiKeys.findUsableByHash({ hash: key.hash, now: T0 })).toEqual({ key, account: await store.accounts.findById(account.id) });
    expect(await store.apiKeys.findUsableByHash({ hash: key.hash, now: T0 + DAY_MS })).toBeNull();
    await store.apiKeys.revoke({ id: key.id, at: T0 + 1 });
    expect(await store.apiKeys.findUsableByHash({ hash: key.hash, now: T0 + 2 })).toBeNull();
    expect(await store.apiKeys.findUsableByHash({ hash: 'no-such-hash', now: T0 })).toBeNull();
  });

  it.runIf(definition.shared)('a revocation through one connection is seen by another at once', async () => {
    const { store, openAnother } = engine();
    const other = await openAnother();
    const { account } = await createAccount(store);
    const key = apiKeyRecord(account.id);
    await store.apiKeys.insertIfBelowLimit({ key, maxActive: 5, now: T0 });
    expect((await other.apiKeys.findByHash(key.hash))?.revokedAt).toBeNull();
    await store.apiKeys.revoke({ id: key.id, at: T0 + 1 });
    expect((await other.apiKeys.findByHash(key.hash))?.revokedAt).toBe(T0 + 1);
  });

  it("revokeAllForAccount revokes that account's active keys only, and counts them", async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const { account: other } = await createAccount(store);
    const keys = [apiKeyRecord(account.id), apiKeyRecord(account.id), apiKeyRecord(account.id, { revokedAt: T0 - 1 })];
    const otherKey = apiKeyRecord(other.id);
    for (const key of [...keys, otherKey]) await store.apiKeys.insertIfBelowLimit({ key, maxActive: 5, now: T0 });
    expect(await store.apiKeys.revokeAllForAccount({ accountId: account.id, at: T0 })).toBe(2);
    for (const key of keys) expect((await store.apiKeys.findByHash(key.hash))?.revokedAt).not.toBeNull();
    expect((await store.apiKeys.findByHash(otherKey.hash))?.revokedAt).toBeNull();
  });

  it('replace revokes the old key and inserts its replacement together, and refuses when the old key is not active', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const old = apiKeyRecord(account.id);
    await store.apiKeys.insertIfBelowLimit({ key: old, maxActive: 5, now: T0 });
    const replacement = apiKeyRecord(account.id, { createdAt: T0 + 1 });
    expect(await store.apiKeys.replace({ oldId: old.id, replacement, at: T0 + 1, maxWorking: 6 })).toBe('replaced');
    expect(await store.apiKeys.findByHash(old.hash)).toMatchObject({ revokedAt: T0 + 1, replacedBy: replacement.id });
    expect(await store.apiKeys.findByHash(replacement.hash)).toEqual(replacement);
    const second = apiKeyRecord(account.id);
    expect(await store.apiKeys.replace({ oldId: old.id, replacement: second, at: T0 + 2, maxWorking: 6 })).toBe('inactive');
    expect(await store.apiKeys.findById(second.id), 'nothing is inserted when nothing was revoked').toBeNull();
    expect((await store.apiKeys.listByAccount(account.id)).map((key) => key.id)).toEqual([old.id, replacement.id]);
  });

  it('replace rotates a key once: a key in its grace period, already replaced, is not replaced again (regression: a second successor)', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const old = apiKeyRecord(account.id);
    await store.apiKeys.insertIfBelowLimit({ key: old, maxActive: 5, now: T0 });
    const graceUntil = T0 + 3_600_000;
    const first = apiKeyRecord(account.id, { createdAt: T0 + 1 });
    expect(await store.apiKeys.replace({ oldId: old.id, replacement: first, at: T0 + 1, graceUntil, maxWorking: 6 })).toBe('replaced');
    expect(await store.apiKeys.findById(old.id)).toMatchObject({ revokedAt: null, expiresAt: graceUntil, replacedBy: first.id });
    const second = apiKeyRecord(account.id, { createdAt: T0 + 2 });
    expect(await store.apiKeys.replace({ oldId: old.id, replacement: second, at: T0 + 2, graceUntil, maxWorking: 6 })).toBe('inactive');
    expect(await store.apiKeys.replace({ oldId: old.id, replacement: second, at: T0 + 2, maxWorking: 6 }), 'nor revoked by a rotation without grace').toBe(
      'inactive',
    );
    expect(await store.apiKeys.findById(second.id)).toBeNull();
    expect(await store.apiKeys.findById(old.id)).toMatchObject({ revokedAt: null, replacedBy: first.id });
  });

  it('partner keys are found by hash and organisation, and their revocation is visible at once', async () => {
    const { store } = engine();
    const { organisation } = await createAccount(store);
    const key: PartnerKeyRecord = {
      id: newId(),
      organisationId: organisation.id,
      name: 'partner',
      prefix: 'mdp_test',
      hash: `hash-${newId()}`,
      scopes: null,
      requestsPerMinute: 60,
      requestsPerDay: 1_000,
      createdAt: T0,
      revokedAt: null,
    };
    await store.partnerKeys.insert(key);
    expect(await store.partnerKeys.findByHash(key.hash)).toEqual(key);
    expect(await store.partnerKeys.findUsableByHash(key.hash)).toEqual(key);
    expect(await store.partnerKeys.findById(key.id)).toEqual(key);
    expect(await store.partnerKeys.listByOrganisation(organisation.id)).toEqual([key]);
    expect(await store.partnerKeys.revoke({ id: key.id, at: T0 + 1 })).toEqual({ ...key, revokedAt: T0 + 1 });
    expect((await store.partnerKeys.findByHash(key.hash))?.revokedAt).toBe(T0 + 1);
    expect(await store.partnerKeys.findUsableByHash(key.hash)).toBeNull();
  });
});
