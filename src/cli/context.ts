import { loadConfig, type Config } from '../config.js';
import { createApplication, type Application } from '../main.js';

/**
 * Commands open the database on demand and close it when done, so `porch key list` works beside
 * a running server (SQLite WAL lets both use the file).
 */
export async function withApplication<Result>(run: (application: Application, config: Config) => Promise<Result>): Promise<Result> {
  const config = loadConfig();
  const application = createApplication(config);
  try {
    return await run(application, config);
  } finally {
    await application.close();
  }
}

/** Parses a whole number option, or fails with a message naming the option. */
export function parseWholeNumber(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value)) throw new CliUsageError(`${name} must be a whole number, got "${value}".`);
    return Number(value);
  };
}

export function parsePositiveNumber(name: string) {
  return (value: string): number => {
    const number = Number(value);
    if (value.trim() === '' || !Number.isFinite(number) || number < 0) throw new CliUsageError(`${name} must be a number of at least 0, got "${value}".`);
    return number;
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
