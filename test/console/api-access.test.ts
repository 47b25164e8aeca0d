/**
 * Settings → API Access over the console door: a key rotated with a grace period names its
 * successor and offers no second rotation, which the operation refuses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInBrowser } from '../helpers/console-browser.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const PATH = '/console/settings/api-access';

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness({ backgroundWork: false });
});
afterAll(async () => {
  await harness.close();
});

describe('rotating a key', () => {
  it('shows the old key as rotated, naming its successor, with Revoke but no Rotate; a second rotation is refused with 409', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const { id } = await harness.createKey(accountId);
    await browser.get(PATH);
    const rotated = await browser.post(`${PATH}/keys/${id}/rotate`, { grace_seconds: '3600' });
    expect(rotated.status, rotated.html.slice(0, 500)).toBe(200);

    const keys = (await harness.core.accounts.showAccount(accountId)).keys;
    const successor = keys.find((key) => key.id !== id);
    expect(keys.find((key) => key.id === id)).toMatchObject({ status: 'active', replaced_by: successor?.id });

    const page = await browser.get(PATH);
    expect(page.html).toContain(`rotated; replaced by <code>${successor?.prefix}…</code>`);
    expect(page.html).not.toContain(`${PATH}/keys/${id}/rotate`);
    expect(page.html).toContain(`${PATH}/keys/${id}/revoke`);
    expect(page.html).toContain(`${PATH}/keys/${successor?.id}/rotate`);

    const again = await browser.post(`${PATH}/keys/${id}/rotate`, { grace_seconds: '0' });
    expect(again.status).toBe(409);
    expect(again.html).toContain(`Key ${id} was already rotated; its successor is key ${successor?.id}.`);
    expect((await harness.core.accounts.showAccount(accountId)).keys).toHaveLength(2);
  });
});
