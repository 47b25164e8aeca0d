import type { Writable } from 'node:stream';
import { CliUsageError } from './context.js';

/** How commands print: JSON with --json (for scripts), readable text otherwise. Always stdout. */
export interface OutputOptions {
  json?: boolean;
}

export function print(stdout: Writable, value: unknown, options: OutputOptions, human: () => string): void {
  stdout.write(options.json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

/**
 * Resolves once everything written to `stdout` so far has been handed to the system, with the
 * error that stopped it, if any (a full disk, a closed pipe). A stream reports such errors after
 * `write` returned, so a command that prints only checks here.
 */
export function outputWritten(stdout: Writable): Promise<Error | undefined> {
  return new Promise((resolve) => {
    if (stdout.errored) return resolve(stdout.errored);
    stdout.write('', (err) => resolve(stdout.errored ?? err ?? undefined));
  });
}

/** Why the output could not be written, for a message on stderr. */
export function describeOutputFailure(err: Error): string {
  const code = 'code' in err && typeof err.code === 'string' ? err.code : undefined;
  return `cannot write the output to stdout (${code ?? err.message})`;
}

/**
 * `print` for output that exists only now (a new key's plaintext, a signing secret): when it
 * cannot be written, the command fails saying what was created and how to undo it (`lost` says
 * both), since it cannot be shown again.
 */
export async function printShownOnce(stdout: Writable, value: unknown, options: OutputOptions, human: () => string, lost: string): Promise<void> {
  print(stdout, value, options, human);
  const failure = await outputWritten(stdout);
  if (failure !== undefined) throw new CliUsageError(`${describeOutputFailure(failure)}: ${lost}`);
}

/** A two-column table of label/value rows. */
export function rows(entries: Array<[string, unknown]>): string {
  const width = Math.max(...entries.map(([label]) => label.length));
  return entries.map(([label, value]) => `${label.padEnd(width)}  ${value === null || value === undefined ? '-' : String(value)}`).join('\n');
}

/** A table with a header row. */
export function table(headers: string[], body: unknown[][]): string {
  const cells = [headers, ...body.map((row) => row.map((cell) => (cell === null || cell === undefined ? '-' : String(cell))))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  return cells
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
