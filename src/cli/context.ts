import type { Readable, Writable } from 'node:stream';
import type { z } from 'zod';
import { loadConfig, WHOLE_NUMBER, type Config } from '../config.js';
import { plainIssues } from '../core/validation.js';
import { createLogger, type Logger } from '../logger.js';
import { locateDatabase } from '../db/create-store.js';
import { createApplication, type Application } from '../main.js';
import { visible } from './visible-text.js';

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
   * what is never encrypted (accounts, keys, credits, usage, resources, the delivery log) says
   * false, and then never reads nor creates `secret.key`.
   */
  usesSecretKey?: boolean;
  /** Its stderr carries only JSON log lines (`porch mcp`), so it names its database in the log. */
  logsOnly?: boolean;
}

/** What a command that only reads what is never encrypted needs: no secret key file. */
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
    usesSecretKey: needs.usesSecretKey ?? true,
  });
  const { location } = application.store.describe();
  if (needs.logsOnly) application.logger.info({ database: location }, 'using the database');
  // The path is the file system's (the folder porch runs in, a percent-decoded DATABASE_URL), so
  // its control characters are escaped as in any other line for people.
  else context.stderr.write(`porch: database ${visible(location)}\n`);
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

/** What a numeric option or argument accepts. */
export interface NumberRange {
  /** Whole numbers only (a count, a limit, seconds, a version); else decimals too (credits). */
  whole: boolean;
  min: number;
  /** The least value is refused too: the number must be more than `min` (credits to grant). */
  aboveMin?: boolean;
  /** None: up to the largest number kept exactly (whole numbers), or any. */
  max?: number;
  /** Decimals only: at most this many digits after the point. */
  decimals?: number;
  /** A word accepted beside the numbers, for the message (`auto`); the caller reads it before parsing. */
  orElse?: string;
}

const formatNumber = (value: number) => value.toLocaleString('en');

/** `a whole number from 1 to 500`, `a decimal number more than 0 and at most 1,000,000,000, with at most 3 decimals`. */
function describeRange(range: NumberRange): string {
  const kind = range.whole ? 'a whole number' : 'a decimal number';
  const bounds =
    range.max === undefined
      ? range.aboveMin
        ? `more than ${formatNumber(range.min)}`
        : `of at least ${formatNumber(range.min)}`
      : range.aboveMin
        ? `more than ${formatNumber(range.min)} and at most ${formatNumber(range.max)}`
        : `from ${formatNumber(range.min)} to ${formatNumber(range.max)}`;
  const decimals = range.whole ? '' : `${range.decimals === undefined ? '' : `, with at most ${range.decimals} decimals`} (such as 500 or 2.5)`;
  return `${kind} ${bounds}${decimals}${range.orElse === undefined ? '' : `, or ${range.orElse}`}`;
}

/**
 * The one parser of the CLI's numeric options and arguments. Only decimal digits are read:
 * JavaScript's Number() also reads `0x10` as 16 and `1e3` as 1000, which an operator never means
 * (regression: `--credits 0x10` granted 16). Whatever is wrong (not a number, a sign, out of
 * range, past the integers a number holds exactly) gets one message naming the option and all it
 * accepts, with what was given (regressions: `--limit 99999999999999999999` reached SQLite as
 * "datatype mismatch", `--limit 0` listed nothing, `--rpm 0` was refused without naming --rpm).
 */
export function parseNumber(name: string, range: NumberRange) {
  const fraction = range.decimals === undefined ? '\\d+' : `\\d{1,${range.decimals}}`;
  const pattern = range.whole ? WHOLE_NUMBER : new RegExp(`^\\d+(\\.${fraction})?$`);
  const max = range.max ?? (range.whole ? Number.MAX_SAFE_INTEGER : Number.MAX_VALUE);
  return (value: string): number => {
    const number = pattern.test(value) ? Number(value) : Number.NaN;
    const inRange = (range.aboveMin ? number > range.min : number >= range.min) && number <= max;
    if (!inRange || (range.whole && !Number.isSafeInteger(number))) throw new CliUsageError(`${name} must be ${describeRange(range)}, got "${value}".`);
    return number;
  };
}

/**
 * Parses a text option with the schema the operation reads the same field with, so the CLI
 * stores nothing the API would refuse (regression: `key create --name` took 1,000 characters,
 * `POST /keys` at most 100); the message names the option.
 */
export function parseText<Output>(name: string, schema: z.ZodType<Output>) {
  return (value: string): Output => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    throw new CliUsageError(`${name} ${plainIssues(parsed.error)[0]?.message ?? 'is not valid'}.`);
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
