/**
 * What a usage aggregate must answer, computed in the test from the usage rows one by one, as
 * UsageRepository.aggregate defines the totals: requests and errors of the rows answered to a
 * client, tokens and charges of the model calls (a workflow run's own row repeats its nodes').
 * A retry's row (the judge's second call) is a model call only; the first call's row carries the request.
 */
import type { UsageAggregateRow, UsageGrouping, UsageRecord } from '../../src/db/store.js';

/** What the aggregate must say, computed here from the rows the test wrote, row by row. */
export function expectedAggregate(
  rows: readonly UsageRecord[],
  groupBy: UsageGrouping,
  from: number,
  to: number,
  splitBy?: UsageGrouping,
): UsageAggregateRow[] {
  const groups = new Map<string, UsageAggregateRow>();
  const keyOf = (row: UsageRecord, grouping: UsageGrouping): string | null => {
    if (grouping === 'day') return new Date(row.createdAt).toISOString().slice(0, 10);
    if (grouping === 'model') return row.model;
    if (grouping === 'operation') return row.operation;
    if (grouping === 'resource') return row.resourceId;
    return row.apiKeyId ?? row.partnerKeyId;
  };
  for (const row of rows.filter((candidate) => candidate.createdAt >= from && candidate.createdAt < to)) {
    const key = keyOf(row, groupBy);
    const split = splitBy === undefined ? undefined : keyOf(row, splitBy);
    const pair = JSON.stringify([key, split ?? null]);
    const group = groups.get(pair) ?? {
      group: key,
      ...(split === undefined ? {} : { split }),
      requests: 0,
      errors: 0,
      modelCalls: 0,
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
      chargedTokens: 0,
    };
    const answered = row.nodeId === null;
    const modelCall = !(row.operation === 'execute_workflow' && row.nodeId === null);
    if (answered && !row.retry) group.requests += 1;
    if (answered && !row.retry && row.status !== 'succeeded') group.errors += 1;
    if (modelCall) {
      group.modelCalls += 1;
      group.inputTokens += row.inputTokens;
      group.outputTokens += row.outputTokens;
      group.totalTokens += row.totalTokens;
      group.chargedTokens += row.chargedTokens;
    }
    groups.set(pair, group);
  }
  const order = (a: string | null | undefined, b: string | null | undefined): number =>
    a === b ? 0 : a === null || a === undefined ? -1 : b === null || b === undefined ? 1 : a < b ? -1 : 1;
  return [...groups.values()].sort((a, b) => order(a.group, b.group) || order(a.split, b.split));
}
