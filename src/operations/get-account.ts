import { z } from 'zod';
import { PLANS } from '../core/domain/plans.js';
import { CREDENTIAL_KINDS } from '../db/store.js';
import { defineKeyedOperation } from './operation.js';
import { organisationPoliciesSchema } from './organisation-schemas.js';
import { ANY_KEY_SCOPES, balanceSchema, keyLimitsSchema } from './self-service-schemas.js';
import { timestampSchema } from './schemas.js';

export const getAccount = defineKeyedOperation({
  name: 'get_account',
  title: 'Get the account',
  description:
    "Reads the caller's account: plan, credits (balance, reserved, available), organisation and its policies, and the calling key's id, name, scopes and limits. Any key may call it: it shows the key's own account and nothing more.",
  method: 'GET',
  path: '/account',
  tag: 'Account',
  effect: 'read',
  successStatus: 200,
  scopes: ANY_KEY_SCOPES,
  output: z
    .object({
      account: z
        .object({
          id: z.uuid().describe('Account id.'),
          email: z.string().describe('Account email.'),
          name: z.string().nullable().describe('Account name, or null.'),
          plan: z.enum(PLANS).describe('The plan (keys work only on expert).'),
          created_at: timestampSchema,
        })
        .describe('The account.'),
      organisation: z
        .object({
          id: z.uuid().describe('Organisation id.'),
          name: z.string().describe('Organisation name.'),
          policies: organisationPoliciesSchema,
        })
        .describe('The organisation the account belongs to.'),
      credits: balanceSchema,
      key: z
        .object({
          id: z.uuid().describe('Id of the key making this call.'),
          kind: z
            .enum(CREDENTIAL_KINDS)
            .describe(
              'An account API key (mdi_), or the credential of an app connected with OAuth (then connected_app is true); a partner key (mpk_); or `session` when the web console calls as its signed-in account.',
            ),
          connected_app: z
            .boolean()
            .describe('Whether the caller is an app connected with OAuth: its access token acts as this credential, which the key list never shows.'),
          name: z.string().describe('Key name.'),
          scopes: z.array(z.string()).describe('Scopes the key holds.'),
          limits: keyLimitsSchema.extend({
            max_in_flight: z.number().int().min(1).describe('Executions and sanitiser scans the key may have running at once.'),
          }),
        })
        .describe('The key making this call.'),
    })
    .describe('The calling account, its credits and organisation, and the calling key.'),
  run: (_input, { core, caller }) => core.selfService.account(caller),
});
