/**
 * Signing in to the web console: email and password (argon2id), sessions in the database (shared
 * by every process, idle and absolute expiry), one-time links for invites and resets, and login
 * attempts limited per account and per address. A session acts as its account with every scope:
 * the console is the account holder's own door, and each operation still applies its rules.
 */
import { randomBytes } from 'node:crypto';
import type { AccountRecord, AccountTokenPurpose, ConsoleSessionRecord, Store } from '../../db/store.js';
import type { Clock } from '../clock.js';
import { PorchError } from '../errors.js';
import { newId } from '../ids.js';
import { createAttemptWindows } from './attempt-windows.js';
import type { Caller } from './caller.js';
import { hashKey } from './key-material.js';
import { ALL_SCOPES } from './scopes.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

export interface ConsoleSessionSettings {
  /** A session unused for this long is over. */
  idleMs: number;
  /** No session lives longer than this, however busy. */
  absoluteMs: number;
  /** How long an invite link (first password) works. */
  inviteTtlMs: number;
  /** How long a reset link works: short, as whoever holds it can take the account over. */
  resetTtlMs: number;
}

export const DEFAULT_CONSOLE_SESSION_SETTINGS: ConsoleSessionSettings = {
  idleMs: 12 * HOUR_MS,
  absoluteMs: 7 * DAY_MS,
  inviteTtlMs: 7 * DAY_MS,
  resetTtlMs: HOUR_MS,
};

/**
 * Sign-in attempts counted per account and per client address (an IPv6 address by its /64:
 * attempt-windows.ts), in the rate limiter's shared windows, so the limit holds across
 * processes. Generous for a person who mistypes, far too few for guessing: ten tries a minute
 * is 14,400 a day at most, capped to 100 by the daily window.
 */
export const SIGN_IN_LIMITS = {
  perAccount: { requestsPerMinute: 10, requestsPerDay: 100 },
  perAddress: { requestsPerMinute: 30, requestsPerDay: 1_000 },
} as const;

const SIGN_IN_REFUSAL = 'Too many sign-in attempts; wait and try again.';

/**
 * What a session may do per minute and day across the console's operation calls. A person
 * clicking never gets near it; it bounds a script that drives a stolen cookie.
 */
export const SESSION_REQUEST_LIMITS = { requestsPerMinute: 600, requestsPerDay: 50_000 } as const;

/** Passwords shorter than this are refused (NIST SP 800-63B's floor for user-chosen secrets is 8; 12 costs nothing more). */
export const MIN_PASSWORD_LENGTH = 12;
/** Longer than any passphrase, short enough that hashing stays cheap. */
export const MAX_PASSWORD_LENGTH = 256;

/** A session's last use is written at most this often, so a page with ten requests is one write. */
const TOUCH_INTERVAL_MS = MINUTE_MS;
/** User agents are kept short: enough to tell a laptop from a phone. */
const MAX_USER_AGENT_LENGTH = 200;
/** 32 random bytes, as for API keys (256 bits). */
const TOKEN_RANDOM_BYTES = 32;

/** argon2 is a native module that only sign-in needs: loaded on first use, not at start-up. */
let argon2Module: Promise<typeof import('@node-rs/argon2')> | undefined;
const argon2 = () => {
  argon2Module ??= import('@node-rs/argon2');
  return argon2Module;
};
/** argon2id with the library's defaults (19 MiB, 2 passes: OWASP's minimum), off the event loop. */
const argon2Hash = async (password: string) => (await argon2()).hash(password);
const argon2Verify = async (hash: string, password: string) => (await argon2()).verify(hash, password);

/**
 * Checked against when the email matches no account or the account has no password yet, so the
 * answer takes as long as a wrong password would (no enumeration by timing). Hashed once, lazily.
 */
let decoyHash: Promise<string> | undefined;
const decoy = () => {
  decoyHash ??= argon2Hash(randomBytes(16).toString('hex'));
  return decoyHash;
};

function newToken(): { token: string; hash: string } {
  const token = randomBytes(TOKEN_RANDOM_BYTES).toString('base64url');
  return { token, hash: hashKey(token) };
}

/** One message for every failed sign-in, so it tells nobody whether the email has an account. */
function signInFailed(): PorchError {
  return new PorchError('SIGN_IN_FAILED', 'The email or password is incorrect.');
}

export interface SignInRequest {
  email: string;
  password: string;
  /** The client's address, for the per-address attempt limit. */
  address: string;
  userAgent: string | undefined;
}

export interface SignedInSession {
  caller: Caller;
  session: ConsoleSessionRecord;
}

export interface IssuedLink {
  /** The one-time token, to put in the link; shown once, never stored. */
  token: string;
  purpose: AccountTokenPurpose;
  expiresAt: number;
}

export interface ConsoleSessions {
  signIn(request: SignInRequest): Promise<{ token: string; session: ConsoleSessionRecord }>;
  /** The caller of a session cookie's token; null when it is unknown, revoked, idle or expired. */
  authenticate(token: string): Promise<SignedInSession | null>;
  /** A one-time link's token for the account (`porch account invite|reset-password`); earlier links stop working. */
  issueLink(request: { account: AccountRecord; purpose: AccountTokenPurpose }): Promise<IssuedLink>;
  /** Sets the password from a one-time link and signs every session out; the account id. */
  redeemLink(request: { token: string; password: string }): Promise<string>;
  /** Whether a one-time link can still set a password (unused, unexpired, the newest of its account). */
  isLinkUsable(token: string): Promise<boolean>;
  signOut(session: ConsoleSessionRecord): Promise<void>;
  /** Signs out every session of the account but the one asking; the number ended. */
  signOutOthers(session: ConsoleSessionRecord): Promise<number>;
  listSessions(accountId: string): Promise<ConsoleSessionRecord[]>;
  /** Deletes sessions and links that ended more than a day ago (kept that long to show what happened); the rows removed. */
  pruneEnded(): Promise<number>;
}

/** A session acts as its account with every scope (each operation still applies its own rules). */
export function sessionCredential(session: ConsoleSessionRecord): Caller['credential'] {
  return { kind: 'session', id: session.id, scopes: ALL_SCOPES, ...SESSION_REQUEST_LIMITS };
}

export function checkPasswordShape(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new PorchError('VALIDATION_ERROR', `The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`);
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw new PorchError('VALIDATION_ERROR', `The password must be at most ${MAX_PASSWORD_LENGTH} characters long.`);
  }
}

export function createConsoleSessions(store: Store, clock: Clock, settings: ConsoleSessionSettings = DEFAULT_CONSOLE_SESSION_SETTINGS): ConsoleSessions {
  const attempts = createAttemptWindows(store.rateLimits, clock);

  return {
    async signIn({ email, password, address, userAgent }) {
      const normalisedEmail = email.trim().toLowerCase();
      // Counted before anything is looked up, and for unknown emails too, so guessing costs the same everywhere.
      await attempts.countFromAddress('sign-in', address, SIGN_IN_LIMITS.perAddress, SIGN_IN_REFUSAL);
      await attempts.count(`sign-in:account:${hashKey(normalisedEmail)}`, SIGN_IN_LIMITS.perAccount, SIGN_IN_REFUSAL);
      const account = await store.accounts.findByEmail(normalisedEmail);
      const stored = account ? await store.signIn.passwordHash(account.id) : null;
      const matches = password.length <= MAX_PASSWORD_LENGTH && (await argon2Verify(stored ?? (await decoy()), password).catch(() => false));
      if (!account || stored === null || !matches) throw signInFailed();
      const now = clock.now();
      const { token, hash } = newToken();
      const session: ConsoleSessionRecord = {
        id: newId(),
        accountId: account.id,
        tokenHash: hash,
        createdAt: now,
        lastSeenAt: now,
        expiresAt: now + settings.absoluteMs,
        revokedAt: null,
        userAgent: userAgent?.slice(0, MAX_USER_AGENT_LENGTH) ?? null,
      };
      await store.signIn.createSession(session);
      return { token, session };
    },

    async authenticate(token) {
      if (token === '' || token.length > 128) return null;
      const now = clock.now();
      const session = await store.signIn.findUsableSession({ tokenHash: hashKey(token), now, idleSince: now - settings.idleMs });
      if (!session) return null;
      const account = await store.accounts.findById(session.accountId);
      if (!account) return null;
      if (now - session.lastSeenAt >= TOUCH_INTERVAL_MS) await store.signIn.touchSession({ id: session.id, at: now });
      return { caller: { account, credential: sessionCredential(session) }, session };
    },

    async issueLink({ account, purpose }) {
      const now = clock.now();
      const { token, hash } = newToken();
      const expiresAt = now + (purpose === 'invite' ? settings.inviteTtlMs : settings.resetTtlMs);
      await store.signIn.issueToken({ id: newId(), accountId: account.id, tokenHash: hash, purpose, createdAt: now, expiresAt, usedAt: null });
      return { token, purpose, expiresAt };
    },

    async redeemLink({ token, password }) {
      checkPasswordShape(password);
      // Hashed before the token is spent, so a hashing failure leaves the link usable.
      const passwordHash = await argon2Hash(password);
      const redeemed = await store.signIn.redeemToken({ tokenHash: hashKey(token), passwordHash, now: clock.now() });
      if (!redeemed) throw new PorchError('LINK_INVALID', 'This link is invalid, expired or already used; ask the operator for a new one.');
      return redeemed.accountId;
    },

    async isLinkUsable(token) {
      return token !== '' && store.signIn.isTokenUsable({ tokenHash: hashKey(token), now: clock.now() });
    },

    async signOut(session) {
      await store.signIn.revokeSession({ id: session.id, accountId: session.accountId, at: clock.now() });
    },

    async signOutOthers(session) {
      return store.signIn.revokeAllSessions({ accountId: session.accountId, at: clock.now(), exceptId: session.id });
    },

    async listSessions(accountId) {
      const now = clock.now();
      return store.signIn.listSessions({ accountId, now, idleSince: now - settings.idleMs });
    },

    async pruneEnded() {
      return store.signIn.pruneEnded(clock.now() - DAY_MS);
    },
  };
}
