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
  return {
    async createDemo(): Promise<DemoAccount> {
      let email = `demo@${DEMO_EMAIL_DOMAIN}`;
      for (let n = 2; await accounts.isEmailTaken(email); n += 1) email = `demo+${n}@${DEMO_EMAIL_DOMAIN}`;
      const account = await accounts.createAccount({ email, name: 'Porch demo', plan: 'expert', credits: DEMO_CREDITS });
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
    },
  };
}
