/**
 * The refine page and Settings → Webhooks in Chromium: the link a real `analyze_prompt` call
 * hands out opens with the same prompt and scores (and says so when it carried only the first part
 * of a longer prompt), typing changes the scores (and the address),
 * the form works with JavaScript off; an endpoint registered in the page receives a real signed
 * delivery, which the log shows and redelivers. Every page passes axe and is photographed in four
 * variants.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PromptAnalysis } from '../../src/core/analyzer/index.js';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { describeViolations, launchChromium, screenshotVariants, seriousViolations, signInWithChromium } from '../helpers/console-chromium.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { connectHttp, describeResult } from '../helpers/mcp-client.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { startWebhookReceiver, verifyReceived, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const PROMPT = 'Summarise this email for my manager.';

let harness: Harness;
let browser: Browser;
let receiver: WebhookReceiver;
let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-console-browser-'));
  const configPath = join(directory, 'porch.config.yaml');
  await writeFile(configPath, JSON.stringify({ webhooks: { allow_hosts: ['127.0.0.1'], poll_interval_ms: 60_000 } }), 'utf8');
  harness = await createHarness({ env: { PORCH_CONFIG: configPath } });
  harness.clock.set(Date.now());
  receiver = await startWebhookReceiver();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await harness?.close();
  await receiver?.close();
  await rm(directory, { recursive: true, force: true });
});

async function analyseOverMcp(prompt: string): Promise<PromptAnalysis> {
  const connection = await connectHttp(harness);
  try {
    const result = await connection.client.callTool({ name: 'analyze_prompt', arguments: { prompt } });
    expect(result.isError, describeResult(result)).toBeFalsy();
    return result.structuredContent as PromptAnalysis;
  } finally {
    await connection.close();
  }
}

/** The refine link on the test server (the harness's public URL names port 0). */
function onServer(refineUrl: string): string {
  const link = new URL(refineUrl);
  return `${harness.url}${link.pathname}${link.search}`;
}

async function shownScore(page: Page, name: string): Promise<number> {
  return Number(await page.locator(`[data-score="${name}"]`).textContent());
}

async function runOnce(accountId: string): Promise<void> {
  const { key } = await harness.createKey(accountId, { scopes: ['execute:composition'] });
  const compositionId = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids['composition:release-notes'] ?? '';
  const executed = await harness.api('POST', `/compositions/${compositionId}/execute`, { key, body: { variables: RELEASE_VARIABLES } });
  expect(executed.status, describeResponse(executed)).toBe(200);
  await harness.core.webhookWorker.drain();
}

describe('the refine page in a browser', () => {
  it('opens an analyze_prompt link with its prompt and scores, and re-analyses as the author types', async () => {
    const analysis = await analyseOverMcp(PROMPT);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(onServer(analysis.refine_url));
    expect(await page.locator('#prompt').inputValue()).toBe(PROMPT);
    expect(await shownScore(page, 'overall')).toBe(analysis.overall);
    expect(await shownScore(page, 'format')).toBe(analysis.scores.format);
    expect(describeViolations(await seriousViolations(page))).toBe('');

    const better = `You are a senior executive assistant. ${PROMPT} Answer as 3 bullet points of at most 20 words each, in a neutral tone; if the email has no decision, say "No decision".`;
    await page.locator('#prompt').fill(better);
    const expected = await analyseOverMcp(better);
    expect(expected.overall).not.toBe(analysis.overall);
    await page.waitForFunction((score) => document.querySelector('[data-score="overall"]')?.textContent === String(score), expected.overall);
    expect(await shownScore(page, 'role')).toBe(expected.scores.role);
    await page.waitForURL((url) => url.searchParams.get('prompt') === better);
    expect(describeViolations(await seriousViolations(page))).toBe('');
    await context.close();
  });

  it('says when the link carried only the first part of a longer prompt, until the author edits it, passing axe', async () => {
    const long = `${PROMPT} ${'Mention the budget, the deadline and who decides. '.repeat(50)}`;
    const analysis = await analyseOverMcp(long);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(onServer(analysis.refine_url));
    const notice = page.getByRole('status').filter({ hasText: 'was shortened' });
    expect(await notice.textContent()).toContain(`shortened to its first 2,000 of ${[...long].length.toLocaleString('en')} characters`);
    expect(describeViolations(await seriousViolations(page))).toBe('');
    await page.locator('#prompt').fill(PROMPT);
    await page.waitForFunction(() => !document.querySelector('#analysis')?.textContent?.includes('was shortened'));
    await context.close();
  });

  it('analyses with JavaScript off when the form is sent', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${harness.url}/refine`);
    await page.locator('#prompt').fill(PROMPT);
    await page.getByRole('button', { name: 'Analyse' }).click();
    await page.locator('[data-score="overall"]').waitFor();
    expect(await shownScore(page, 'overall')).toBe((await analyseOverMcp(PROMPT)).overall);
    await context.close();
  });

  it('shows the account of a signed-in author in the frame', async () => {
    const { context, page, email } = await signInWithChromium(browser, harness);
    await page.goto(onServer((await analyseOverMcp(PROMPT)).refine_url));
    expect(await page.getByText(email).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Refine a prompt' }).getAttribute('aria-current')).toBe('page');
    expect(describeViolations(await seriousViolations(page))).toBe('');
    await context.close();
  });
});

describe('webhooks in a browser', () => {
  it('registers an endpoint, copies its secret, sees a delivery, redelivers it and deletes the endpoint', async () => {
    const { context, page, accountId } = await signInWithChromium(browser, harness);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    expect(describeViolations(await seriousViolations(page))).toBe('');
    await page.getByLabel('URL').fill(`${receiver.url}/browser`);
    await page.getByLabel('Description (optional)').fill('release notifier');
    await page.getByRole('button', { name: 'Register endpoint' }).click();
    const secret = (await page.locator('#new-secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    expect(describeViolations(await seriousViolations(page))).toBe('');

    await runOnce(accountId);
    const delivered = await receiver.nextRequest();
    expect(verifyReceived(delivered, secret)).toMatchObject({ type: 'run.completed' });

    await page.goto(`${harness.url}/console/settings/webhooks`);
    await page.getByRole('link', { name: `Deliveries and settings of ${receiver.url}/browser` }).click();
    await page.getByText('succeeded').first().waitFor();
    expect(describeViolations(await seriousViolations(page))).toBe('');
    await page.getByRole('button', { name: /^Redeliver run\.completed/ }).click();
    await page.getByText('is queued again').waitFor();
    await harness.core.webhookWorker.drain();
    expect((await receiver.nextRequest()).headers['webhook-id']).toBe(delivered.headers['webhook-id']);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByText(`Deleted the endpoint ${receiver.url}/browser`).waitFor();
    await context.close();
  });

  it('photographs the refine page with scores (and with a shortened link), the webhooks list and an endpoint with its deliveries, each passing axe', async () => {
    const analysis = await analyseOverMcp(PROMPT);
    const anonymous = await browser.newContext();
    await screenshotVariants(anonymous, 'refine', async (page) => {
      await page.goto(onServer(analysis.refine_url));
      expect(describeViolations(await seriousViolations(page))).toBe('');
    });
    const shortened = await analyseOverMcp(`${PROMPT} ${'Mention the budget, the deadline and who decides. '.repeat(50)}`);
    await screenshotVariants(anonymous, 'refine-shortened', async (page) => {
      await page.goto(onServer(shortened.refine_url));
      expect(describeViolations(await seriousViolations(page))).toBe('');
    });
    await anonymous.close();

    const { context, page, accountId } = await signInWithChromium(browser, harness);
    await page.goto(`${harness.url}/console/settings/webhooks`);
    await page.getByLabel('URL').fill(`${receiver.url}/hooks/porch-events`);
    await page.getByLabel('Description (optional)').fill('release notifier');
    await page.getByRole('button', { name: 'Register endpoint' }).click();
    await page.locator('#new-secret').waitFor();
    await page.getByLabel('URL').fill(`${receiver.url}/hooks/balance`);
    await page.getByLabel('Description (optional)').fill('');
    await page.getByLabel('run.completed').uncheck();
    await page.getByLabel('run.failed').uncheck();
    await page.getByLabel('credits.low').check();
    await page.getByRole('button', { name: 'Register endpoint' }).click();
    await page.locator('#new-secret').waitFor();
    await page.getByLabel('Threshold, in credits (empty: off)').fill('50');
    await page.getByRole('button', { name: 'Save threshold' }).click();
    await page.getByText('credits.low now fires below 50 credits.').waitFor();
    receiver.respondWith({ kind: 'status', status: 204 }, { kind: 'status', status: 500 });
    await runOnce(accountId);
    await runOnce(accountId);
    const detail = page.getByRole('link', { name: `Deliveries and settings of ${receiver.url}/hooks/porch-events` });
    await page.goto(`${harness.url}/console/settings/webhooks`);
    const detailPath = (await detail.getAttribute('href')) ?? '';

    for (const [name, path] of [
      ['webhooks', '/console/settings/webhooks'],
      ['webhook-detail', detailPath],
    ] as const) {
      await screenshotVariants(context, name, async (shot) => {
        await shot.goto(`${harness.url}${path}`);
        expect(describeViolations(await seriousViolations(shot)), path).toBe('');
      });
    }
    await context.close();
  });
});
