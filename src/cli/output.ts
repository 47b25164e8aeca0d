import type { Writable } from 'node:stream';

/** How commands print: JSON with --json (for scripts), readable text otherwise. Always stdout. */
export interface OutputOptions {
  json?: boolean;
}

export function print(stdout: Writable, value: unknown, options: OutputOptions, human: () => string): void {
  stdout.write(options.json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
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
