/**
 * Storage contract: console sign-in. A one-time token is redeemed once (also under concurrency)
 * and takes every session with it; a session is usable only while neither revoked, expired nor
 * idle; revocations and listings see only the account's own sessions.
 */
import { expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import type { AccountTokenRecord, ConsoleSessionRecord } from '../../src/db/store.js';
import { describeEachEngine } from './engines.js';
import { createAccount, DAY_MS, MINUTE_MS, T0 } from './fixtures.js';

function sessionRecord(accountId: string, overrides: Partial<ConsoleSessionRecord> = {}): ConsoleSessionRecord {
  return {
    id: newId(),
    accountId,
    tokenHash: `hash-${newId()}`,
    createdAt: T0,
    lastSeenAt: T0,
    expiresAt: T0 + 7 * DAY_MS,
    revokedAt: null,
    userAgent: 'test browser',
    ...overrides,
  };
}

function tokenRecord(accountId: string, overrides: Partial<AccountTokenRecord> = {}): AccountTokenRecord {
  return { id: newId(), accountId, tokenHash: `token-${newId()}`, purpose: 'invite', createdAt: T0, expiresAt: T0 + DAY_MS, usedAt: null, ...overrides };
}

describeEachEngine('console sign-in', (engine, definition) => {
  it('redeems a token once: sets the password and ends every session of the account', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const session = sessionRecord(account.id);
    await store.signIn.createSession(session);
    const token = tokenRecord(account.id);
    await store.signIn.issueToken(token);
    expect(await store.signIn.passwordHash(account.id)).toBeNull();

    expect(await store.signIn.redeemToken({ tokenHash: token.tokenHash, passwordHash: '$argon2id$first', now: T0 + MINUTE_MS })).toEqual({
      accountId: account.id,
      purpose: 'invite',
    });
    expect(await store.signIn.passwordHash(account.id)).toBe('$argon2id$first');
    expect(await store.signIn.findUsableSession({ tokenHash: session.tokenHash, now: T0 + MINUTE_MS, idleSince: T0 - DAY_MS })).toBeNull();
    expect(await store.signIn.redeemToken({ tokenHash: token.tokenHash, passwordHash: '$argon2id$second', now: T0 + 2 * MINUTE_MS })).toBeNull();
    expect(await store.signIn.passwordHash(account.id)).toBe('$argon2id$first');
  });

  it('says a token is usable while it is unused, unexpired and the newest of its account', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const first = tokenRecord(account.id, { expiresAt: T0 + DAY_MS });
    await store.signIn.issueToken(first);
    expect(await store.signIn.isTokenUsable({ tokenHash: first.tokenHash, now: T0 })).toBe(true);
    expect(await store.signIn.isTokenUsable({ tokenHash: first.tokenHash, now: T0 + DAY_MS }), 'expired').toBe(false);
    expect(await store.signIn.isTokenUsable({ tokenHash: 'unknown', now: T0 })).toBe(false);
    const second = tokenRecord(account.id, { expiresAt: T0 + DAY_MS, createdAt: T0 + MINUTE_MS });
    await store.signIn.issueToken(second);
    expect(await store.signIn.isTokenUsable({ tokenHash: first.tokenHash, now: T0 + MINUTE_MS }), 'replaced').toBe(false);
    await store.signIn.redeemToken({ tokenHash: second.tokenHash, passwordHash: 'x', now: T0 + MINUTE_MS });
    expect(await store.signIn.isTokenUsable({ tokenHash: second.tokenHash, now: T0 + MINUTE_MS }), 'used').toBe(false);
  });

  it('refuses an expired token and writes nothing', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const token = tokenRecord(account.id, { purpose: 'reset', expiresAt: T0 + MINUTE_MS });
    await store.signIn.issueToken(token);
    expect(await store.signIn.redeemToken({ tokenHash: token.tokenHash, passwordHash: 'x', now: T0 + MINUTE_MS })).toBeNull();
    expect(await store.signIn.passwordHash(account.id)).toBeNull();
  });

  it('a new token makes the earlier unused ones of the account stop working', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const first = tokenRecord(account.id);
    await store.signIn.issueToken(first);
    const second = tokenRecord(account.id, { purpose: 'reset', createdAt: T0 + MINUTE_MS });
    await store.signIn.issueToken(second);
    expect(await store.signIn.redeemToken({ tokenHash: first.tokenHash, passwordHash: 'x', now: T0 + 2 * MINUTE_MS })).toBeNull();
    expect(await store.signIn.redeemToken({ tokenHash: second.tokenHash, passwordHash: 'y', now: T0 + 2 * MINUTE_MS })).toEqual({
      accountId: account.id,
      purpose: 'reset',
    });
  });

  it('of two processes redeeming the same token at once, exactly one succeeds', async () => {
    if (!definition.shared) return;
    const { store, openAnother } = engine();
    const other = await openAnother();
    const { account } = await createAccount(store);
    const token = tokenRecord(account.id);
    await store.signIn.issueToken(token);
    const outcomes = await Promise.all([
      store.signIn.redeemToken({ tokenHash: token.tokenHash, passwordHash: 'from-a', now: T0 + MINUTE_MS }),
      other.signIn.redeemToken({ tokenHash: token.tokenHash, passwordHash: 'from-b', now: T0 + MINUTE_MS }),
    ]);
    expect(outcomes.filter((outcome) => outcome !== null)).toHaveLength(1);
  });

  it('a session is usable until revoked, past its absolute expiry, or idle too long', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const live = sessionRecord(account.id);
    const expired = sessionRecord(account.id, { expiresAt: T0 + MINUTE_MS });
    const idle = sessionRecord(account.id, { lastSeenAt: T0 - DAY_MS });
    for (const session of [live, expired, idle]) await store.signIn.createSession(session);
    const now = T0 + 2 * MINUTE_MS;
    const idleSince = T0 - 12 * 60 * MINUTE_MS;
    expect(await store.signIn.findUsableSession({ tokenHash: live.tokenHash, now, idleSince })).toEqual(live);
    expect(await store.signIn.findUsableSession({ tokenHash: expired.tokenHash, now, idleSince })).toBeNull();
    expect(await store.signIn.findUsableSession({ tokenHash: idle.tokenHash, now, idleSince })).toBeNull();
    expect((await store.signIn.listSessions({ accountId: account.id, now, idleSince })).map((session) => session.id)).toEqual([live.id]);

    await store.signIn.touchSession({ id: idle.id, at: now });
    expect(await store.signIn.findUsableSession({ tokenHash: idle.tokenHash, now, idleSince })).not.toBeNull();
    expect(await store.signIn.revokeSession({ id: live.id, accountId: account.id, at: now })).toBe(true);
    expect(await store.signIn.revokeSession({ id: live.id, accountId: account.id, at: now })).toBe(false);
    expect(await store.signIn.findUsableSession({ tokenHash: live.tokenHash, now, idleSince })).toBeNull();
    expect((await store.signIn.findSession(live.id))?.revokedAt).toBe(now);
  });

  it("one account cannot revoke or list another's sessions", async () => {
    const { store } = engine();
    const { account: owner } = await createAccount(store);
    const { account: stranger } = await createAccount(store);
    const session = sessionRecord(owner.id);
    await store.signIn.createSession(session);
    expect(await store.signIn.revokeSession({ id: session.id, accountId: stranger.id, at: T0 })).toBe(false);
    expect(await store.signIn.revokeAllSessions({ accountId: stranger.id, at: T0 })).toBe(0);
    expect(await store.signIn.listSessions({ accountId: stranger.id, now: T0, idleSince: T0 - DAY_MS })).toEqual([]);
    expect(await store.signIn.findUsableSession({ tokenHash: session.tokenHash, now: T0, idleSince: T0 - DAY_MS })).not.toBeNull();
  });

  it('signs out everywhere but the session that asks', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const sessions = [sessionRecord(account.id), sessionRecord(account.id), sessionRecord(account.id)];
    for (const session of sessions) await store.signIn.createSession(session);
    const [kept] = sessions;
    expect(await store.signIn.revokeAllSessions({ accountId: account.id, at: T0, exceptId: kept?.id })).toBe(2);
    expect((await store.signIn.listSessions({ accountId: account.id, now: T0, idleSince: T0 - DAY_MS })).map((session) => session.id)).toEqual([kept?.id]);
  });

  it('prunes sessions and tokens that ended before the cut-off, and only those', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const old = sessionRecord(account.id, { expiresAt: T0 + MINUTE_MS });
    const current = sessionRecord(account.id);
    await store.signIn.createSession(old);
    await store.signIn.createSession(current);
    await store.signIn.issueToken(tokenRecord(account.id, { expiresAt: T0 + MINUTE_MS }));
    expect(await store.signIn.pruneEnded(T0 + DAY_MS)).toBe(2);
    expect(await store.signIn.findSession(old.id)).toBeNull();
    expect(await store.signIn.findSession(current.id)).toEqual(current);
  });
});
