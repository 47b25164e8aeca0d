import { z } from 'zod';
import type { Command } from 'commander';
import { Option } from 'commander';
import type { Core } from '../core/core.js';
import { MAX_BALANCE_CREDITS, TOKENS_PER_CREDIT, tokensToCredits } from '../core/credits/credits.js';
import { USAGE_GROUPINGS, type UsageGrouping } from '../db/store.js';
import { CliUsageError, parseNumber, withApplication, type CliContext, type NumberRange, READS_ONLY } from './context.js';
import { instantInputSchema } from '../operations/schemas.js';
import { print, rows, table } from './output.js';

/**
 * Credits an account may be given (`account create --credits`): whole tokens (a credit is 1,000
 * tokens, so at most three decimals), up to what an account may hold.
 */
export const CREDITS_TO_HOLD: NumberRange = { whole: false, min: 0, max: MAX_BALANCE_CREDITS, decimals: 3 };

/** Credits to grant: as CREDITS_TO_HOLD, and more than 0 (regression: -10 and 0 were refused in two different words). */
const CREDITS_TO_GRANT: NumberRange = { ...CREDITS_TO_HOLD, aboveMin: true };

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
 * An account's available balance as the CLI shows it: `credits` whole, rounded down as everywhere
 * credits are shown (DECISIONS: floor(tokens / 1000)), beside `available_tokens`, exact. An
 * operator who grants 5.5 credits sees where the half went (regression: "Granted 5.5 credits;
 * the account now has 15." with nothing to say the balance was 15,500 tokens).
 */
export async function availableBalance(core: Core, accountId: string): Promise<{ credits: number; available_tokens: number }> {
  const { balanceTokens, reservedTokens } = await core.credits.balance(accountId);
  const available = Math.max(0, balanceTokens - reservedTokens);
  return { credits: tokensToCredits(available), available_tokens: available };
}

/** An account as the CLI prints it: with its whole credits and its exact available tokens (`availableBalance`). */
export async function withAvailableBalance<View extends { id: string; credits: number }>(core: Core, view: View): Promise<View & { available_tokens: number }> {
  return { ...view, ...(await availableBalance(core, view.id)) };
}

/** "15 credits (15,500 tokens)": whole credits, and the tokens when they hold a part of one. */
export function creditsText({ credits, available_tokens }: { credits: number; available_tokens: number }): string {
  const whole = `${credits} credit${credits === 1 ? '' : 's'}`;
  return available_tokens % TOKENS_PER_CREDIT === 0 ? whole : `${whole} (${available_tokens.toLocaleString('en')} tokens)`;
}

export function registerCreditCommands(program: Command, context: CliContext): void {
  const credits = program.command('credits').description('Grant and inspect credits (1 credit = 1,000 tokens)');

  credits
    .command('grant')
    .description('Add credits to an account')
    .requiredOption('--account <account-id>', 'account id')
    .requiredOption('--credits <credits>', 'credits to add', parseNumber('--credits', CREDITS_TO_GRANT))
    .option('--reason <text>', 'note kept in the ledger')
    .option('--json', 'print JSON')
    .action(async (options: { account: string; credits: number; reason?: string; json?: boolean }) => {
      const result = await withApplication(context, async ({ core }) => {
        await core.accounts.showAccount(options.account);
        await core.credits.grant(options.account, options.credits, options.reason);
        return { account_id: options.account, granted: options.credits, ...(await availableBalance(core, options.account)) };
      });
      print(context.stdout, result, options, () => `Granted ${result.granted} credits; the account now has ${creditsText(result)}.`);
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
            ...(await availableBalance(core, options.account)),
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
