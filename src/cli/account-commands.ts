import type { Command } from 'commander';
import { PLANS, type Plan } from '../core/domain/plans.js';
import type { AccountTokenPurpose } from '../db/store.js';
import { CONSOLE_PATHS } from '../operations/site-paths.js';
import { GUARDRAIL_MODES, GUARDRAIL_SEVERITIES } from '../core/sanitiser/guardrails.js';
import { nonBlankText } from '../core/validation.js';
import { CliUsageError, linkableUrl, loadCliConfig, parseNumber, parseText, withApplication, type CliContext, READS_ONLY } from './context.js';
import { CREDITS_TO_HOLD, withAvailableBalance } from './credit-commands.js';
import { keyStatusText } from './key-commands.js';
import { print, printShownOnce, rows, table } from './output.js';

/**
 * An account's display name (its personal organisation's too). No API call sets one, so the bound
 * is the CLI's, as long as a key's name: enough for a person's or a team's name, and no way to
 * fill the database (regression: `account create --name` took 5,000 characters).
 */
const ACCOUNT_NAME = nonBlankText(100);

/** A plan named by `name` (the option or argument, so the message says which one was wrong). */
function parsePlan(name: string) {
  return (value: string): Plan => {
    if (!(PLANS as readonly string[]).includes(value)) throw new CliUsageError(`${name} must be one of ${PLANS.join(', ')}, got "${value}".`);
    return value as Plan;
  };
}

export function registerAccountCommands(program: Command, context: CliContext): void {
  const account = program.command('account').description('Create and manage accounts');

  account
    .command('create')
    .description('Create an account (with a personal organisation unless --organisation is given)')
    .requiredOption('--email <email>', 'email address (unique)')
    .option('--name <name>', 'display name (at most 100 characters)', parseText('--name', ACCOUNT_NAME))
    .option('--plan <plan>', `plan: ${PLANS.join(', ')}`, parsePlan('--plan'), 'expert' as Plan)
    .option('--credits <credits>', 'initial credits (1 credit = 1,000 tokens)', parseNumber('--credits', CREDITS_TO_HOLD), 0)
    .option('--organisation <id>', 'join an existing organisation')
    .option('--json', 'print JSON')
    .action(async (options: { email: string; name?: string; plan: Plan; credits: number; organisation?: string; json?: boolean }) => {
      const created = await withApplication(context, async ({ core }) =>
        withAvailableBalance(
          core,
          await core.accounts.createAccount({
            email: options.email,
            plan: options.plan,
            credits: options.credits,
            ...(options.name ? { name: options.name } : {}),
            ...(options.organisation ? { organisationId: options.organisation } : {}),
          }),
        ),
      );
      print(context.stdout, created, options, () => rows(Object.entries(created)));
    });

  /**
   * Prints a one-time console link once: only its hash is stored, so it cannot be shown again.
   * When it cannot be printed, the command says a link was issued and how to replace it.
   */
  const issueLink = (purpose: AccountTokenPurpose, command: 'invite' | 'reset-password') => async (email: string, options: { json?: boolean }) => {
    const siteUrl = linkableUrl(context, loadCliConfig(context));
    const link = await withApplication(context, async ({ core }) => {
      const found = await core.accounts.accountByEmail(email);
      const issued = await core.consoleSessions.issueLink({ account: found, purpose });
      return {
        email: found.email,
        url: `${siteUrl}${CONSOLE_PATHS.setPassword}?token=${issued.token}`,
        expires_at: new Date(issued.expiresAt).toISOString(),
      };
    });
    await printShownOnce(
      context.stdout,
      link,
      options,
      () => `${rows(Object.entries(link))}\n\nShown once: send the link to ${link.email}; it works once, until it expires.`,
      `a one-time link for ${link.email} was issued but could not be shown, and it cannot be shown again. Issue another with porch account ${command} ${link.email}: it replaces this one.`,
    );
  };

  account
    .command('invite')
    .description('Print a one-time link with which the account holder sets a password and signs in to the web console')
    .argument('<email>', "the account's email")
    .option('--json', 'print JSON')
    .action(issueLink('invite', 'invite'));

  account
    .command('reset-password')
    .description('Print a one-time link (valid one hour) to set a new console password; it signs every session out when used')
    .argument('<email>', "the account's email")
    .option('--json', 'print JSON')
    .action(issueLink('reset', 'reset-password'));

  account
    .command('list')
    .description('List accounts')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const accounts = await withApplication(
        context,
        async ({ core }) => Promise.all((await core.accounts.listAccounts()).map((listed) => withAvailableBalance(core, listed))),
        READS_ONLY,
      );
      print(context.stdout, accounts, options, () =>
        accounts.length === 0
          ? 'No accounts.'
          : table(
              ['ID', 'EMAIL', 'PLAN', 'CREDITS', 'AVAILABLE TOKENS'],
              accounts.map((a) => [a.id, a.email, a.plan, a.credits, a.available_tokens]),
            ),
      );
    });

  account
    .command('show')
    .description('Show an account with its keys')
    .argument('<account-id>', 'account id')
    .option('--json', 'print JSON')
    .action(async (accountId: string, options: { json?: boolean }) => {
      const shown = await withApplication(context, async ({ core }) => withAvailableBalance(core, await core.accounts.showAccount(accountId)), READS_ONLY);
      print(context.stdout, shown, options, () => {
        const { keys, ...fields } = shown;
        const keyTable =
          keys.length === 0
            ? 'No keys.'
            : table(
                ['KEY ID', 'PREFIX', 'STATUS', 'SCOPES'],
                keys.map((k) => [k.id, k.prefix, keyStatusText(k, shown.plan), k.scopes.join(',')]),
              );
        return `${rows(Object.entries(fields))}\n\n${keyTable}`;
      });
    });

  account
    .command('set-plan')
    .description('Change the plan. Leaving Expert suspends keys for a 7-day grace period, then revokes them')
    .argument('<account-id>', 'account id')
    .argument('<plan>', `plan: ${PLANS.join(', ')}`, parsePlan('<plan>'))
    .option('--json', 'print JSON')
    .action(async (accountId: string, plan: Plan, options: { json?: boolean }) => {
      const updated = await withApplication(context, async ({ core }) => withAvailableBalance(core, await core.accounts.setPlan(accountId, plan)));
      print(context.stdout, updated, options, () => `Account ${updated.id} is now on the ${updated.plan} plan.`);
    });

  const organisation = program.command('org').description('Organisation policies');
  organisation
    .command('show')
    .description("Show an organisation's policies")
    .argument('<organisation-id>', 'organisation id')
    .option('--json', 'print JSON')
    .action(async (organisationId: string, options: { json?: boolean }) => {
      const shown = await withApplication(context, ({ core }) => core.accounts.showOrganisation(organisationId), READS_ONLY);
      print(context.stdout, shown, options, () => rows(Object.entries(shown)));
    });
  organisation
    .command('set')
    .description('Set organisation policies')
    .argument('<organisation-id>', 'organisation id')
    .option('--eu-only-models <on|off>', 'allow only EU-hosted models')
    .option('--strict-byok <on|off>', 'require BYOK (use_byok:false is refused)')
    .option('--guardrail-inputs <mode>', 'what model calls do with findings in their input: off, report, redact or block')
    .option('--guardrail-outputs <mode>', "what model calls do with findings in the model's output: off, report, redact or block")
    .option('--guardrail-min-severity <severity>', 'lowest finding severity the guardrails act on: info, warn or block')
    .option('--json', 'print JSON')
    .action(
      async (
        organisationId: string,
        options: {
          euOnlyModels?: string;
          strictByok?: string;
          guardrailInputs?: string;
          guardrailOutputs?: string;
          guardrailMinSeverity?: string;
          json?: boolean;
        },
      ) => {
        const toggle = (name: string, value: string | undefined): boolean | undefined => {
          if (value === undefined) return undefined;
          if (value === 'on' || value === 'true') return true;
          if (value === 'off' || value === 'false') return false;
          throw new CliUsageError(`${name} takes on or off, got "${value}".`);
        };
        const oneOf = <Value extends string>(name: string, value: string | undefined, allowed: readonly Value[]): Value | undefined => {
          if (value === undefined) return undefined;
          const found = allowed.find((candidate) => candidate === value);
          if (found === undefined) throw new CliUsageError(`${name} takes ${allowed.join(', ')}; got "${value}".`);
          return found;
        };
        const euOnlyModels = toggle('--eu-only-models', options.euOnlyModels);
        const strictByok = toggle('--strict-byok', options.strictByok);
        const guardrailInputs = oneOf('--guardrail-inputs', options.guardrailInputs, GUARDRAIL_MODES);
        const guardrailOutputs = oneOf('--guardrail-outputs', options.guardrailOutputs, GUARDRAIL_MODES);
        const guardrailMinSeverity = oneOf('--guardrail-min-severity', options.guardrailMinSeverity, GUARDRAIL_SEVERITIES);
        const policy = {
          ...(euOnlyModels === undefined ? {} : { euOnlyModels }),
          ...(strictByok === undefined ? {} : { strictByok }),
          ...(guardrailInputs === undefined ? {} : { guardrailInputs }),
          ...(guardrailOutputs === undefined ? {} : { guardrailOutputs }),
          ...(guardrailMinSeverity === undefined ? {} : { guardrailMinSeverity }),
        };
        if (Object.keys(policy).length === 0) {
          throw new CliUsageError('Give --eu-only-models, --strict-byok, --guardrail-inputs, --guardrail-outputs or --guardrail-min-severity.');
        }
        const updated = await withApplication(context, ({ core }) => core.accounts.setOrganisationPolicy(organisationId, policy));
        print(context.stdout, updated, options, () => rows(Object.entries(updated)));
      },
    );
}
