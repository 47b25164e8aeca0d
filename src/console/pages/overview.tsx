/**
 * The console's home: credits, the last 30 days of usage by day, and the latest runs. Every figure
 * comes from the operations an API client would call (get_account, get_usage, list_runs).
 */
import { getAccount } from '../../operations/get-account.js';
import { getUsage } from '../../operations/get-usage.js';
import { listRuns } from '../../operations/list-runs.js';
import { CONSOLE_PATHS } from '../../operations/site-paths.js';
import type { Clock } from '../../core/clock.js';
import type { ConsoleAssets } from '../assets.js';
import type { PageRegistrar } from '../console-pages.js';
import { credits, wholeNumber } from './format.js';
import { Notice, TableWrap } from './layout.js';
import { listResources } from './run/resources.js';
import { RunsTable } from './runs.js';
import { loadUsageBreakdown, USAGE_SPLITS, UsageChart, type UsageSplit } from './run/usage-chart.js';

const RECENT_RUNS = 10;
const USAGE_DAYS = 30;
const DAY_MS = 86_400_000;

/** What the overview needs besides the operations: the chart's asset URLs, and the server's clock (tests move it by hand). */
export interface OverviewDependencies {
  assets: Pick<ConsoleAssets, 'url'>;
  clock: Clock;
}

export function registerOverviewPage(pages: PageRegistrar, { assets, clock }: OverviewDependencies): void {
  pages.page('GET', CONSOLE_PATHS.root, async ({ api, render, req }) => {
    const split: UsageSplit = req.query.split === 'operation' ? 'operation' : 'model';
    const to = new Date(clock.now());
    const from = new Date(to.getTime() - USAGE_DAYS * DAY_MS);
    // A constant number of calls whatever the account holds (each counts against the session's rate limit).
    const [account, usage, breakdownResult, runs] = await Promise.all([
      api.call(getAccount),
      api.call(getUsage, { from: from.toISOString(), to: to.toISOString(), group_by: 'day' }),
      loadUsageBreakdown(api, { from, to }, split),
      api.call(listRuns, { limit: RECENT_RUNS }),
    ]);
    if (!account.ok) throw account.error;
    const breakdown = usage.ok && usage.data.rows.length > 0 ? breakdownResult : null;
    // The runs name their resources, as on the Runs page: ids made in the same minute look alike.
    const names =
      runs.ok && runs.data.items.length > 0 ? new Map((await listResources(api)).map((resource) => [resource.id, resource.name])) : new Map<string, string>();
    const balance = account.data.credits;
    render({
      title: 'Overview',
      active: 'overview',
      body: (
        <section>
          <h1>Overview</h1>
          <p class="lead">
            {account.data.account.name ?? account.data.account.email} · {account.data.organisation.name}
          </p>
          <div class="cards">
            <div class="card">
              <div class="label">Credits available</div>
              <div class="figure">{wholeNumber(balance.available_credits)}</div>
              <div class="label">{wholeNumber(balance.reserved_tokens)} tokens reserved by runs in flight</div>
            </div>
            {usage.ok ? (
              <>
                <div class="card">
                  <div class="label">Requests, last {USAGE_DAYS} days</div>
                  <div class="figure">{wholeNumber(usage.data.totals.requests)}</div>
                  <div class="label">{wholeNumber(usage.data.totals.errors)} failed</div>
                </div>
                <div class="card">
                  <div class="label">Tokens, last {USAGE_DAYS} days</div>
                  <div class="figure">{wholeNumber(usage.data.totals.total_tokens)}</div>
                  <div class="label">{credits(usage.data.totals.credits_charged)} credits charged</div>
                </div>
              </>
            ) : null}
          </div>
          <h2>Usage by day</h2>
          {breakdown === null ? null : breakdown.ok ? (
            <UsageChart
              breakdown={breakdown.breakdown}
              assetUrl={assets.url}
              splitLinks={USAGE_SPLITS.map((choice) => ({ split: choice, href: `${CONSOLE_PATHS.root}?split=${choice}` }))}
            />
          ) : (
            <Notice kind="error">{breakdown.message}</Notice>
          )}
          {usage.ok ? (
            usage.data.rows.length === 0 ? (
              <p class="empty">No usage in the last {USAGE_DAYS} days.</p>
            ) : (
              <TableWrap label="Usage by day">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Day (UTC)</th>
                      <th scope="col" class="number">
                        Requests
                      </th>
                      <th scope="col" class="number">
                        Tokens
                      </th>
                      <th scope="col" class="number">
                        Credits
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {usage.data.rows.map((row) => (
                      <tr key={row.group}>
                        <td>{row.group}</td>
                        <td class="number">{wholeNumber(row.requests)}</td>
                        <td class="number">{wholeNumber(row.total_tokens)}</td>
                        <td class="number">{credits(row.credits_charged)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            )
          ) : (
            <Notice kind="error">{usage.error.message}</Notice>
          )}
          <h2>Recent runs</h2>
          {runs.ok ? (
            runs.data.items.length === 0 ? (
              <p class="empty">No runs yet. Try one in the playground.</p>
            ) : (
              <RunsTable runs={runs.data.items} names={names} caption="The latest runs" />
            )
          ) : (
            <Notice kind="error">{runs.error.message}</Notice>
          )}
        </section>
      ),
    });
  });
}
