import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { PorchError } from '../core/errors.js';
import { createApplication } from '../main.js';
import { operations } from '../operations/index.js';
import { CliUsageError } from './context.js';

export function registerMcpCommand(program: Command): void {
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
      const config = loadConfig();
      const application = createApplication(config);
      const apiKey = process.env.PORCH_API_KEY;
      const actingAccountId = process.env.PORCH_ACCOUNT;
      // Loaded here, not at the top, so every other command starts without the MCP SDK.
      const { serveMcpOverStdio } = await import('../mcp/stdio.js');
      try {
        await serveMcpOverStdio({
          core: application.core,
          operations,
          errorCodes: config.errorCodes,
          credentials: { apiKey, actingAccountId: actingAccountId === '' ? undefined : actingAccountId },
        });
      } catch (err) {
        if (err instanceof PorchError) throw new CliUsageError(`PORCH_API_KEY was refused: ${err.code}: ${err.message}`);
        throw err;
      } finally {
        await application.close();
      }
    });
}
