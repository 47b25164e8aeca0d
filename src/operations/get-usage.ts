import { z } from 'zod';
import { DEFAULT_USAGE_DAYS, MAX_USAGE_RANGE_DAYS } from '../core/usage/usage.js';
import { USAGE_GROUPINGS } from '../db/store.js';
import { defineKeyedOperation } from './operation.js';
import { instantInputSchema, timestampSchema } from './schemas.js';
import { usageRowSchema, usageScopes, usageTotalsSchema } from './self-service-schemas.js';

const MS_PER_DAY = 86_400_000;

export const getUsage = defineKeyedOperation({
  name: 'get_usage',
  title: 'Get usage aggregates',
  description: `Sums the account's usage over a time range (default: the last ${DEFAULT_USAGE_DAYS} days; at most ${MAX_USAGE_RANGE_DAYS}), grouped by UTC day, model, operation, resource or key (optionally split by a second of these): requests, errors, model calls, tokens and credits charged per group, plus the totals.`,
  method: 'GET',
  path: '/usage',
  tag: 'Usage',
  effect: 'read',
  successStatus: 200,
  scopes: usageScopes,
  query: z
    .object({
      from: instantInputSchema
        .optional()
        .describe(`Start of the range, inclusive (ISO 8601, UTC or with an offset); default: ${DEFAULT_USAGE_DAYS} days before \`to\`.`),
      to: instantInputSchema
        .optional()
        .describe('End of the range, exclusive (ISO 8601, UTC or with an offset); default: now (what was recorded up to this moment counts).'),
      group_by: z.enum(USAGE_GROUPINGS).default('day').describe('What to group by: day (UTC), model, operation, resource or key. Default day.'),
      split_by: z
        .enum(USAGE_GROUPINGS)
        .optional()
        .describe(
          'Also split each group by this (day, model, operation, resource or key): one row per group and split that had usage, each naming its `split`. Default: no split.',
        ),
    })
    .superRefine((query, ctx) => {
      if (query.from === undefined || query.to === undefined) return;
      const span = Date.parse(query.to) - Date.parse(query.from);
      if (span <= 0) ctx.addIssue({ code: 'custom', path: ['from'], message: 'must be before to' });
      else if (span > MAX_USAGE_RANGE_DAYS * MS_PER_DAY)
        ctx.addIssue({ code: 'custom', path: ['from'], message: `must be at most ${MAX_USAGE_RANGE_DAYS} days before to` });
    }),
  output: z
    .object({
      from: timestampSchema.describe('Start of the range, inclusive.'),
      to: timestampSchema.describe('End of the range, exclusive.'),
      group_by: z.enum(USAGE_GROUPINGS).describe('What the rows are grouped by.'),
      split_by: z.enum(USAGE_GROUPINGS).optional().describe('What each group is split by; only when the request asked for a split.'),
      rows: z
        .array(usageRowSchema)
        .describe('One row per group (per group and split, with `split_by`) that had usage, in ascending order of group, then split (null first).'),
      totals: usageTotalsSchema.describe('The sums over every row.'),
    })
    .describe('Usage aggregates.'),
  run: (input, { core, caller }) => core.usage.aggregate(caller.account.id, input),
});
