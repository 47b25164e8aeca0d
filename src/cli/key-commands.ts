import type { Command } from 'commander';
import { MAX_REQUEST_LIMIT, MAX_ROTATION_GRACE_SECONDS, type KeyView } from '../core/accounts/accounts.js';
import type { Plan } from '../core/domain/plans.js';
import { keyNameSchema } from '../operations/create-key.js';
import { parseList, parseNumber, parseText, withApplication, type CliContext, READS_ONLY } from './context.js';
import { print, printShownOnce, rows, table } from './output.js';

const SHOWN_ONCE = 'Store this key now: it is shown once and only its hash is kept.';

/** What to say when a new key's plaintext could not be printed: it exists, works, and cannot be shown again. */
function unshownKey(command: 'key' | 'partner-key', id: string): string {
  return `the ${command === 'key' ? 'API key' : 'partner key'} ${id} was created but could not be shown, and it cannot be shown again. Revoke it with porch ${command} revoke ${id}, then create another.`;
}

/** What --rpm and --rpd accept: what the account service stores. */
const REQUEST_LIMIT = { whole: true, min: 1, max: MAX_REQUEST_LIMIT } as const;

/** The settings both kinds of key are created with, as their `create` commands read them. */
interface KeySettingOptions {
  name?: string;
  scopes?: string[];
  rpm?: number;
  rpd?: number;
  json?: boolean;
}

/** `create`'s options for a key's name, scopes and limits; `scopesHelp` says what the scopes default to. */
function withKeySettings(command: Command, scopesHelp: string): Command {
  return command
    .option('--name <name>', 'a name to tell keys apart (at most 100 characters)', parseText('--name', keyNameSchema))
    .option('--scopes <list>', `comma-separated scopes (${scopesHelp})`, parseList)
    .option('--rpm <n>', 'requests per minute (default 120)', parseNumber('--rpm', REQUEST_LIMIT))
    .option('--rpd <n>', 'requests per day (default 20000)', parseNumber('--rpd', REQUEST_LIMIT))
    .option('--json', 'print JSON');
}

/** The given settings as a create request's fields; those left out take the defaults. */
function keySettings(options: KeySettingOptions) {
  return {
    ...(options.name ? { name: options.name } : {}),
    ...(options.scopes ? { scopes: options.scopes } : {}),
    ...(options.rpm === undefined ? {} : { requestsPerMinute: options.rpm }),
    ...(options.rpd === undefined ? {} : { requestsPerDay: options.rpd }),
  };
}

/** Prints a new key with its plaintext, the one time it can be shown. */
async function printCreatedKey(
  context: CliContext,
  command: 'key' | 'partner-key',
  created: { key: { id: string }; plaintext: string },
  options: KeySettingOptions,
): Promise<void> {
  await printShownOnce(
    context.stdout,
    { ...created.key, key: created.plaintext },
    options,
    () => `${rows(Object.entries(created.key))}\n\nkey  ${created.plaintext}\n${SHOWN_ONCE}`,
    unshownKey(command, created.key.id),
  );
}

const KEY_LIST_HEADERS = ['ID', 'NAME', 'PREFIX', 'STATUS', 'RPM', 'RPD', 'SCOPES'];

/**
 * A key's status as requests meet it: an active key of an account that left Expert is refused
 * (API_EXPERT_ONLY) until the account is back on Expert, or revoked when the grace period ends,
 * so it reads as suspended, with the plan that suspends it (regression: listed as active).
 */
export function keyStatusText(key: Pick<KeyView, 'status'>, plan: Plan): string {
  return key.status === 'active' && plan !== 'expert' ? `suspended (plan ${plan})` : key.status;
}

export function registerKeyCommands(program: Command, context: CliContext): void {
  const key = program.command('key').description('Create and manage API keys (mdi_...)');

  withKeySettings(
    key.command('create').description('Create an API key for an Expert account (at most 5 active keys)').requiredOption('--account <account-id>', 'account id'),
    'default: all but write:*, manage:keys, manage:webhooks, manage:organisation and read:usage',
  ).action(async (options: KeySettingOptions & { account: string }) => {
    const created = await withApplication(context, ({ core }) => core.accounts.createKey({ accountId: options.account, ...keySettings(options) }));
    await printCreatedKey(context, 'key', created, options);
  });

  key
    .command('list')
    .description("List an account's keys (never their plaintext)")
    .requiredOption('--account <account-id>', 'account id')
    .option('--json', 'print JSON')
    .action(async (options: { account: string; json?: boolean }) => {
      const { keys, plan } = await withApplication(context, ({ core }) => core.accounts.showAccount(options.account), READS_ONLY);
      print(context.stdout, keys, options, () =>
        keys.length === 0
          ? 'No keys.'
          : table(
              KEY_LIST_HEADERS,
              keys.map((k) => [k.id, k.name, k.prefix, keyStatusText(k, plan), k.requests_per_minute, k.requests_per_day, k.scopes.join(',')]),
            ),
      );
    });

  key
    .command('revoke')
    .description('Revoke a key; it is refused from the next request on')
    .argument('<key-id>', 'key id')
    .option('--json', 'print JSON')
    .action(async (keyId: string, options: { json?: boolean }) => {
      const revoked = await withApplication(context, ({ core }) => core.accounts.revokeKey(keyId));
      print(context.stdout, revoked, options, () => `Key ${revoked.id} (${revoked.prefix}...) is revoked.`);
    });

  key
    .command('rotate')
    .description('Issue a new key with the same scopes and limits, and revoke the old one (at once, or after --grace seconds)')
    .argument('<key-id>', 'key id')
    .option(
      '--grace <seconds>',
      `keep the old key working this many seconds (0-${MAX_ROTATION_GRACE_SECONDS}, default 0)`,
      parseNumber('--grace', { whole: true, min: 0, max: MAX_ROTATION_GRACE_SECONDS }),
    )
    .option('--json', 'print JSON')
    .action(async (keyId: string, options: { grace?: number; json?: boolean }) => {
      const rotated = await withApplication(context, ({ core }) => core.accounts.rotateKey(keyId, { graceSeconds: options.grace ?? 0 }));
      const oldKey = rotated.previous.status === 'active' ? `the old key works until ${rotated.previous.expires_at}` : 'the old key is revoked';
      await printShownOnce(
        context.stdout,
        { ...rotated.key, key: rotated.plaintext, previous: rotated.previous },
        options,
        () => `${rows(Object.entries(rotated.key))}\n\nkey  ${rotated.plaintext}\n${SHOWN_ONCE}\n${oldKey}.`,
        `${unshownKey('key', rotated.key.id)} (${oldKey})`,
      );
    });

  const partner = program.command('partner-key').description('Issue and revoke partner keys (mpk_...)');
  withKeySettings(
    partner
      .command('create')
      .description("Issue a partner key bound to an organisation; calls act for X-Porch-Account (default: the organisation's owner)")
      .requiredOption('--org <organisation-id>', 'organisation id'),
    "the product surface; default: an API key's default scopes",
  ).action(async (options: KeySettingOptions & { org: string }) => {
    const created = await withApplication(context, ({ core }) => core.accounts.createPartnerKey({ organisationId: options.org, ...keySettings(options) }));
    await printCreatedKey(context, 'partner-key', created, options);
  });
  partner
    .command('list')
    .description("List an organisation's partner keys, revoked ones included (never their plaintext)")
    .requiredOption('--org <organisation-id>', 'organisation id')
    .option('--json', 'print JSON')
    .action(async (options: { org: string; json?: boolean }) => {
      const keys = await withApplication(context, ({ core }) => core.accounts.listPartnerKeys(options.org), READS_ONLY);
      print(context.stdout, keys, options, () =>
        keys.length === 0
          ? 'No partner keys.'
          : table(
              KEY_LIST_HEADERS,
              keys.map((k) => [k.id, k.name, k.prefix, k.status, k.requests_per_minute, k.requests_per_day, k.scopes.join(',')]),
            ),
      );
    });
  partner
    .command('revoke')
    .description('Revoke a partner key')
    .argument('<key-id>', 'partner key id')
    .option('--json', 'print JSON')
    .action(async (keyId: string, options: { json?: boolean }) => {
      const revoked = await withApplication(context, ({ core }) => core.accounts.revokePartnerKey(keyId));
      print(context.stdout, revoked, options, () => `Partner key ${revoked.id} (${revoked.prefix}...) is revoked.`);
    });
}
