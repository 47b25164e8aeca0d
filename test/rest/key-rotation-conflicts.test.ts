/**
 * A key that is not rotatable (revoked, expired, or rotated before) is refused alike: 409
 * CONFLICT saying why (regression: a revoked key was 400 VALIDATION_ERROR, a rotated one 409).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness();
});
afterAll(() => harness.close());

it('refuses to rotate a revoked, an expired or an already rotated key with 409 CONFLICT saying why', async () => {
  const { accountId, key } = await harness.expertWithKey();
  const revoked = await harness.createKey(accountId);
  await harness.core.accounts.revokeKey(revoked.id);
  const revokedRotation = await harness.api('POST', `/keys/${revoked.id}/rotate`, { key });
  expect(revokedRotation.status, describeResponse(revokedRotation)).toBe(409);
  expect(revokedRotation.body.error).toMatchObject({
    code: 'CONFLICT',
    message: `Key ${revoked.id} is revoked; only an active key can be rotated. Create a new key instead.`,
  });

  const expiring = await harness.api<{ key: { id: string } }>('POST', '/keys', {
    key,
    body: { name: 'short-lived', scopes: ['api:sanitiser'], expires_at: new Date(harness.clock.now() + 60_000).toISOString() },
  });
  expect(expiring.status, describeResponse(expiring)).toBe(201);
  harness.clock.advance(120_000);
  const expiredRotation = await harness.api('POST', `/keys/${expiring.body.data.key.id}/rotate`, { key });
  expect(expiredRotation.status, describeResponse(expiredRotation)).toBe(409);
  expect(expiredRotation.body.error.message).toContain('is expired');

  // Rotated without a grace period, the old key is revoked and names its successor: the refusal names it too.
  const rotatedOnce = await harness.createKey(accountId);
  const rotation = await harness.api<{ key: { id: string } }>('POST', `/keys/${rotatedOnce.id}/rotate`, { key });
  expect(rotation.status, describeResponse(rotation)).toBe(201);
  const again = await harness.api('POST', `/keys/${rotatedOnce.id}/rotate`, { key });
  expect(again.status, describeResponse(again)).toBe(409);
  expect(again.body.error.message).toContain(`its successor is key ${rotation.body.data.key.id}`);
});
