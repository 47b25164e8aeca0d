import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { fileErrorReason } from '../db/file-errors.js';
import { CliUsageError } from './context.js';
import { visible, visibleLines } from './visible-text.js';

/** How commands print: JSON with --json (for scripts), readable text otherwise. Always stdout. */
export interface OutputOptions {
  json?: boolean;
}

/**
 * Prints `value` as JSON with --json (JSON escapes what it must, and scripts need it exact), else
 * the text `human` makes, every control character in it escaped (`visibleLines`): a table or
 * sentence that holds stored text cannot act on the terminal, even where no cell was escaped.
 */
export function print(stdout: Writable, value: unknown, options: OutputOptions, human: () => string): void {
  stdout.write(options.json ? `${JSON.stringify(value, null, 2)}\n` : `${visibleLines(human())}\n`);
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

/**
 * Refuses an empty name given to `option` for where to write (`target`: "the bundle file to
 * write"), which would otherwise read as no option at all (regression: `export --output ''`
 * printed the bundle and exited 0, where `backup --to ''` was refused).
 */
export function refuseBlankFileName(option: string, value: string | undefined, target: string): void {
  if (value?.trim() === '') throw new CliUsageError(`${option} needs the name of ${target}.`);
}

/**
 * Writes a command's document (`what`: the bundle, the skill) to `path` as the operator gave it,
 * resolved against `cwd`. A write the file system refuses fails the command naming the file, as
 * output to stdout names stdout (regression: `export --output /dev/full` said "unexpected error:
 * ENOSPC: no space left on device, write", naming no file).
 */
export async function writeOutputFile(cwd: string, path: string, text: string, what: string): Promise<void> {
  const file = resolve(cwd, path);
  try {
    await writeFile(file, text, 'utf8');
  } catch (err) {
    const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
    if (code === undefined) throw err;
    throw new CliUsageError(`cannot write ${what} to ${file}: ${fileErrorReason(err) ?? code}.`);
  }
}

/** A cell as a table shows it: `-` for nothing, control characters escaped (`visible`), so it stays on its row. */
function cellText(cell: unknown): string {
  return cell === null || cell === undefined ? '-' : visible(String(cell));
}

/** A two-column table of label/value rows. */
export function rows(entries: Array<[string, unknown]>): string {
  const labels = entries.map(([label]) => cellText(label));
  const width = Math.max(...labels.map((label) => label.length));
  return entries.map(([, value], index) => `${(labels[index] ?? '').padEnd(width)}  ${cellText(value)}`).join('\n');
}

/** A table with a header row. */
export function table(headers: string[], body: unknown[][]): string {
  const cells = [headers, ...body.map((row) => row.map(cellText))];
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
