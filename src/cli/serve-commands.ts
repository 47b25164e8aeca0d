import { createServer } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import type { Command } from 'commander';
import type { Config } from '../config.js';
import type { Core } from '../core/core.js';
import type { DemoAccount } from '../core/demo/demo.js';
import { startServer } from '../main.js';
import { locateDatabase } from '../db/create-store.js';
import { CliUsageError, createCliLogger, linkableUrl, loadCliConfig, logModelSetup, withApplication, type CliContext } from './context.js';
import { printShownOnce } from './output.js';
import { isWorkerProcess, parseWorkerCount, reportListening, superviseWorkers } from './workers.js';

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

function limitHeapGrowth(context: CliContext): void {
  const nodeFlags = [...process.execArgv, ...(context.env.NODE_OPTIONS ?? '').split(/\s+/)];
  if (nodeFlags.some((flag) => /^--heap[-_]growing[-_]percent/.test(flag))) return;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/** A port free on `host` now, chosen by the operating system. */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error(`no port on ${host}`))));
    });
  });
}

/**
 * PORT=0 asks for any free port. Porch's own links name the port (the API URL printed below, the
 * demo's commands, OAuth's issuer, the refine page's link), and the configuration fixes them before
 * the server listens, so the port is chosen first and the configuration read with it; the
 * supervisor of `--workers` passes it on to every worker, which then share it.
 */
async function withChosenPort(context: CliContext, config: Config): Promise<{ context: CliContext; config: Config }> {
  if (config.port !== 0) return { context, config };
  const chosen: CliContext = { ...context, env: { ...context.env, PORT: String(await freePort(config.host)) } };
  return { context: chosen, config: loadCliConfig(chosen, { callsModels: true }) };
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

/** On a first start (no account yet), creates the demo account and prints its key once. */
async function bootstrapDemo(core: Core, config: Config, context: CliContext): Promise<void> {
  if (!config.bootstrap || (await core.accounts.countAccounts()) > 0) return;
  // Another process starting on the same empty database may make it first: then it prints the key.
  const demo = await core.demo.createFirstDemo();
  if (demo === null) return;
  context.stdout.write(`${demoInstructions(demo, `${config.publicUrl}/api/public/v1`)}\n\n`);
}

export function registerServeCommands(program: Command, context: CliContext): void {
  program
    .command('serve')
    .description('Run the server (REST API, MCP and discovery) until interrupted')
    .option('--workers <count>', 'server processes sharing the port: a number, or auto for one per core (default PORCH_WORKERS, else 1)')
    .action(async (options: { workers?: string }) => {
      const { context: serving, config } = await withChosenPort(context, loadCliConfig(context, { callsModels: true }));
      limitHeapGrowth(serving);
      // An empty PORCH_WORKERS is unset (as compose files leave it); an empty --workers is refused.
      const workers = parseWorkerCount(options.workers ?? (serving.env.PORCH_WORKERS?.trim() || undefined));
      // Each process would have a database of its own, so no limit, credit or key would be shared.
      if (workers > 1 && locateDatabase(config.databaseUrl).location === ':memory:') {
        throw new CliUsageError(
          '--workers needs a database the processes share: DATABASE_URL names an in-memory one, which each process would have to itself. Name a file, or run one process.',
        );
      }
      if (workers > 1 && !isWorkerProcess()) {
        const logger = createCliLogger(serving, config);
        for (const warning of config.warnings) logger.warn(warning);
        // Migrate and bootstrap once, before the workers start, so they do not race to.
        await withApplication(serving, (application) => bootstrapDemo(application.core, config, serving), { createsDatabase: true });
        await superviseWorkers({ context: serving, config, count: workers, logger });
        return;
      }
      // The one command besides `db init` that creates the database when there is none; its
      // start-up log names the database it uses.
      // The application builds the logger itself, so every line of a request carries its ids.
      const running = await startServer(config, { logDestination: serving.logDestination });
      const { core, logger } = running.application;
      const apiUrl = `${config.publicUrl}/api/public/v1`;
      if (!isWorkerProcess()) {
        for (const warning of config.warnings) logger.warn(warning);
        await bootstrapDemo(core, config, serving);
      }
      logger.info({ url: running.url, database: running.application.store.describe().location, defaultModel: config.ai.defaultModel }, 'Porch is listening');
      logModelSetup(logger, config);
      if (running.metricsServer !== null) logger.info({ url: `${running.metricsServer.url}/metrics` }, 'metrics are served on the loopback interface');
      if (isWorkerProcess()) reportListening(running.url);
      else serving.stdout.write(`Porch is listening on ${running.url} (API ${apiUrl})\n`);

      const stopMaintenance = core.maintenance.start();
      const signal = await serving.waitForStop();
      logger.info({ signal, drainSeconds: config.shutdownDrainMs / 1_000 }, 'shutting down');
      stopMaintenance();
      try {
        await running.close();
      } catch (err) {
        logger.error({ err }, 'shutdown failed');
        throw err;
      }
    });

  program
    .command('demo')
    .description('Create a demo Expert account with credits, the sample catalog and an API key')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const siteUrl = linkableUrl(context, loadCliConfig(context));
      const demo = await withApplication(context, ({ core }) => core.demo.createDemo());
      await printShownOnce(
        context.stdout,
        demo,
        options,
        () => demoInstructions(demo, `${siteUrl}/api/public/v1`),
        `the demo account ${demo.email} (${demo.account_id}) was created with ${demo.credits} credits and the API key ${demo.key_id}, but the key could not be shown, and it cannot be shown again. Revoke it with porch key revoke ${demo.key_id}, then create another with porch key create --account ${demo.account_id}.`,
      );
    });
}
