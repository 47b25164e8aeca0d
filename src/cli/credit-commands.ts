import type { Command } from 'commander';
import { parsePositiveNumber, withApplication, type CliContext } from './context.js';
import { print, rows } from './output.js';

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
        return { account_id: options.account, granted: options.credits, credits: await core.credits.remainingCredits(options.account) };
      });
      print(context.stdout, result, options, () => `Granted ${result.granted} credits; the account now has ${result.credits}.`);
    });

  credits
    .command('show')
    .description("Show an account's balance")
    .requiredOption('--account <account-id>', 'account id')
    .option('--json', 'print JSON')
    .action(async (options: { account: string; json?: boolean }) => {
      const result = await withApplication(context, async ({ core }) => {
        await core.accounts.showAccount(options.account);
        const balance = await core.credits.balance(options.account);
        return {
          account_id: options.account,
          credits: await core.credits.remainingCredits(options.account),
          balance_tokens: balance.balanceTokens,
          reserved_tokens: balance.reservedTokens,
        };
      });
      print(context.stdout, result, options, () => rows(Object.entries(result)));
    });
}
