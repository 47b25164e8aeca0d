import { ALL_SCOPES } from '../access/scopes.js';
import type { AccountService } from '../accounts/accounts.js';
import type { BundleService } from '../bundle/bundles.js';
import { DEMO_BUNDLE } from './demo-bundle.js';

export const DEMO_CREDITS = 1_000;
const DEMO_EMAIL_DOMAIN = 'porch.local';

export interface DemoAccount {
  account_id: string;
  organisation_id: string;
  email: string;
  credits: number;
  key_id: string;
  /** Shown once. */
  key: string;
}

/**
 * An Expert account with credits, the sample catalog and one key holding every scope: the
 * write, key-management and usage scopes too, which a key holds only when asked for, so a fresh
 * install can try the whole lifecycle with the key it prints.
 */
export function createDemoService(accounts: AccountService, bundles: BundleService) {
  const firstEmail = `demo@${DEMO_EMAIL_DOMAIN}`;
  const newAccount = (email: string) => accounts.createAccount({ email, name: 'Porch demo', plan: 'expert', credits: DEMO_CREDITS });

  /** Gives a new demo account its sample catalog and its key. */
  async function furnish(account: Awaited<ReturnType<typeof newAccount>>, email: string): Promise<DemoAccount> {
    await bundles.importBundle(account.id, DEMO_BUNDLE);
    const created = await accounts.createKey({ accountId: account.id, name: 'Demo key', scopes: [...ALL_SCOPES] });
    return {
      account_id: account.id,
      organisation_id: account.organisation_id,
      email,
      credits: account.credits,
      key_id: created.key.id,
      key: created.plaintext,
    };
  }

  return {
    /** Another demo account (`porch demo`), under the first free demo+N address. */
    async createDemo(): Promise<DemoAccount> {
      let email = firstEmail;
      for (let n = 2; await accounts.isEmailTaken(email); n += 1) email = `demo+${n}@${DEMO_EMAIL_DOMAIN}`;
      return furnish(await newAccount(email), email);
    },

    /**
     * The demo account of a first start, under the one first address: null when another process
     * starting on the same empty database made it meanwhile (regression: each made its own, the
     * second as demo+2, both printing a key).
     */
    async createFirstDemo(): Promise<DemoAccount | null> {
      let account: Awaited<ReturnType<typeof newAccount>>;
      try {
        account = await newAccount(firstEmail);
      } catch (err) {
        if (await accounts.isEmailTaken(firstEmail)) return null;
        throw err;
      }
      return furnish(account, firstEmail);
    },
  };
}
