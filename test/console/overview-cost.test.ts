/**
 * What the overview and a run's page cost against the session's rate limit (each operation call
 * counts once), and that the overview's figures are get_usage's exactly. Regression: the
 * overview asked get_usage once per day that had usage, so a few reloads of a busy account's
 * overview locked the whole console out with 429; a run's page, polled every 2 s while the run is
 * in flight, listed all four resource kinds to name the run's resource each time.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { type ConsoleBrowser, consoleBrowser, signedInBrowser } from '../helpers/console-browser.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';

const DAY_MS = 86_400_000;
const USAGE_DAYS = 30;
const DAYS_WITH_USAGE = 6;
/** get_account, get_usage three times (by day, by the split, by day and split), list_runs and the four lists that name the runs' resources. */
const OVERVIEW_CALLS = 9;
/** get_run and the run's resource. */
const RUN_PAGE_CALLS = 2;

interface UsageRow {
  group: string | null;
  requests: number;
  total_tokens: number;
  credits_charged: number;
}
interface Usage {
  rows: UsageRow[];
  totals: Omit<UsageRow, 'group'>;
}
interface ChartData {
  split: string;
  days: number[];
  series: Array<{ label: string; tokens: number[]; credits: number[] }>;
}

let harness: Harness;
let browser: ConsoleBrowser;
let key: string;
let readKey: string;
let ids: Record<string, string>;
let queuedRunId: string;

beforeAll(async () => {
  // No background work: the queued run stays queued, so its page polls.
  harness = await createHarness({ backgroundWork: false });
  const signedIn = await signedInBrowser(harness);
  ids = (await harness.core.bundles.importBundle(signedIn.accountId, DEMO_BUNDLE)).ids;
  key = (await harness.createKey(signedIn.accountId)).key;
  readKey = (await harness.createKey(signedIn.accountId, { scopes: ['read:usage'] })).key;
  // Usage on several days, of two operations (and a workflow, whose own row has no single model).
  for (let day = 0; day < DAYS_WITH_USAGE; day += 1) {
    const composition = await harness.api('POST', `/compositions/${ids['composition:release-notes']}/execute`, { key, body: { variables: RELEASE_VARIABLES } });
    expect(composition.status, describeResponse(composition)).toBe(200);
    if (day % 2 === 0) {
      const skill = await harness.api('POST', `/skills/${ids['skill:summarise']}/execute`, {
        key,
        body: { input: `Day ${day}: Porch runs workflows.`, variables: { bullets: 2 } },
      });
      expect(skill.status, describeResponse(skill)).toBe(200);
    }
    if (day === 3) {
      const workflow = await harness.api('POST', `/workflows/${ids['workflow:release-announcement']}/execute`, { key, body: { variables: RELEASE_VARIABLES } });
      expect(workflow.status, describeResponse(workflow)).toBe(200);
    }
    harness.clock.advance(DAY_MS);
  }
  const queued = await harness.api<{ run_id: string }>('POST', `/compositions/${ids['composition:release-notes']}/execute`, {
    key,
    body: { variables: RELEASE_VARIABLES },
    headers: { prefer: 'respond-async' },
  });
  expect(queued.status, describeResponse(queued)).toBe(202);
  queuedRunId = queued.body.data.run_id;
  harness.clock.advance(60_000);
  // Days went by: sign in afresh (the first session has expired meanwhile).
  browser = consoleBrowser(harness);
  await browser.get('/console/sign-in');
  const signIn = await browser.post('/console/sign-in', { email: signedIn.email, password: signedIn.password, next: '/console' });
  expect(signIn.status, signIn.html.slice(0, 500)).toBe(303);
});
afterAll(async () => {
  vi.restoreAllMocks();
  await harness.close();
});

/** How many operation calls `load` made (each is counted once by the rate limiter). */
async function callsDuring(load: () => Promise<unknown>): Promise<number> {
  const consume = vi.spyOn(harness.core.rateLimiter, 'consume');
  try {
    await load();
    return consume.mock.calls.length;
  } finally {
    consume.mockRestore();
  }
}

function chartOf(html: string): ChartData {
  const block = /<script type="application\/json" id="usage-chart-data">([^<]*)<\/script>/.exec(html)?.[1];
  if (block === undefined) throw new Error(`no chart data in ${html.slice(html.indexOf('<main'), html.indexOf('<main') + 2000)}`);
  return JSON.parse(block) as ChartData;
}

async function usage(query: string): Promise<Usage> {
  const response = await harness.api<Usage>('GET', `/usage?${query}`, { key: readKey });
  expect(response.status, describeResponse(response)).toBe(200);
  return response.body.data;
}

describe('the overview’s cost against the session’s rate limit (regression: one get_usage per day with usage)', () => {
  it('costs the same few calls however many days had usage', async () => {
    for (const split of ['model', 'operation']) {
      const calls = await callsDuring(async () => {
        const page = await browser.get(`/console?split=${split}`);
        expect(page.status).toBe(200);
      });
      expect(calls, `GET /console?split=${split}`).toBeLessThanOrEqual(OVERVIEW_CALLS);
    }
  });

  it('shows get_usage’s numbers exactly: each day of the chart, the split’s totals and the days’ table', async () => {
    const to = new Date(harness.clock.now());
    const from = new Date(to.getTime() - USAGE_DAYS * DAY_MS);
    const range = `from=${from.toISOString()}&to=${to.toISOString()}`;
    for (const split of ['model', 'operation']) {
      const page = await browser.get(`/console?split=${split}`);
      const chart = chartOf(page.html);
      expect(chart.split).toBe(split);
      const byDay = await usage(`${range}&group_by=day`);
      expect(byDay.rows.length).toBe(DAYS_WITH_USAGE);
      // Each day's bar, against get_usage asked for that day alone.
      for (const dayRow of byDay.rows) {
        const dayStart = Date.parse(`${dayRow.group}T00:00:00Z`);
        const slot = chart.days.indexOf(dayStart / 1000);
        expect(slot, `${dayRow.group} in ${chart.days.join(',')}`).toBeGreaterThanOrEqual(0);
        const dayFrom = new Date(Math.max(dayStart, from.getTime())).toISOString();
        const dayTo = new Date(Math.min(dayStart + DAY_MS, to.getTime())).toISOString();
        const oneDay = await usage(`from=${dayFrom}&to=${dayTo}&group_by=${split}`);
        for (const series of chart.series) {
          const row = oneDay.rows.find((candidate) => (candidate.group ?? '(no single model)') === series.label);
          expect(series.tokens[slot], `${series.label} on ${dayRow.group}`).toBe(row?.total_tokens ?? 0);
          expect(series.credits[slot], `${series.label} on ${dayRow.group}`).toBe(row?.credits_charged ?? 0);
        }
      }
      // No bar on a day without usage.
      const usedSlots = new Set(byDay.rows.map((row) => chart.days.indexOf(Date.parse(`${row.group}T00:00:00Z`) / 1000)));
      for (const series of chart.series) {
        const unused = series.tokens.filter((_tokens, slot) => !usedSlots.has(slot));
        expect(
          unused.every((tokens) => tokens === 0),
          series.label,
        ).toBe(true);
      }
      // The tables: the split's totals and the days, as get_usage states them.
      const bySplit = await usage(`${range}&group_by=${split}`);
      for (const row of [...bySplit.rows, ...byDay.rows]) {
        expect(page.html).toContain(`>${row.group ?? '(no single model)'}</td>`);
      }
      expect(page.html).toContain(`<div class="figure">${byDay.totals.total_tokens.toLocaleString('en')}</div>`);
      expect(page.html).toContain(`<div class="figure">${byDay.totals.requests.toLocaleString('en')}</div>`);
      expect(bySplit.totals).toEqual(byDay.totals);
      // The split the chart reads, as an API client reads it.
      const byDayAndSplit = await usage(`${range}&group_by=day&split_by=${split}`);
      expect(byDayAndSplit.totals).toEqual(byDay.totals);
      expect(byDayAndSplit.rows.every((row) => 'split' in row)).toBe(true);
    }
  });
});

describe('a run’s page, which polls every 2 s while the run is in flight (regression: five calls a poll)', () => {
  it('costs two calls and still names the run’s resource', async () => {
    let html = '';
    const calls = await callsDuring(async () => {
      const page = await browser.get(`/console/runs/${queuedRunId}`);
      expect(page.status).toBe(200);
      html = page.html;
    });
    expect(html).toContain('hx-trigger="every 2s"');
    expect(html).toContain('Run of composition Release notes');
    expect(calls).toBeLessThanOrEqual(RUN_PAGE_CALLS);
  });
});
