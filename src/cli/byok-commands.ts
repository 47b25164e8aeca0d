import type { Command } from 'commander';
import type { ByokOwner } from '../db/store.js';
import { CliUsageError, READS_ONLY, withApplication, type CliContext } from './context.js';
import { print, table } from './output.js';

function ownerFrom(options: { account?: string; org?: string }): ByokOwner {
  if (options.account && options.org) throw new CliUsageError('Give either --account or --org, not both.');
  if (options.account) return { accountId: options.account };
  if (options.org) return { organisationId: options.org };
  throw new CliUsageError('Give --account <id> or --org <id>.');
}

export function registerByokCommands(program: Command, context: CliContext): void {
  const byok = program.command('byok').description("Bring your own key: an account's or organisation's own provider keys, encrypted at rest");

  byok
    .command('set')
    .description('Store a provider key (read from an environment variable, never from the command line)')
    .option('--account <account-id>', 'for one account')
    .option('--org <organisation-id>', 'for every account of an organisation')
    .requiredOption('--provider <provider>', 'provider id from the configuration (e.g. openai)')
    .requiredOption('--key-env <VAR>', 'name of the environment variable holding the key')
    .option('--json', 'print JSON')
    .action(async (options: { account?: string; org?: string; provider: string; keyEnv: string; json?: boolean }) => {
      const owner = ownerFrom(options);
      const plaintext = context.env[options.keyEnv];
      if (plaintext === undefined || plaintext.trim() === '') throw new CliUsageError(`The environment variable ${options.keyEnv} is not set or empty.`);
      const stored = await withApplication(context, ({ core }) => core.byok.set(owner, options.provider, plaintext));
      print(
        context.stdout,
        stored,
        options,
        () => `Stored the ${stored.provider} key ${stored.key_hint} (id ${stored.id}); calls to ${stored.provider} now use it and are not metered.`,
      );
    });

  byok
    .command('list')
    .description('List BYOK keys (only their last characters)')
    .option('--account <account-id>', 'of one account')
    .option('--org <organisation-id>', 'of an organisation')
    .option('--json', 'print JSON')
    .action(async (options: { account?: string; org?: string; json?: boolean }) => {
      const keys = await withApplication(context, ({ core }) => core.byok.list(ownerFrom(options)), READS_ONLY);
      print(context.stdout, keys, options, () =>
        keys.length === 0
          ? 'No BYOK keys.'
          : table(
              ['ID', 'PROVIDER', 'KEY', 'STATUS', 'CREATED'],
              keys.map((k) => [k.id, k.provider, k.key_hint, k.status, k.created_at]),
            ),
      );
    });

  byok
    .command('revoke')
    .description('Stop using a BYOK key')
    .argument('<byok-key-id>', 'BYOK key id')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const revoked = await withApplication(context, ({ core }) => core.byok.revoke(id));
      print(context.stdout, revoked, options, () => `BYOK key ${revoked.id} (${revoked.provider} ${revoked.key_hint}) is revoked.`);
    });
}
