import type { Command } from 'commander';
import { PorchError } from '../core/errors.js';
import { DatabaseRefusal } from '../db/store.js';
import { operations } from '../operations/index.js';
import { ConfigError, type Config } from '../config.js';
import type { Core } from '../core/core.js';
import type { Application } from '../main.js';
import { CliUsageError, loadCliConfig, logModelSetup, openApplication, type CliContext } from './context.js';

/**
 * Why `porch mcp` cannot serve with these credentials, or undefined: the key refused, or the
 * account a good key would act for refused (PORCH_ACCOUNT not an account id, outside a partner
 * key's organisation, not on Expert), which is said as PORCH_ACCOUNT's to fix (regression:
 * "PORCH_API_KEY was refused: VALIDATION_ERROR: PORCH_ACCOUNT must be an account id").
 */
async function credentialsRefusal(core: Core, apiKey: string | undefined, actingAccountId: string | undefined): Promise<string | undefined> {
  if (apiKey === undefined || apiKey.trim() === '') return undefined;
  // Over stdio the acting account is PORCH_ACCOUNT: the refusal names the setting the user has.
  const reason = (refusal: PorchError) => `${refusal.code}: ${refusal.message.replaceAll('X-Porch-Account', 'PORCH_ACCOUNT')}`;
  let authenticated: Awaited<ReturnType<Core['authenticator']['authenticateKey']>>;
  try {
    authenticated = await core.authenticator.authenticateKey({ apiKey, actingAccountId });
  } catch (err) {
    if (err instanceof PorchError) return `PORCH_API_KEY was refused: ${reason(err)}`;
    throw err;
  }
  if (!('refusal' in authenticated)) return undefined;
  if (actingAccountId === undefined) {
    return `PORCH_API_KEY is good, but PORCH_ACCOUNT is not set, so it acts for its organisation's owner, who was refused: ${reason(authenticated.refusal)}`;
  }
  return `PORCH_ACCOUNT was refused (PORCH_API_KEY is good): ${reason(authenticated.refusal)}`;
}

export function registerMcpCommand(program: Command, context: CliContext): void {
  program
    .command('mcp')
    .description('Serve MCP over stdio for one API key (PORCH_API_KEY; without it only the public tools). Logs go to stderr.')
    .addHelpText(
      'after',
      [
        '',
        'Environment:',
        '  PORCH_API_KEY    the key the MCP client acts with (mdi_... or a partner key mpk_...)',
        '  PORCH_ACCOUNT    for a partner key: the account to act for (like X-Porch-Account)',
        '  DATABASE_URL     the Porch database (use an absolute path: MCP clients start servers in another folder)',
        '  PORCH_CONFIG     the config file; without it, porch.config.yaml in the current folder, else next to the database',
      ].join('\n'),
    )
    .action(async () => {
      const apiKey = context.env.PORCH_API_KEY;
      const actingAccountId = context.env.PORCH_ACCOUNT;
      // Loaded here, not at the top, so every other command starts without the MCP SDK.
      const { serveMcpOverStdio, refuseStartup } = await import('../mcp/stdio.js');
      const needs = { callsModels: true, logsOnly: true } as const;
      let config: Config;
      let application: Application;
      try {
        // Unlike other variables, a blank PORCH_ACCOUNT is no default: leaving it out acts for the
        // organisation's owner, and a host that templated in a missing user id would spend the
        // owner's credits (the same refusal as a blank X-Porch-Account).
        if (actingAccountId !== undefined && actingAccountId.trim() === '') {
          throw new CliUsageError(
            "PORCH_ACCOUNT is empty: set the account id the partner key acts for, or leave PORCH_ACCOUNT out to act for the organisation's owner.",
          );
        }
        config = loadCliConfig(context, needs);
        application = await openApplication(context, config, needs);
      } catch (err) {
        // The client is waiting on stdin/stdout: tell it why, or all it shows is "Connection closed".
        if (err instanceof ConfigError || err instanceof CliUsageError || err instanceof DatabaseRefusal)
          await refuseStartup(context.stdin, context.stdout, `porch mcp cannot start: ${err.message}`);
        throw err;
      }
      try {
        logModelSetup(application.logger, config);
        const refusal = await credentialsRefusal(application.core, apiKey, actingAccountId);
        if (refusal !== undefined) {
          // The client is waiting: it is told why, or all it shows is "Connection closed".
          await refuseStartup(context.stdin, context.stdout, `porch mcp cannot start: ${refusal}`);
          throw new CliUsageError(refusal);
        }
        // A task (or any run) queued here starts here: without a `porch serve` on the database it
        // would wait for good. Its webhooks are delivered as from any serving process.
        application.startBackgroundWork();
        await serveMcpOverStdio({
          core: application.core,
          operations,
          errorCodes: config.errorCodes,
          credentials: { apiKey, actingAccountId },
          input: context.stdin,
          output: context.stdout,
        });
      } catch (err) {
        if (err instanceof PorchError) throw new CliUsageError(`PORCH_API_KEY was refused: ${err.code}: ${err.message}`);
        throw err;
      } finally {
        await application.close();
      }
    });
}
