/**
 * What an account can read about its own consumption: usage aggregates over a time range (summed
 * by the database, see UsageRepository.aggregate) and the credits ledger, newest first.
 */
import type { LedgerEntry, PageRequest, Store, UsageAggregateRow, UsageGrouping } from '../../db/store.js';
import type { Clock } from '../clock.js';
import { tokensToCredits, TOKENS_PER_CREDIT } from '../credits/credits.js';
import { PorchError } from '../errors.js';
import { fetchPage, type Page } from '../pages.js';
import { toIsoTimestamp } from '../views.js';

const MS_PER_DAY = 86_400_000;
/** Without `from`, usage covers this many days back from `to`. */
export const DEFAULT_USAGE_DAYS = 30;
/** The longest range one request may aggregate: a year and a day, so a leap year fits whole. */
export const MAX_USAGE_RANGE_DAYS = 366;

export interface UsageQuery {
  /** ISO 8601 timestamps; validated by the operation's schema. */
  from?: string | undefined;
  to?: string | undefined;
  group_by: UsageGrouping;
  split_by?: UsageGrouping | undefined;
}

export interface UsageRowView {
  group: string | null;
  /** Only with `split_by`. */
  split?: string | null;
  requests: number;
  errors: number;
  model_calls: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  credits_charged: number;
}

export interface UsageView {
  from: string;
  to: string;
  group_by: UsageGrouping;
  split_by?: UsageGrouping;
  rows: UsageRowView[];
  totals: Omit<UsageRowView, 'group'>;
}

export interface LedgerEntryView {
  id: string;
  kind: 'grant' | 'charge' | 'adjustment';
  delta_tokens: number;
  delta_credits: number;
  balance_after_tokens: number;
  balance_after_credits: number;
  reference: string | null;
  created_at: string;
}

export interface LedgerView extends Page<LedgerEntryView> {
  balance: { balance_tokens: number; reserved_tokens: number; available_tokens: number; available_credits: number };
}

/** The store says `usage` for what a caller reads as a charge. */
const LEDGER_KINDS = { grant: 'grant', usage: 'charge', adjustment: 'adjustment' } as const;

function rowView(row: UsageAggregateRow): UsageRowView {
  return {
    group: row.group,
    ...(row.split === undefined ? {} : { split: row.split }),
    requests: row.requests,
    errors: row.errors,
    model_calls: row.modelCalls,
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    total_tokens: row.totalTokens,
    credits_charged: row.chargedTokens / TOKENS_PER_CREDIT,
  };
}

function ledgerEntryView(entry: LedgerEntry): LedgerEntryView {
  return {
    id: entry.id,
    kind: LEDGER_KINDS[entry.kind],
    delta_tokens: entry.deltaTokens,
    delta_credits: entry.deltaTokens / TOKENS_PER_CREDIT,
    balance_after_tokens: entry.balanceAfterTokens,
    balance_after_credits: entry.balanceAfterTokens / TOKENS_PER_CREDIT,
    reference: entry.reference,
    created_at: toIsoTimestamp(entry.createdAt),
  };
}

/** Sums the groups' rows: a handful of numbers per group, never the usage rows themselves. */
function totalsOf(rows: readonly UsageRowView[]): UsageView['totals'] {
  const totals = { requests: 0, errors: 0, model_calls: 0, input_tokens: 0, output_tokens: 0, total_tokens: 0, credits_charged: 0 };
  let chargedTokens = 0;
  for (const row of rows) {
    totals.requests += row.requests;
    totals.errors += row.errors;
    totals.model_calls += row.model_calls;
    totals.input_tokens += row.input_tokens;
    totals.output_tokens += row.output_tokens;
    totals.total_tokens += row.total_tokens;
    chargedTokens += Math.round(row.credits_charged * TOKENS_PER_CREDIT);
  }
  return { ...totals, credits_charged: chargedTokens / TOKENS_PER_CREDIT };
}

export function createUsageService(store: Store, clock: Clock) {
  return {
    /** `names` are how the caller's door calls `from` and `to` in messages (the CLI's `--from`). */
    async aggregate(accountId: string, query: UsageQuery, names = { from: 'query.from', to: 'query.to' }): Promise<UsageView> {
      // Without `to`, the range ends just after now (it is exclusive), so what was recorded this millisecond counts.
      const to = query.to === undefined ? clock.now() + 1 : Date.parse(query.to);
      const from = query.from === undefined ? to - DEFAULT_USAGE_DAYS * MS_PER_DAY : Date.parse(query.from);
      if (from >= to) throw new PorchError('VALIDATION_ERROR', `${names.from}: must be before ${names.to}.`);
      if (to - from > MAX_USAGE_RANGE_DAYS * MS_PER_DAY) {
        throw new PorchError('VALIDATION_ERROR', `${names.from}: the range from ${names.from} to ${names.to} must be at most ${MAX_USAGE_RANGE_DAYS} days.`);
      }
      const rows = (await store.usage.aggregate({ accountId, from, to, groupBy: query.group_by, splitBy: query.split_by })).map(rowView);
      return {
        from: toIsoTimestamp(from),
        to: toIsoTimestamp(to),
        group_by: query.group_by,
        ...(query.split_by === undefined ? {} : { split_by: query.split_by }),
        rows,
        totals: totalsOf(rows),
      };
    },

    async ledger(accountId: string, page: PageRequest): Promise<LedgerView> {
      const balance = await store.credits.balance(accountId);
      const entries = await fetchPage(page, (request) => store.credits.ledgerPage({ accountId, page: request }), ledgerEntryView);
      const available = balance.balanceTokens - balance.reservedTokens;
      return {
        balance: {
          balance_tokens: balance.balanceTokens,
          reserved_tokens: balance.reservedTokens,
          available_tokens: available,
          available_credits: tokensToCredits(available),
        },
        ...entries,
      };
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;
