import { z } from 'zod';
import { MAX_ROTATION_GRACE_SECONDS } from '../core/accounts/accounts.js';
import { defineKeyedOperation } from './operation.js';
import { idParams } from './schemas.js';
import { createdKeySchema, keyScopes, MINTS_KEYS, ownKeySchema } from './self-service-schemas.js';

export const rotateKey = defineKeyedOperation({
  name: 'rotate_key',
  title: 'Rotate an API key',
  description: `Issues a new key with the same name, scopes, limits and expiry as one of the account's active keys, and answers it once (api_key). The old key is revoked at once, or with grace_seconds (up to ${MAX_ROTATION_GRACE_SECONDS}, 24 h) keeps working until then, so clients can switch without a gap. A key may rotate itself, or another key with no scope it lacks, no higher limits and no later expiry. A key is rotated once: the old key's replaced_by names its successor, and rotating it again is 409 CONFLICT naming the successor to rotate instead.`,
  method: 'POST',
  path: '/keys/{id}/rotate',
  tag: 'Keys',
  effect: 'write',
  successStatus: 201,
  scopes: keyScopes,
  refuses: MINTS_KEYS,
  params: idParams,
  body: z.strictObject({
    grace_seconds: z
      .number()
      .int('must be a whole number')
      .min(0, 'must be at least 0')
      .max(MAX_ROTATION_GRACE_SECONDS, `must be at most ${MAX_ROTATION_GRACE_SECONDS}`)
      .default(0)
      .describe(`Seconds the old key keeps working (0-${MAX_ROTATION_GRACE_SECONDS}); 0, the default, revokes it at once.`),
  }),
  output: createdKeySchema
    .extend({ previous: ownKeySchema.describe('The old key: revoked, or active until expires_at.') })
    .describe('The new key, the key itself (shown once), and the old key.'),
  run: ({ id, grace_seconds }, { core, caller }) => core.selfService.rotateKey(caller, id, grace_seconds),
});
