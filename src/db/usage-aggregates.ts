/**
 * The usage aggregate query both engines run (UsageRepository.aggregate): one GROUP BY over the
 * account's rows in the time range, so the totals are summed by the database and no row is read
 * into the process. Only the UTC-day bucket is written in each engine's dialect.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { UsageAggregateRequest, UsageAggregateRow, UsageGrouping } from './store.js';

/** Each grouping's column; `day` is the engine's own expression (epoch ms to a UTC `YYYY-MM-DD`). */
function groupExpression(groupBy: UsageGrouping, day: SQL): SQL {
  switch (groupBy) {
    case 'day':
      return day;
    case 'model':
      return sql`model`;
    case 'operation':
      return sql`operation`;
    case 'resource':
      return sql`resource_id`;
    case 'key':
      return sql`coalesce(api_key_id, partner_key_id)`;
  }
}

/**
 * A workflow run writes a row of its own besides one per model call of its nodes; that row
 * repeats the nodes' sums, so tokens and charges skip it, while `requests` counts it (and not the
 * node rows) as the one execution the client asked for. The judge's retry after an unreadable
 * verdict is a second model call of one request: `requests` and `errors` skip its row, and the
 * first call's row carries the request's outcome (the judge marks it failed when the request fails).
 */
const MODEL_CALL = sql`not (operation = 'execute_workflow' and node_id is null)`;
const REQUEST = sql`node_id is null and not retry`;

export function usageAggregateQuery(request: UsageAggregateRequest, day: SQL): SQL {
  const group = groupExpression(request.groupBy, day);
  // A split is a second column of the same GROUP BY, so a day's usage by model is still one query.
  const split = request.splitBy === undefined ? null : groupExpression(request.splitBy, day);
  return sql`
    select ${group} as "group",${split === null ? sql`` : sql` ${split} as "split",`}
      sum(case when ${REQUEST} then 1 else 0 end) as "requests",
      sum(case when ${REQUEST} and status <> 'succeeded' then 1 else 0 end) as "errors",
      sum(case when ${MODEL_CALL} then 1 else 0 end) as "modelCalls",
      sum(case when ${MODEL_CALL} then input_tokens else 0 end) as "inputTokens",
      sum(case when ${MODEL_CALL} then output_tokens else 0 end) as "outputTokens",
      sum(case when ${MODEL_CALL} then total_tokens else 0 end) as "totalTokens",
      sum(case when ${MODEL_CALL} then charged_tokens else 0 end) as "chargedTokens"
    from usage_records
    where account_id = ${request.accountId} and created_at >= ${request.from} and created_at < ${request.to}
    group by ${split === null ? sql`1` : sql`1, 2`}
    order by ${split === null ? sql`1 nulls first` : sql`1 nulls first, 2 nulls first`}`;
}

/** A result row as either driver returns it (PostgreSQL sums are bigint strings) → numbers. */
export type RawAggregateRow = { [Field in keyof UsageAggregateRow]: Field extends 'group' | 'split' ? string | null : number | string | null };

export function toAggregateRow(row: RawAggregateRow): UsageAggregateRow {
  return {
    group: row.group,
    ...(row.split === undefined ? {} : { split: row.split }),
    requests: Number(row.requests ?? 0),
    errors: Number(row.errors ?? 0),
    modelCalls: Number(row.modelCalls ?? 0),
    inputTokens: Number(row.inputTokens ?? 0),
    outputTokens: Number(row.outputTokens ?? 0),
    totalTokens: Number(row.totalTokens ?? 0),
    chargedTokens: Number(row.chargedTokens ?? 0),
  };
}
