import { Command } from 'commander';
import { registerAccountCommands } from './account-commands.js';
import { registerBundleCommands } from './bundle-commands.js';
import { registerByokCommands } from './byok-commands.js';
import { registerCreditCommands } from './credit-commands.js';
import { registerKeyCommands } from './key-commands.js';
import { registerSanitiserCommands } from './sanitiser-commands.js';
import { registerMcpCommand } from './mcp-command.js';
import { registerServeCommands } from './serve-commands.js';
import { registerSkillsCommands } from './skills-command.js';

export function createProgram(): Command {
  const program = new Command()
    .name('porch')
    .description('Porch: a self-hosted prompt-orchestration server (REST API, MCP server, agent skills)')
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ sortSubcommands: true });
  registerServeCommands(program);
  registerAccountCommands(program);
  registerKeyCommands(program);
  registerCreditCommands(program);
  registerBundleCommands(program);
  registerByokCommands(program);
  registerSanitiserCommands(program);
  registerMcpCommand(program);
  registerSkillsCommands(program);
  return program;
}
