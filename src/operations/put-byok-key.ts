import { z } from 'zod';
import { defineKeyedOperation } from './operation.js';
import { ADMIN_ONLY, byokKeySchema, ORGANISATION_ADMIN_ONLY, organisationScopes, organisationTag } from './organisation-schemas.js';

/** Longer than any provider's keys; a bound so a body cannot make the encryption work on megabytes. */
const MAX_PROVIDER_KEY_LENGTH = 1_000;

export const putByokKey = defineKeyedOperation({
  name: 'put_byok_key',
  title: 'Store a BYOK key',
  description: `Stores the organisation's own key for a provider, encrypted at rest (AES-256-GCM); it replaces the provider's active key. From the next call on, every member's calls to that provider use it and are not metered; if the provider rejects it they fail with 502 BYOK_KEY_INVALID. Write-only: the answer, and every later one, shows only the key's last characters. Not an MCP tool: a key typed into an agent's conversation would stay in its transcript. ${ADMIN_ONLY}`,
  method: 'POST',
  path: '/organisation/byok-keys',
  tag: organisationTag,
  effect: 'write',
  idempotent: true,
  successStatus: 201,
  exposure: ['rest', 'console', 'discovery'],
  scopes: organisationScopes,
  refuses: ORGANISATION_ADMIN_ONLY,
  body: z.strictObject({
    provider: z
      .string()
      .min(1, 'must not be empty')
      .max(100, 'must be at most 100 characters')
      .meta({ examples: ['openai'] })
      .describe('A configured provider id (list_byok_keys lists them), e.g. "openai".'),
    key: z
      .string()
      .min(1, 'must not be empty')
      .max(MAX_PROVIDER_KEY_LENGTH, `must be at most ${MAX_PROVIDER_KEY_LENGTH} characters`)
      .describe('The provider key itself. Stored encrypted and never shown again.'),
  }),
  output: byokKeySchema,
  run: ({ provider, key }, { core, caller }) => core.organisationAdmin.putByokKey(caller, provider, key),
});
