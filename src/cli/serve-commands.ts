import { setFlagsFromString } from 'node:v8';
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import type { DemoAccount } from '../core/demo/demo.js';
import { startServer } from '../main.js';
import { withApplication } from './context.js';
import { print } from './output.js';

/**
 * How far V8 lets the old generation grow past what survived the last full collection, in
 * percent. V8's default grows it up to 4x when collections are cheap, which a server under
 * steady load always makes them: with ~35 MB live, sustained MCP load held ~270 MB resident.
 * At 1.5x the same load stays around 180 MB with no measurable loss of throughput (more, but
 * small and incremental, full collections; bench/RESULTS-NOTES.md). Only the server process
 * sets it, and an operator's own --heap-growing-percent (NODE_OPTIONS or a node flag) wins.
 * The young generation's size can only be set on node's command line: `npm start` passes
 * --max-semi-space-size=8 (README, Configuration).
 */
export const HEAP_GROWING_PERCENT = 50;

function limitHeapGrowth(): void {
  const nodeFlags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  if (nodeFlags.some((flag) => /^--heap[-_]growing[-_]percent/.test(flag))) return;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/** What a newcomer sees once: the demo key and two commands to try it. */
export function demoInstructions(demo: DemoAccount, apiUrl: string): string {
  return [
    `Created a demo Expert account (${demo.email}) with ${demo.credits} credits, a sample catalog and an API key.`,
    'The key is shown once; store it now:',
    '',
    `  ${demo.key}`,
    '',
    'Try it:',
    `  curl -H "X-API-Key: ${demo.key}" ${apiUrl}/context-cards`,
    `  curl -H "X-API-Key: ${demo.key}" ${apiUrl}/workflows`,
  ].join('\n');
}

export function registerServeCommands(program: Command): void {
  program
    .command('serve')
    .description('Run the server (REST API, MCP and discovery) until interrupted')
    .action(async () => {
      const config = loadConfig();
      limitHeapGrowth();
      const running = await startServer(config);
      const { core, logger } = running.application;
      const apiUrl = `${config.publicUrl}/api/public/v1`;
      if (config.bootstrap && (await core.accounts.countAccounts()) === 0) {
        const demo = await core.demo.createDemo();
        process.stdout.write(`${demoInstructions(demo, apiUrl)}\n\n`);
      }
      logger.info({ url: running.url, database: running.application.store.describe().location, defaultModel: config.ai.defaultModel }, 'Porch is listening');
      if (config.ai.defaultModelSource === 'echo') {
        logger.info('No AI provider is configured: every execution uses the offline echo/echo model. Set OPENAI_API_KEY or add providers to porch.config.yaml.');
      }
      process.stdout.write(`Porch is listening on ${running.url} (API ${apiUrl})\n`);

      const stopMaintenance = core.maintenance.start();

      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'shutting down');
        stopMaintenance();
        running.close().then(
          () => process.exit(0),
          (err: unknown) => {
            logger.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });

  program
    .command('demo')
    .description('Create a demo Expert account with credits, the sample catalog and an API key')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const config = loadConfig();
      const demo = await withApplication(({ core }) => core.demo.createDemo());
      print(demo, options, () => demoInstructions(demo, `${config.publicUrl}/api/public/v1`));
    });
}
