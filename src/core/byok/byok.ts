import type { AccountRecord, ByokKeyRecord, ByokOwner, Store } from '../../db/store.js';
import { decryptSecret, encryptSecret } from '../ai/byok-crypto.js';
import type { Clock } from '../clock.js';
import { PorchError } from '../errors.js';
import { newId } from '../ids.js';
import { isoOrNull, toIsoTimestamp } from '../views.js';

/** Characters of a BYOK key kept for display: enough to recognise it, far too few to use it. */
const KEY_HINT_LENGTH = 4;

export interface ByokKeyView {
  id: string;
  account_id: string | null;
  organisation_id: string | null;
  provider: string;
  key_hint: string;
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at: string | null;
}

function view(record: ByokKeyRecord): ByokKeyView {
  return {
    id: record.id,
    account_id: record.accountId,
    organisation_id: record.organisationId,
    provider: record.provider,
    key_hint: `...${record.keyHint}`,
    status: record.revokedAt === null ? 'active' : 'revoked',
    created_at: toIsoTimestamp(record.createdAt),
    revoked_at: isoOrNull(record.revokedAt),
  };
}

/** Binds a ciphertext to its row: a blob copied onto another owner or provider will not decrypt. */
function associatedData(owner: ByokOwner, provider: string): string {
  return 'accountId' in owner ? `byok:account:${owner.accountId}:${provider}` : `byok:organisation:${owner.organisationId}:${provider}`;
}

/**
 * What an HTTP header can carry as a bearer token: visible ASCII. A key holding a space, a line
 * break or a non-ASCII letter (pasted with its label, or mistyped) could never be sent: fetch
 * refuses the header before any request, which otherwise surfaced as a retryable 500.
 */
const SENDABLE_KEY = /^[\x21-\x7E]+$/;
const UNSENDABLE_KEY_MESSAGE = 'holds characters an HTTP header cannot carry (spaces, line breaks or non-ASCII letters)';

function decryptOrExplain(record: ByokKeyRecord, owner: ByokOwner, provider: string, secretKey: Buffer): string {
  const whose = 'accountId' in owner ? "account's" : "organisation's";
  let key: string;
  try {
    key = decryptSecret(record.encryptedKey, secretKey, associatedData(owner, provider));
  } catch {
    throw new PorchError(
      'BYOK_KEY_INVALID',
      `The ${whose} ${provider} key (...${record.keyHint}, id ${record.id}) cannot be decrypted: this server's secret key (PORCH_SECRET_KEY, or secret.key in its data folder) is not the one the key was stored under. Store the key again, or have the operator restore the secret key it was stored with.`,
    );
  }
  // Stored before keys were checked for this: refused as the provider would refuse a bad key.
  if (!SENDABLE_KEY.test(key)) {
    throw new PorchError(
      'BYOK_KEY_INVALID',
      `The ${whose} ${provider} key (id ${record.id}) ${UNSENDABLE_KEY_MESSAGE}. Store the key again, exactly as the provider shows it.`,
    );
  }
  return key;
}

export interface ByokServiceOptions {
  store: Store;
  clock: Clock;
  secretKey: Buffer;
  /** Provider ids a BYOK key may be stored for (configured providers; echo needs none). */
  providers: () => readonly string[];
}

/** Bring-your-own-key: provider keys of an account or organisation, encrypted at rest. */
export function createByokService({ store, clock, secretKey, providers }: ByokServiceOptions) {
  async function requireOwner(owner: ByokOwner): Promise<void> {
    if ('accountId' in owner ? !(await store.accounts.findById(owner.accountId)) : !(await store.organisations.findById(owner.organisationId))) {
      throw new PorchError(
        'RESOURCE_NOT_FOUND',
        'accountId' in owner ? `No account with id ${owner.accountId}.` : `No organisation with id ${owner.organisationId}.`,
      );
    }
  }

  return {
    async set(owner: ByokOwner, provider: string, plaintext: string): Promise<ByokKeyView> {
      if (!providers().includes(provider)) {
        throw new PorchError('VALIDATION_ERROR', `Unknown provider "${provider}". Configured providers: ${providers().join(', ') || 'none'}.`);
      }
      const key = plaintext.trim();
      if (key.length < 8) throw new PorchError('VALIDATION_ERROR', 'The BYOK key is empty or too short to be a provider key.');
      if (!SENDABLE_KEY.test(key))
        throw new PorchError('VALIDATION_ERROR', `The BYOK key ${UNSENDABLE_KEY_MESSAGE}; paste it exactly as the provider shows it.`);
      await requireOwner(owner);
      const record: ByokKeyRecord = {
        id: newId(),
        accountId: 'accountId' in owner ? owner.accountId : null,
        organisationId: 'organisationId' in owner ? owner.organisationId : null,
        provider,
        encryptedKey: encryptSecret(key, secretKey, associatedData(owner, provider)),
        keyHint: key.slice(-KEY_HINT_LENGTH),
        createdAt: clock.now(),
        revokedAt: null,
      };
      await store.byokKeys.put(record);
      return view(record);
    },

    /** An owner that does not exist is refused, not listed as one without keys (a mistyped id). */
    async list(owner: ByokOwner): Promise<ByokKeyView[]> {
      await requireOwner(owner);
      return (await store.byokKeys.list(owner)).map(view);
    },

    async revoke(id: string): Promise<ByokKeyView> {
      const revoked = await store.byokKeys.revoke({ id, at: clock.now() });
      if (!revoked) throw new PorchError('RESOURCE_NOT_FOUND', `No BYOK key with id ${id}.`);
      return view(revoked);
    },

    /** Whether an account's calls to `provider` go out on a BYOK key (its own or its organisation's), without decrypting it. */
    async hasActiveKey(account: AccountRecord, provider: string): Promise<boolean> {
      for (const owner of [{ accountId: account.id }, { organisationId: account.organisationId }] satisfies ByokOwner[]) {
        if (await store.byokKeys.findActive({ owner, provider })) return true;
      }
      return false;
    },

    /**
     * The decrypted key an account's calls to `provider` use: its own first, then its
     * organisation's. A key this server cannot decrypt (its secret key is not the one the key was
     * stored under) fails the call with 502 BYOK_KEY_INVALID saying so: never a fallback to the
     * shared gateway, which would bill calls the owner meant to pay for with their own key.
     */
    async activeKeyFor(account: AccountRecord, provider: string): Promise<string | null> {
      for (const owner of [{ accountId: account.id }, { organisationId: account.organisationId }] satisfies ByokOwner[]) {
        const record = await store.byokKeys.findActive({ owner, provider });
        if (record) return decryptOrExplain(record, owner, provider, secretKey);
      }
      return null;
    },
  };
}

export type ByokService = ReturnType<typeof createByokService>;
