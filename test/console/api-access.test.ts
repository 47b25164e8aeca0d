/**
 * Settings → API Access over the console door: a refused create form keeps what was typed, with
 * each message at its field; a key rotated with a grace period names its successor and offers no
 * second rotation, which the operation refuses.
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

describe('creating a key', () => {
  it('keeps what was typed when refused, the message at its field and worded for the console (regression: the defaults came back)', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    await browser.get(PATH);
    const refused = await browser.post(`${PATH}/keys`, { name: 'my key', scopes: ['write:workflow', 'read:workflow'], requests_per_minute: '500' });
    expect(refused.status).toBe(400);
    expect(refused.html).toMatch(/id="f-requests_per_minute-errors"><li>must be at most 120, the most a key created in the console may have/);
    expect(refused.html).not.toContain("the calling key's own limit");
    expect(refused.html).toContain('value="my key"');
    expect(refused.html).toContain('value="500"');
    expect(refused.html).toMatch(/value="write:workflow" checked/);
    // A default scope left unticked stays unticked, so a second submit gives the key no more than asked.
    expect(refused.html).not.toMatch(/value="execute:workflow" checked/);
    expect((await harness.core.accounts.showAccount(accountId)).keys).toEqual([]);
  });
});
