import { z } from 'zod';
import { MAX_ACTIVE_KEYS } from '../core/accounts/accounts.js';
import { defineKeyedOperation } from './operation.js';
import { nonBlankText } from '../core/validation.js';
import { instantInputSchema } from './schemas.js';
import { createdKeySchema, keyScopes, MINTS_KEYS } from './self-service-schemas.js';

/** A key's name, as `POST /keys` and the CLI's `key create --name` read it. */
export const keyNameSchema = nonBlankText(100);

const limitField = (what: string) =>
  z.number().int('must be a whole number').min(1, 'must be at least 1').optional().describe(`${what}; at most the calling key's own, which is the default.`);

export const createKey = defineKeyedOperation({
  name: 'create_key',
  title: 'Create an API key',
  description: `Creates an API key for the account and answers it once (api_key); only its hash is stored. Scopes must be ones the calling key holds (403 INSUFFICIENT_PERMISSIONS names any it lacks; an unknown scope is 400); without scopes, the new key gets the default key scopes the calling key holds, never \`write:*\`, \`manage:*\` or \`read:usage\`. Limits are at most the calling key's. At most ${MAX_ACTIVE_KEYS} keys may be active.`,
  method: 'POST',
  path: '/keys',
  tag: 'Keys',
  effect: 'write',
  successStatus: 201,
  scopes: keyScopes,
  refuses: MINTS_KEYS,
  body: z.strictObject({
    name: keyNameSchema.optional().describe('Key name (1-100 characters); default "API key".'),
    scopes: z
      .array(z.string().max(64))
      .min(1, 'must name at least one scope')
      .max(64)
      .meta({ examples: [['execute:workflow', 'read:usage']] })
      .optional()
      .describe(
        'Scopes of the new key, each one the calling key holds; default: the default key scopes the calling key holds (never `write:*`, `manage:*` or `read:usage`, which must be named).',
      ),
    requests_per_minute: limitField('Requests per minute'),
    requests_per_day: limitField('Requests per UTC day'),
    expires_at: instantInputSchema
      .meta({ examples: ['2030-01-01T00:00:00Z'] })
      .optional()
      .describe('Optional: when the key stops working (ISO 8601, UTC or with an offset, in the future).'),
  }),
  output: createdKeySchema.describe('The new key, and the key itself (shown once).'),
  run: (input, { core, caller }) => core.selfService.createKey(caller, input),
});
