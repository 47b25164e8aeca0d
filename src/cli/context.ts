import type { Readable, Writable } from 'node:stream';
import { DECIMAL_NUMBER, loadConfig, WHOLE_NUMBER, type Config } from '../config.js';
import { createLogger, type Logger } from '../logger.js';
import { locateDatabase } from '../db/create-store.js';
import { createApplication, type Application } from '../main.js';

/**
 * What a command may know of the world it runs in. Only the entry (`index.ts`) reads `process`;
 * commands get it from here, so tests run the CLI in-process with their own environment and streams.
 */
export interface CliContext {
  env: Readonly<Record<string, string | undefined>>;
  /** Relative paths (a bundle file, PORCH_CONFIG, an output folder) are resolved against it. */
  cwd: string;
  stdin: Readable;
  /** The command's own output, and nothing else (scripts parse it). */
  stdout: Writable;
  /** Messages for people: errors, warnings. */
  stderr: Writable;
  /**
   * Where logs go: a file descriptor (the entry's fd 2, written asynchronously so a busy server
   * does not wait on its logs) or a stream (tests).
   */
  logDestination: Writable | number;
  /** Resolves with the reason (e.g. `SIGTERM`) once the operator asks a long-running command to stop. */
  waitForStop(): Promise<string>;
}

/** What a command needs beyond the database, so a setting is required only by the commands that use it. */
export interface CommandNeeds {
  /** It calls models (`serve`, `mcp`): the provider key variables the config names must be set. */
  callsModels?: boolean;
  /**
   * It may create the database when there is none, and apply the migrations an existing one lacks
   * (`serve`, `db init`). Every other command refuses both: one run in the wrong folder does not
   * start a new, empty database there, and a command run during an upgrade never changes the
   * schema under servers of the old version (it points to `porch db migrate`).
   */
  createsDatabase?: boolean;
  /**
   * It may encrypt or decrypt with the secret key (default true). A command that only reads
   * accounts, keys, credits or usage says false, and then never creates `secret.key`.
   */
  usesSecretKey?: boolean;
  /** Its stderr carries only JSON log lines (`porch mcp`), so it names its database in the log. */
  logsOnly?: boolean;
}

/** What a command that only reads accounts, keys, credits or usage needs: no secret key file. */
export const READS_ONLY: CommandNeeds = { usesSecretKey: false };

/** The configuration, read from the context's environment and folder. */
export function loadCliConfig(context: CliContext, needs: CommandNeeds = {}): Config {
  return loadConfig(context.env, context.cwd, { requireProviderKeys: needs.callsModels ?? false });
}

/** The logger at the configured level, writing where the context says logs go. */
export function createCliLogger(context: CliContext, config: Config): Logger {
  return createLogger(config.logLevel, context.logDestination);
}

/** Refuses a command that would otherwise create a new, empty database where none is. */
export function refuseMissingDatabase(databaseUrl: string): void {
  const target = locateDatabase(databaseUrl);
  if (target.exists) return;
  throw new CliUsageError(
    `No Porch database at ${target.location}. Set DATABASE_URL to the database file (relative paths are ` +
      'resolved against the current folder), run porch in the folder that holds data/porch.db, or create a new one with porch db init.',
  );
}

/**
 * Builds the application over the database `DATABASE_URL` names, refusing to create one unless
 * the command may, and says on stderr which database it is (stdout is the command's output).
 */
export async function openApplication(context: CliContext, config: Config, needs: CommandNeeds): Promise<Application> {
  if (!needs.createsDatabase) refuseMissingDatabase(config.databaseUrl);
  const application = await createApplication(config, {
    logger: createCliLogger(context, config),
    pendingMigrations: needs.createsDatabase ? 'apply' : 'refuse',
    createsSecretKey: needs.usesSecretKey ?? true,
  });
  const { location } = application.store.describe();
  if (needs.logsOnly) application.logger.info({ database: location }, 'using the database');
  else context.stderr.write(`porch: database ${location}\n`);
  return application;
}

/**
 * The server's public URL, for a command that prints links to it (`account invite`, `demo`).
 * With PORT=0 the server picks its port when it starts, so another command cannot know it: it is
 * refused (before anything is written) rather than printing a link to port 0.
 */
export function linkableUrl(context: CliContext, config: Config): string {
  if (config.port === 0 && !context.env.PORCH_PUBLIC_URL?.trim()) {
    throw new CliUsageError(
      'PORT is 0, so the server picks its port when it starts and this command cannot know the address its links need. Set PORCH_PUBLIC_URL (or PORT) to the address the server is reached at.',
    );
  }
  return config.publicUrl;
}

/** Every model id a configuration offers, the built-in echo/echo included. */
export function configuredModels(config: Config): string[] {
  return [...config.ai.providers.flatMap((provider) => provider.models.map((model) => `${provider.id}/${model.name}`)), 'echo/echo'];
}

/**
 * Says, in the log, which config file the command uses (or where it looked and found none) and
 * which models it offers: a server that quietly runs on echo/echo because its config was not
 * found looked healthy until someone read the answers (regression: `porch mcp` started by an MCP
 * client from its own folder).
 */
export function logModelSetup(logger: Logger, config: Config): void {
  logger.info({ config: config.configPath, models: configuredModels(config), defaultModel: config.ai.defaultModel }, 'using the config and models');
  if (config.configPath === null) logger.info({ searched: config.configSearch }, 'No porch.config.yaml found; set PORCH_CONFIG to use one.');
  if (config.ai.defaultModelSource === 'echo') {
    logger.warn('No AI provider is configured: every execution uses the offline echo/echo model. Set OPENAI_API_KEY or add providers to porch.config.yaml.');
  }
}

/**
 * Commands open the database on demand and close it when done, so `porch key list` works beside
 * a running server (SQLite WAL lets both use the file).
 */
export async function withApplication<Result>(
  context: CliContext,
  run: (application: Application, config: Config) => Promise<Result>,
  needs: CommandNeeds = {},
): Promise<Result> {
  const config = loadCliConfig(context, needs);
  const application = await openApplication(context, config, needs);
  try {
    return await run(application, config);
  } finally {
    await application.close();
  }
}

/** Parses a whole number option, or fails with a message naming the option. */
export function parseWholeNumber(name: string) {
  return (value: string): number => {
    if (!WHOLE_NUMBER.test(value)) throw new CliUsageError(`${name} must be a whole number, got "${value}".`);
    return Number(value);
  };
}

/**
 * Parses a decimal number option (`500`, `2.5`), or fails with a message naming the option. Only
 * decimal digits: JavaScript's Number() also reads `0x10` as 16 and `1e3` as 1000, which an
 * operator granting credits never means (regression: `--credits 0x10` granted 16).
 */
export function parsePositiveNumber(name: string) {
  return (value: string): number => {
    if (!DECIMAL_NUMBER.test(value)) throw new CliUsageError(`${name} must be a decimal number of at least 0 (such as 500 or 2.5), got "${value}".`);
    return Number(value);
  };
}

export function parseList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/** A mistake in how a command was called; reported without a stack trace. */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
}
