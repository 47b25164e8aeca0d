/**
 * Unknown and revoked keys are indistinguishable to a caller (SECURITY.md), in timing
 * too: the authenticator does exactly the same storage work for each, one lookup that answers
 * nothing (regression: a revoked key's row was read and judged in JavaScript, which made revoked
 * keys measurably slower to refuse than unknown ones).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../../src/core/access/authenticator.js';
import { PorchError } from '../../../src/core/errors.js';
import type { Store } from '../../../src/db/store.js';
import { createCoreHarness, type CoreHarness } from '../../helpers/core-harness.js';

let harness: CoreHarness;
beforeEach(async () => {
  harness = await createCoreHarness();
});
afterEach(() => harness.close());

/** The store, recording every repository call the authenticator makes and whether it answered something. */
function recordingStore(store: Store, calls: string[]): Store {
  return new Proxy(store, {
    get(target, area: string & keyof Store) {
      const repository = target[area];
      if (typeof repository !== 'object' || repository === null) return repository;
      return new Proxy(repository, {
        get(inner, method: string) {
          const original: unknown = Reflect.get(inner, method);
          if (typeof original !== 'function') return original;
          return async (...args: unknown[]) => {
            const answer: unknown = await original.apply(inner, args);
            calls.push(`${area}.${method} -> ${answer === null ? 'null' : 'a record'}`);
            return answer;
          };
        },
      });
    },
  });
}

async function refusalPath(apiKey: string): Promise<{ code: string; calls: string[] }> {
  const calls: string[] = [];
  const authenticator = createAuthenticator(recordingStore(harness.store, calls), harness.clock);
  const error = await authenticator.authenticate({ apiKey }).catch((err: unknown) => err);
  if (!(error instanceof PorchError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return { code: error.code, calls };
}

describe('the authenticator', () => {
  it('refuses unknown and revoked keys with the same code after the same storage work', async () => {
    const { key: revoked, keyId } = await harness.expertWithKey();
    await harness.core.accounts.revokeKey(keyId);
    const unknown = await refusalPath('mdi_thisKeyDoesNotExist0000000000000000000000');
    expect(unknown).toEqual({ code: 'INVALID_API_KEY', calls: ['apiKeys.findUsableByHash -> null'] });
    expect(await refusalPath(revoked)).toEqual(unknown);
  });

  it('reads a usable key and its account in one lookup', async () => {
    const { key } = await harness.expertWithKey();
    const calls: string[] = [];
    const caller = await createAuthenticator(recordingStore(harness.store, calls), harness.clock).authenticate({ apiKey: key });
    expect(caller.account.email).toMatch(/@/);
    expect(calls).toEqual(['apiKeys.findUsableByHash -> a record']);
  });

  it('refuses revoked and unknown partner keys after the same storage work', async () => {
    const { organisationId } = await harness.createAccount();
    const partner = await harness.core.accounts.createPartnerKey({ organisationId });
    await harness.core.accounts.revokePartnerKey(partner.key.id);
    const unknown = await refusalPath('mpk_unknownPartnerKey000000000000000000000000');
    expect(unknown).toEqual({ code: 'INVALID_API_KEY', calls: ['partnerKeys.findUsableByHash -> null'] });
    expect(await refusalPath(partner.plaintext)).toEqual(unknown);
  });
});
