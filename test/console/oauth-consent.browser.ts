/**
 * Connecting an MCP host with OAuth, in Chromium: the host's authorization request sends a
 * visitor to the console's sign-in, then to the consent page (client name, where the browser
 * returns, scopes as checkboxes); approving returns a code to the host's redirect URI, the code
 * becomes a token that works on MCP, and the app then shows under Settings → API access, where
 * Revoke disconnects it. The consent page passes axe and is photographed in four variants.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeViolations, launchChromium, screenshotVariants, seriousViolations, signInWithChromium } from '../helpers/console-chromium.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { HOST_REDIRECT_URI } from '../helpers/oauth-host.js';

let harness: Harness;
let browser: Browser;
beforeAll(async () => {
  harness = await createHarness({ backgroundWork: false, publicPort: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

async function registerHost(): Promise<string> {
  const response = await fetch(`${harness.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Claude Desktop', redirect_uris: [HOST_REDIRECT_URI], token_endpoint_auth_method: 'none' }),
  });
  const body = (await response.json()) as { client_id: string };
  expect(response.status).toBe(201);
  return body.client_id;
}

function authorizationUrl(clientId: string, challenge: string): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: HOST_REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'browser-state',
    scope: 'read:workflow execute:workflow api:judge',
    resource: `${harness.url}/api/public/mcp`,
  });
  return `${harness.url}/oauth/authorize?${query}`;
}

/** The host's redirect URI is not served: the browser's arrival there is caught and its URL kept. */
async function catchCallback(page: Page): Promise<{ arrival: Promise<URL> }> {
  let arrived: (url: URL) => void = () => undefined;
  const callback = new Promise<URL>((resolve) => {
    arrived = resolve;
  });
  await page.route('http://127.0.0.1:6274/**', async (route) => {
    arrived(new URL(route.request().url()));
    await route.fulfill({ status: 200, contentType: 'text/plain', body: 'host callback' });
  });
  // Wrapped: an async function returning the promise itself would wait for the arrival.
  return { arrival: callback };
}

describe('connecting an MCP host in a browser', () => {
  it('signs in, approves chosen scopes, returns a code that becomes a working MCP token, then disconnects it', async () => {
    const clientId = await registerHost();
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const { context, page } = await signInWithChromium(browser, harness);
    const { arrival } = await catchCallback(page);

    await page.goto(authorizationUrl(clientId, challenge));
    await page.waitForURL(/\/console\/connect\//);
    expect(await page.locator('h1').textContent()).toBe('Connect Claude Desktop to Porch?');
    await expect.poll(() => page.getByText('127.0.0.1:6274').count()).toBeGreaterThan(0);
    expect(describeViolations(await seriousViolations(page))).toBe('');
    // The host asked for three scopes; the person keeps two.
    expect(await page.getByRole('checkbox', { name: /api:judge/ }).isChecked()).toBe(true);
    await page.getByRole('checkbox', { name: /api:judge/ }).uncheck();
    await page.getByRole('button', { name: 'Approve' }).click();

    const arrivedAt = await arrival;
    expect(arrivedAt.searchParams.get('state')).toBe('browser-state');
    const code = arrivedAt.searchParams.get('code');
    expect(code, arrivedAt.href).toBeTruthy();
    const exchanged = await fetch(`${harness.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: String(code),
        redirect_uri: HOST_REDIRECT_URI,
        client_id: clientId,
        code_verifier: verifier,
      }).toString(),
    });
    const tokens = (await exchanged.json()) as { access_token: string; scope?: string };
    expect(exchanged.status, JSON.stringify(tokens)).toBe(200);
    const listTools = () =>
      fetch(`${harness.url}/api/public/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${tokens.access_token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
    const listed = await listTools();
    const names = ((await listed.json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map((tool) => tool.name);
    expect(names).toContain('execute_workflow');
    expect(names).not.toContain('run_judge');

    await page.goto(`${harness.url}/console/settings/api-access`);
    await page.getByRole('cell', { name: 'Claude Desktop' }).waitFor();
    expect(describeViolations(await seriousViolations(page))).toBe('');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Disconnected Claude Desktop').waitFor();
    expect((await listTools()).status).toBe(401);
    await context.close();
  });

  it('photographs the consent page, which passes axe in every variant', async () => {
    const clientId = await registerHost();
    const { context, page } = await signInWithChromium(browser, harness);
    await page.goto(authorizationUrl(clientId, createHash('sha256').update('v'.repeat(43)).digest('base64url')));
    await page.waitForURL(/\/console\/connect\//);
    const consentUrl = page.url();
    await screenshotVariants(context, 'oauth-consent', async (variant) => {
      await variant.goto(consentUrl);
      expect(describeViolations(await seriousViolations(variant))).toBe('');
    });
    await context.close();
  });
});
