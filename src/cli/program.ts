import { Command } from 'commander';
import { registerAccountCommands } from './account-commands.js';
import { registerBackupCommand } from './backup-command.js';
import { registerBundleCommands } from './bundle-commands.js';
import { registerByokCommands } from './byok-commands.js';
import type { CliContext } from './context.js';
import { registerCreditCommands } from './credit-commands.js';
import { registerDbCommands } from './db-commands.js';
import { registerKeyCommands } from './key-commands.js';
import { registerResourceCommands } from './resource-commands.js';
import { registerSanitiserCommands } from './sanitiser-commands.js';
import { registerMcpCommand } from './mcp-command.js';
import { registerServeCommands } from './serve-commands.js';
import { registerSkillsCommands } from './skills-command.js';
import { registerWebhookCommands } from './webhook-commands.js';

/**
 * The `porch` command tree. Commander writes through the context's streams and throws a
 * CommanderError instead of ending the process (help, usage mistakes), so the caller decides the
 * exit code. Both settings come before the subcommands, which copy them when they are created.
 */
export function createProgram(context: CliContext): Command {
  const program = new Command()
    .name('porch')
    .description('Porch: a self-hosted prompt-orchestration server (REST API, MCP server, agent skills)')
    .exitOverride()
    .configureOutput({ writeOut: (text) => context.stdout.write(text), writeErr: (text) => context.stderr.write(text) })
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ sortSubcommands: true });
  registerServeCommands(program, context);
  registerAccountCommands(program, context);
  registerKeyCommands(program, context);
  registerCreditCommands(program, context);
  registerBundleCommands(program, context);
  registerResourceCommands(program, context);
  registerByokCommands(program, context);
  registerWebhookCommands(program, context);
  registerSanitiserCommands(program, context);
  registerDbCommands(program, context);
  registerBackupCommand(program, context);
  registerMcpCommand(program, context);
  registerSkillsCommands(program, context);
  return program;
}
