import type { Command } from 'commander';
import { PorchError } from '../core/errors.js';
import { operations } from '../operations/index.js';
import { CliUsageError, withApplication, type CliContext } from './context.js';

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
      ].join('\n'),
    )
    .action(async () => {
      const apiKey = context.env.PORCH_API_KEY;
      const actingAccountId = context.env.PORCH_ACCOUNT;
      // Loaded here, not at the top, so every other command starts without the MCP SDK.
      const { serveMcpOverStdio } = await import('../mcp/stdio.js');
      await withApplication(
        context,
        async ({ core }, config) => {
          try {
            await serveMcpOverStdio({
              core,
              operations,
              errorCodes: config.errorCodes,
              credentials: { apiKey, actingAccountId: actingAccountId === '' ? undefined : actingAccountId },
              input: context.stdin,
              output: context.stdout,
            });
          } catch (err) {
            if (err instanceof PorchError) throw new CliUsageError(`PORCH_API_KEY was refused: ${err.code}: ${err.message}`);
            throw err;
          }
        },
        { callsModels: true, logsOnly: true },
      );
    });
}
