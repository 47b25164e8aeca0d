/**
 * The console with the user's own long words, in Chromium at 1280 and 390 px: a 200-character
 * resource name and description, a 200-character app name, keys holding every scope, and a busy
 * usage chart (ten models, one with a long name, over a million tokens a day). No page scrolls
 * sideways, and the tables keep their later columns in view on a wide screen (regression: the
 * playground was 2,365 px wide; the runs, compositions, connected-apps and API-keys tables pushed
 * columns, a Revoke button and the rotation choice off-screen). The chart's y axis is as wide as
 * its labels, its groups never share a colour, and its legend wraps on a phone (regression: labels
 * cut from 1,000,000; the 9th model took the 1st's colour; a long model name widened the page).
 * A form sent after the session ended links to the sign-in with the page to return to (regression:
 * helmet's no-referrer left the link without ?next=).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/core/access/scopes.js';
import { CHART_SERIES_LIMIT } from '../../src/console/pages/run/usage-chart.js';
import { usageRecord } from '../db/fixtures.js';
import { consoleBrowser } from '../helpers/console-browser.js';
import { describeViolations, launchChromium, seriousViolations, signInWithChromium } from '../helpers/console-chromium.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const WIDE = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const LONG_NAME = `Quarterly_${'X'.repeat(190)}`;
const LONG_APP_NAME = `Evil_${'A'.repeat(195)}`;
const LONG_MODEL = `openrouter/${'m'.repeat(120)}`;
const REDIRECT_URI = 'http://127.0.0.1:6274/oauth/callback';
const DAY_MS = 86_400_000;

let harness: Harness;
let browser: Browser;
let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-long-names-'));
  const configPath = join(directory, 'porch.config.yaml');
  // A webhook endpoint on the loopback, for its settings page (the SSRF guard allows it here only).
  await writeFile(configPath, JSON.stringify({ webhooks: { allow_hosts: ['127.0.0.1'], poll_interval_ms: 60_000 } }), 'utf8');
  harness = await createHarness({ backgroundWork: false, env: { PORCH_CONFIG: configPath } });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await harness?.close();
  await rm(directory, { recursive: true, force: true });
});

/** Connects an app named `name` to the account over OAuth, as an MCP host would, signed in as `email`. */
async function connectApp(email: string, password: string, name: string): Promise<void> {
  const browserWithoutChromium = consoleBrowser(harness);
  await browserWithoutChromium.get('/console/sign-in');
  expect((await browserWithoutChromium.post('/console/sign-in', { email, password })).status).toBe(303);
  const registered = await fetch(`${harness.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  const clientId = String(((await registered.json()) as { client_id?: string }).client_id);
  const verifier = randomBytes(32).toString('base64url');
  const resource = `${harness.config.publicUrl}/api/public/mcp`;
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 's',
    resource,
  });
  const pathOf = (location: string | null) => {
    const url = new URL(location ?? '', harness.url);
    return url.pathname + url.search;
  };
  const started = await browserWithoutChromium.get(`/oauth/authorize?${query}`);
  const consentPath = pathOf(started.location);
  await browserWithoutChromium.get(consentPath);
  const approved = await browserWithoutChromium.post(consentPath, { decision: 'approve', scope: ['read:workflow', 'execute:workflow'] });
  const resumed = await browserWithoutChromium.get(pathOf(approved.location));
  const code = new URL(resumed.location ?? '').searchParams.get('code') ?? '';
  const exchanged = await fetch(`${harness.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: verifier,
      resource,
    }).toString(),
  });
  expect(exchanged.status).toBe(200);
}

/** How far the page and each table region overflow sideways, in px (0 when they fit). */
async function overflow(page: Page): Promise<{ page: number; tables: Record<string, number> }> {
  return page.evaluate(() => {
    const tables: Record<string, number> = {};
    for (const region of document.querySelectorAll('.table-wrap')) {
      const caption = region.querySelector('caption')?.textContent ?? region.getAttribute('aria-label') ?? '?';
      tables[caption] = region.scrollWidth - region.clientWidth;
    }
    return { page: document.documentElement.scrollWidth - window.innerWidth, tables };
  });
}

/** A select's chosen option's text width with the room its arrow and padding take, and its box's width, in px. */
async function choiceWidths(select: Locator): Promise<{ needed: number; box: number }> {
  return select.evaluate((element: HTMLSelectElement) => {
    const canvas = document.createElement('canvas').getContext('2d');
    const style = getComputedStyle(element);
    if (!canvas) return { needed: Number.POSITIVE_INFINITY, box: 0 };
    canvas.font = style.font;
    const arrowRoom = 20;
    const text = canvas.measureText(element.selectedOptions[0]?.textContent ?? '').width;
    return { needed: text + Number.parseFloat(style.paddingLeft) + Number.parseFloat(style.paddingRight) + arrowRoom, box: element.clientWidth };
  });
}

/** Whether a select shows its chosen option's text whole. */
async function expectChoiceWhole(select: Locator, what: string): Promise<void> {
  const { needed, box } = await choiceWidths(select);
  expect.soft(needed, `${what} is cut: ${needed} px needed in ${box}`).toBeLessThanOrEqual(box);
}

async function open(context: BrowserContext, path: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${harness.url}${path}`);
  return page;
}

describe('long names and busy charts', () => {
  it('keep every page within the screen at 1280 and 390 px, the wide tables’ columns in view; the pages pass axe', async () => {
    const { context, accountId, email, password } = await signInWithChromium(browser, harness);
    const ids = (
      await harness.core.bundles.importBundle(accountId, {
        version: 1,
        compositions: [
          {
            key: 'long',
            name: LONG_NAME,
            description: LONG_NAME,
            template: 'Hi {{customer_name_of_the_account}}',
            variables: [{ name: 'customer_name_of_the_account', required: true }],
          },
        ],
      })
    ).ids;
    const compositionId = ids['composition:long'] ?? '';
    const { key } = await harness.createKey(accountId, { scopes: [...ALL_SCOPES] });
    for (let run = 0; run < 2; run++) {
      const ran = await harness.api('POST', `/compositions/${compositionId}/execute`, { key, body: { variables: { customer_name_of_the_account: 'Ada' } } });
      expect(ran.status).toBe(200);
    }
    // A key rotated with a grace period: its status cell grows ("active until ...; rotated; replaced by ...").
    const rotated = await harness.createKey(accountId, { scopes: [...ALL_SCOPES] });
    expect((await harness.api('POST', `/keys/${rotated.id}/rotate`, { key, body: { grace_seconds: 3_600 } })).status).toBe(201);
    await connectApp(email, password, LONG_APP_NAME);
    const webhook = await harness.api<{ endpoint: { id: string } }>('POST', '/webhooks', {
      key,
      body: { url: 'http://127.0.0.1:9/hook', events: ['run.completed'] },
    });
    expect(webhook.status).toBe(201);
    const now = harness.clock.now();
    for (let model = 0; model < 10; model++) {
      for (const daysAgo of [1, 2]) {
        await harness.store.usage.insert(
          usageRecord(accountId, {
            model: model === 9 ? LONG_MODEL : `provider/model-${model}`,
            totalTokens: 1_250_000 + model * 100_000,
            chargedTokens: 1_250_000,
            createdAt: now - daysAgo * DAY_MS,
          }),
        );
      }
    }
    const paths = [
      '/console',
      '/console/compositions',
      `/console/compositions/${compositionId}`,
      `/console/compositions/${compositionId}/versions`,
      '/console/runs',
      `/console/playground?resource=${encodeURIComponent(`composition:${compositionId}`)}`,
      '/console/settings/api-access',
      `/console/settings/webhooks/${webhook.body.data.endpoint.id}`,
    ];
    // Tables that must fit a wide screen whole: each holds one of the long names, or every scope.
    const wholeAtWide = ['1 composition', 'The latest runs', 'Runs, newest recorded first', 'Apps connected with OAuth', 'Your API keys'];
    const cookies = await context.cookies();
    await context.close();
    for (const [viewport, scheme] of [
      [WIDE, 'light'],
      [PHONE, 'dark'],
    ] as const) {
      const sized = await browser.newContext({ viewport, colorScheme: scheme });
      await sized.addCookies(cookies);
      for (const path of paths) {
        const page = await open(sized, path);
        if (path === '/console') await page.locator('[data-usage-chart="credits"] canvas').waitFor();
        const measured = await overflow(page);
        expect.soft(measured.page, `${path} at ${viewport.width} px: the page scrolls sideways`).toBeLessThanOrEqual(0);
        if (viewport === WIDE) {
          for (const caption of wholeAtWide) {
            if (caption in measured.tables) expect.soft(measured.tables[caption], `${path}: "${caption}" scrolls at 1280 px`).toBeLessThanOrEqual(0);
          }
        }
        expect.soft(describeViolations(await seriousViolations(page)), `${path} at ${viewport.width} px, ${scheme}`).toBe('');
        await page.close();
      }
      if (viewport === WIDE) {
        // The keys table is whole: the rotation choice reads in full; the app's Revoke is on screen.
        const keys = await open(sized, '/console/settings/api-access');
        await expectChoiceWhole(keys.locator('select.grace').first(), 'the key’s rotation choice');
        const revoke = await keys.getByRole('button', { name: 'Revoke' }).last().boundingBox();
        expect.soft((revoke?.x ?? Number.POSITIVE_INFINITY) + (revoke?.width ?? 0), 'the app’s Revoke is off-screen').toBeLessThanOrEqual(WIDE.width);
        await keys.close();
      } else {
        // The rotation choice and the variable names read whole on a phone.
        const settings = await open(sized, `/console/settings/webhooks/${webhook.body.data.endpoint.id}`);
        await expectChoiceWhole(settings.locator('#grace'), 'the secret’s rotation choice');
        await settings.close();
        const editor = await open(sized, `/console/compositions/${compositionId}`);
        const nameBox = editor.locator('input[name="variables[0].name"]');
        expect.soft(await nameBox.evaluate((input: HTMLInputElement) => input.scrollWidth <= input.clientWidth), 'the variable name is cut').toBe(true);
        await editor.close();
      }
      await sized.close();
    }
  });

  it('draws a busy usage chart with its y labels whole, one colour per group, and the legend within a phone’s width', async () => {
    const { context, accountId } = await signInWithChromium(browser, harness, { viewport: PHONE });
    const now = harness.clock.now();
    for (let model = 0; model < 10; model++) {
      await harness.store.usage.insert(
        usageRecord(accountId, { model: model === 9 ? LONG_MODEL : `provider/model-${model}`, totalTokens: 4_200_000 + model, createdAt: now - DAY_MS }),
      );
    }
    await context.addInitScript(() => {
      const kept: unknown[] = [];
      let original: unknown;
      Object.defineProperty(window, 'uPlot', {
        configurable: true,
        get: () => original,
        set(value: new (...args: unknown[]) => unknown) {
          const wrapped = function (this: unknown, ...args: unknown[]) {
            const plot = new value(...args);
            kept.push(plot);
            return plot;
          };
          Object.assign(wrapped, value);
          original = wrapped;
        },
      });
      Object.defineProperty(window, 'keptPlots', { value: kept });
    });
    const page = await context.newPage();
    await page.goto(`${harness.url}/console`);
    await page.locator('[data-usage-chart="credits"] canvas').waitFor();
    const drawn = await page.evaluate(() => {
      type Plot = {
        ctx: CanvasRenderingContext2D;
        axes: Array<{ _size: number; _values: string[]; font: string[]; gap: number; ticks: { size: number } }>;
        series: Array<{ label: string; fill?: string | ((self: unknown, seriesIndex: number) => string) }>;
      };
      const plots = (window as unknown as { keptPlots: Plot[] }).keptPlots;
      return plots.map((plot) => {
        const axis = plot.axes[1];
        plot.ctx.font = axis?.font[0] ?? '';
        const widest = Math.max(...(axis?._values ?? []).map((label) => plot.ctx.measureText(label).width / devicePixelRatio));
        return {
          labels: [...(axis?._values ?? [])],
          room: (axis?._size ?? 0) - (axis?.ticks.size ?? 0) - (axis?.gap ?? 0),
          widest,
          fills: plot.series.slice(1).map((series, index) => (typeof series.fill === 'function' ? series.fill(plot, index + 1) : String(series.fill))),
          labelsOfSeries: plot.series.slice(1).map((series) => series.label),
        };
      });
    });
    const tokens = drawn[0];
    expect(tokens).toBeDefined();
    expect(
      tokens?.labels.some((label) => /M$/.test(label)),
      JSON.stringify(tokens?.labels),
    ).toBe(true);
    expect(tokens?.room ?? 0).toBeGreaterThanOrEqual(tokens?.widest ?? Number.POSITIVE_INFINITY);
    expect(tokens?.fills.length).toBe(CHART_SERIES_LIMIT);
    expect(new Set(tokens?.fills).size).toBe(tokens?.fills.length);
    expect(tokens?.labelsOfSeries).toContain('Other models (3)');
    // The table beside the chart still lists every model, exactly.
    expect(await page.locator('td.name', { hasText: 'provider/model-0' }).count()).toBe(1);
    expect(await page.locator('td.name', { hasText: LONG_MODEL }).count()).toBe(1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    expect(describeViolations(await seriousViolations(page))).toBe('');
    await context.close();
  });

  it('links the session-ended page to the sign-in with the page the form was sent from', async () => {
    const { context, page } = await signInWithChromium(browser, harness);
    await page.goto(`${harness.url}/console/judge`);
    await context.clearCookies();
    await page.getByRole('button', { name: 'Judge', exact: true }).click();
    await page.getByText('Your session has ended; sign in again.').waitFor();
    expect(await page.getByRole('link', { name: 'Sign in again (new tab)' }).getAttribute('href')).toBe(
      `/console/sign-in?next=${encodeURIComponent('/console/judge')}`,
    );
    await context.close();
  });
});
