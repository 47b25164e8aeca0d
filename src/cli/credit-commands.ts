import { z } from 'zod';
import type { Command } from 'commander';
import { Option } from 'commander';
import type { Core } from '../core/core.js';
import { TOKENS_PER_CREDIT } from '../core/credits/credits.js';
import { USAGE_GROUPINGS, type UsageGrouping } from '../db/store.js';
import { CliUsageError, parsePositiveNumber, withApplication, type CliContext, READS_ONLY } from './context.js';
import { instantInputSchema } from '../operations/schemas.js';
import { print, rows, table } from './output.js';

/** A day, read as its start in UTC, the time zone usage days are counted in. */
const DAY = z.iso.date();

/**
 * An instant as the API reads it, or a day (its start in UTC). Never the host's time zone
 * (regression: `2026-11-28T05:00:00` meant 10:00 UTC on a host in New York, and `1` the year 2001).
 */
function parseTimestamp(name: string) {
  return (value: string): string => {
    if (DAY.safeParse(value).success) return new Date(`${value}T00:00:00Z`).toISOString();
    if (!instantInputSchema.safeParse(value).success) {
      throw new CliUsageError(
        `${name} must be a day (2026-05-01, from 00:00 UTC) or a date and time with Z or an offset (2026-05-01T09:00:00Z), got "${value}".`,
      );
    }
    return new Date(value).toISOString();
  };
}

/**
 * An account's available credits as the CLI shows them: exact, tokens / 1,000 (so at most three
 * decimals). The API's X-Credits-Remaining shows whole credits; an operator who grants 5.5 credits
 * expects to see them (regression: "Granted 5.5 credits; the account now has 15." for 15.5).
 */
export async function exactCredits(core: Core, accountId: string): Promise<number> {
  const { balanceTokens, reservedTokens } = await core.credits.balance(accountId);
  return Math.max(0, balanceTokens - reservedTokens) / TOKENS_PER_CREDIT;
}

/** An account as the CLI prints it: its `credits` exact (`exactCredits`). */
export async function withExactCredits<View extends { id: string; credits: number }>(core: Core, view: View): Promise<View> {
  return { ...view, credits: await exactCredits(core, view.id) };
}

export function registerCreditCommands(program: Command, context: CliContext): void {
  const credits = program.command('credits').description('Grant and inspect credits (1 credit = 1,000 tokens)');

  credits
    .command('grant')
    .description('Add credits to an account')
    .requiredOption('--account <account-id>', 'account id')
    .requiredOption('--credits <credits>', 'credits to add', parsePositiveNumber('--credits'))
    .option('--reason <text>', 'note kept in the ledger')
    .option('--json', 'print JSON')
    .action(async (options: { account: string; credits: number; reason?: string; json?: boolean }) => {
      const result = await withApplication(context, async ({ core }) => {
        await core.accounts.showAccount(options.account);
        await core.credits.grant(options.account, options.credits, options.reason);
        return { account_id: options.account, granted: options.credits, credits: await exactCredits(core, options.account) };
      });
      print(context.stdout, result, options, () => `Granted ${result.granted} credits; the account now has ${result.credits}.`);
    });

  credits
    .command('show')
    .description("Show an account's balance")
    .requiredOption('--account <account-id>', 'account id')
    .option('--json', 'print JSON')
    .action(async (options: { account: string; json?: boolean }) => {
      const result = await withApplication(
        context,
        async ({ core }) => {
          await core.accounts.showAccount(options.account);
          const balance = await core.credits.balance(options.account);
          return {
            account_id: options.account,
            credits: await exactCredits(core, options.account),
            balance_tokens: balance.balanceTokens,
            reserved_tokens: balance.reservedTokens,
          };
        },
        READS_ONLY,
      );
      print(context.stdout, result, options, () => rows(Object.entries(result)));
    });

  program
    .command('usage')
    .description("Sum an account's usage over a time range, by UTC day, model, operation, resource or key")
    .requiredOption('--account <account-id>', 'account id')
    .addOption(new Option('--group-by <grouping>', 'what to group by').choices(USAGE_GROUPINGS).default('day'))
    .option(
      '--from <iso>',
      'start of the range, inclusive: a day (UTC) or a date and time with Z or an offset (default: 30 days before --to)',
      parseTimestamp('--from'),
    )
    .option('--to <iso>', 'end of the range, exclusive: a day (UTC) or a date and time with Z or an offset (default: now)', parseTimestamp('--to'))
    .option('--json', 'print JSON')
    .action(async (options: { account: string; groupBy: UsageGrouping; from?: string; to?: string; json?: boolean }) => {
      const usage = await withApplication(
        context,
        async ({ core }) => {
          await core.accounts.showAccount(options.account);
          return core.usage.aggregate(options.account, { group_by: options.groupBy, from: options.from, to: options.to }, { from: '--from', to: '--to' });
        },
        READS_ONLY,
      );
      print(context.stdout, usage, options, () => {
        const columns = ['requests', 'errors', 'model_calls', 'input_tokens', 'output_tokens', 'total_tokens', 'credits_charged'] as const;
        const body = [
          ...usage.rows.map((row) => [row.group ?? '(none)', ...columns.map((column) => row[column])]),
          ['total', ...columns.map((column) => usage.totals[column])],
        ];
        return `Usage of ${options.account} from ${usage.from} to ${usage.to}, by ${usage.group_by}\n${table([usage.group_by, ...columns], body)}`;
      });
    });
}
