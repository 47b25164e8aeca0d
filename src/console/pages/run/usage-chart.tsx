/**
 * The overview's usage chart: tokens and credits by UTC day over the last 30 days, split by model
 * or by operation (get_usage grouped by day and split by either). The numbers travel to the
 * browser as a JSON data block (which the content security policy allows, unlike an inline script) and
 * assets/usage-chart.js draws them with uPlot; the tables beside it carry the same numbers.
 */
import type { JSX } from 'preact';
import { getUsage } from '../../../operations/get-usage.js';
import type { OperationOutput } from '../../../operations/operation.js';
import type { AssetName } from '../../assets.js';
import type { OperationCaller } from '../../call-operation.js';
import { credits, wholeNumber } from '../format.js';
import { TableWrap } from '../layout.js';

export const USAGE_SPLITS = ['model', 'operation'] as const;
export type UsageSplit = (typeof USAGE_SPLITS)[number];

const DAY_MS = 86_400_000;
/** A group without a name: a workflow run has no single model (its nodes' calls count under theirs). */
const UNNAMED_GROUP = '(no single model)';
/**
 * The most groups the chart draws apart: assets/usage-chart.js has this many colours, and a
 * colour used twice would make two groups read as one (regression: the 9th model repeated the
 * 1st's). Beyond it the largest keep their own colours and the rest share one "other" bar; the
 * table beside the chart still lists every group.
 */
export const CHART_SERIES_LIMIT = 8;

type UsageRow = OperationOutput<typeof getUsage>['rows'][number];

export interface UsageChartData {
  split: UsageSplit;
  /** Start of each UTC day, in Unix seconds (uPlot's time axis). */
  days: number[];
  series: ChartSeries[];
}

export interface ChartSeries {
  label: string;
  tokens: number[];
  credits: number[];
  /** The bar that sums the groups beyond CHART_SERIES_LIMIT (drawn in a neutral colour). */
  other?: boolean;
}

/**
 * At most CHART_SERIES_LIMIT series: the largest by tokens (then credits) keep their place, the
 * rest are summed into one "Other" series drawn last.
 */
export function foldSmallGroups(series: readonly ChartSeries[], noun: string): ChartSeries[] {
  if (series.length <= CHART_SERIES_LIMIT) return [...series];
  const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
  const bySize = [...series].sort((a, b) => sum(b.tokens) - sum(a.tokens) || sum(b.credits) - sum(a.credits));
  const kept = new Set(bySize.slice(0, CHART_SERIES_LIMIT - 1));
  const rest = series.filter((entry) => !kept.has(entry));
  const add = (field: 'tokens' | 'credits') =>
    rest.reduce<number[]>((totals, entry) => totals.map((total, day) => total + (entry[field][day] ?? 0)), rest[0]?.[field].map(() => 0) ?? []);
  return [
    ...series.filter((entry) => kept.has(entry)),
    { label: `Other ${noun}s (${rest.length})`, tokens: add('tokens'), credits: add('credits'), other: true },
  ];
}

export interface UsageBreakdown {
  chart: UsageChartData;
  /** The split's totals over the whole range: the table that says what the chart shows. */
  totals: UsageRow[];
}

function dayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/**
 * The range's usage split by `split`, as chart series over every day of the range: two get_usage
 * calls whatever the range holds, the split's totals and its usage by day and split (a page
 * view's cost against the session's rate limit must not grow with the days that had usage).
 */
export async function loadUsageBreakdown(
  api: OperationCaller,
  range: { from: Date; to: Date },
  split: UsageSplit,
): Promise<{ ok: true; breakdown: UsageBreakdown } | { ok: false; message: string }> {
  const fromMs = range.from.getTime();
  const toMs = range.to.getTime();
  const days: number[] = [];
  for (let day = dayStart(fromMs); day < toMs; day += DAY_MS) days.push(day);
  const window = { from: range.from.toISOString(), to: range.to.toISOString() };
  const [totals, byDay] = await Promise.all([
    api.call(getUsage, { ...window, group_by: split }),
    api.call(getUsage, { ...window, group_by: 'day', split_by: split }),
  ]);
  if (!totals.ok) return { ok: false, message: totals.error.message };
  if (!byDay.ok) return { ok: false, message: byDay.error.message };
  const series = new Map<string, ChartSeries>();
  const seriesOf = (group: string | null | undefined) => {
    const label = group ?? UNNAMED_GROUP;
    const entry = series.get(label) ?? { label, tokens: days.map(() => 0), credits: days.map(() => 0) };
    series.set(label, entry);
    return entry;
  };
  // The totals come first so the series keep the totals table's order.
  for (const row of totals.data.rows) seriesOf(row.group);
  for (const row of byDay.data.rows) {
    const slot = row.group === null ? -1 : days.indexOf(dayStart(Date.parse(`${row.group}T00:00:00Z`)));
    if (slot < 0) continue;
    const entry = seriesOf(row.split);
    entry.tokens[slot] = (entry.tokens[slot] ?? 0) + row.total_tokens;
    entry.credits[slot] = (entry.credits[slot] ?? 0) + row.credits_charged;
  }
  return {
    ok: true,
    breakdown: {
      chart: { split, days: days.map((day) => day / 1000), series: foldSmallGroups([...series.values()], split) },
      totals: totals.data.rows,
    },
  };
}

/** JSON inside <script>: `<` escaped so no value can close the element. */
function jsonBlock(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

export function UsageChart({
  breakdown,
  splitLinks,
  assetUrl,
}: {
  breakdown: UsageBreakdown;
  splitLinks: Array<{ split: UsageSplit; href: string }>;
  assetUrl(name: AssetName): string;
}): JSX.Element {
  const { chart, totals } = breakdown;
  const noun = chart.split === 'model' ? 'model' : 'operation';
  const folded = chart.series.some((series) => series.other === true);
  return (
    <div class="usage-chart">
      <link rel="stylesheet" href={assetUrl('uplot.css')} />
      <p class="chart-switch">
        Split by:{' '}
        {splitLinks.map((link) => (
          <a href={link.href} aria-current={link.split === chart.split ? 'true' : undefined} key={link.split}>
            {link.split}
          </a>
        ))}
      </p>
      <figure class="chart-figure">
        <div class="chart" data-usage-chart="tokens" aria-hidden="true" />
        <figcaption>
          Tokens by day (UTC), by {noun}
          {folded ? `: the ${CHART_SERIES_LIMIT - 1} largest apart, the rest as one bar` : ''}. The tables below list the same numbers.
        </figcaption>
      </figure>
      <figure class="chart-figure">
        <div class="chart" data-usage-chart="credits" aria-hidden="true" />
        <figcaption>Credits charged by day (UTC), by {noun}.</figcaption>
      </figure>
      <script type="application/json" id="usage-chart-data" dangerouslySetInnerHTML={{ __html: jsonBlock(chart) }} />
      {/* A classic script, run as it is parsed: the module after it (deferred) finds window.uPlot. */}
      <script src={assetUrl('uplot.js')} />
      <script type="module" src={assetUrl('usage-chart.js')} />
      <TableWrap label={`Usage by ${noun}`}>
        <table>
          <caption class="muted table-caption">Last 30 days by {noun}</caption>
          <thead>
            <tr>
              <th scope="col">{chart.split === 'model' ? 'Model' : 'Operation'}</th>
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
            {totals.map((row) => (
              <tr key={row.group ?? UNNAMED_GROUP}>
                <td class="name">{row.group ?? UNNAMED_GROUP}</td>
                <td class="number">{wholeNumber(row.requests)}</td>
                <td class="number">{wholeNumber(row.total_tokens)}</td>
                <td class="number">{credits(row.credits_charged)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </div>
  );
}
