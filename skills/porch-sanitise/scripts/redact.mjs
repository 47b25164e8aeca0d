#!/usr/bin/env node
// Scans text with the Porch sanitiser and prints it with every finding replaced by
// [REDACTED: <label>], ready to send to a model. Dependency-free; Node.js 20 or later; uses
// ./porch.mjs (same folder) for the API and its retry rules.
//
//   node redact.mjs [file | -]     the text to scan (default: stdin)
//     --json                       print the scan result (findings, severity) instead
//
// A summary goes to stderr. Exit 0 when the overall severity is clean, info or warn; 3 when it is
// block (the redacted text is still printed: ask the user before sending anything on); 4 when the
// text holds more findings than one scan reports (`truncated`), so it cannot be redacted
// completely and nothing is printed; 1 on an API error; 2 on a usage error.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { describeError, PorchApiError, porchRequest } from './porch.mjs';

export const BLOCK_EXIT_CODE = 3;
export const TRUNCATED_EXIT_CODE = 4;

/**
 * Replaces each finding's span with a marker. Positions are JavaScript string indices, exactly
 * what the API reports (text.slice(start, end) === match); overlapping findings merge into one span.
 */
export function redact(text, findings) {
  const spans = [...findings].sort((a, b) => a.start - b.start || b.end - a.end);
  let output = '';
  let cursor = 0;
  for (const finding of spans) {
    if (finding.start < cursor) {
      // Overlaps the span just redacted: widen it instead of adding a marker.
      cursor = Math.max(cursor, finding.end);
      continue;
    }
    output += `${text.slice(cursor, finding.start)}[REDACTED: ${finding.label}]`;
    cursor = finding.end;
  }
  return output + text.slice(cursor);
}

export async function scan(text, options = {}) {
  const { data } = await porchRequest('POST', '/sanitiser/scan', { ...options, body: { text } });
  return data;
}

function summary(result) {
  const counts = new Map();
  for (const finding of result.findings) counts.set(finding.rule_id, (counts.get(finding.rule_id) ?? 0) + 1);
  const rules = [...counts].map(([rule, count]) => `${rule} x${count}`).join(', ');
  return `redact.mjs: ${result.findings.length} finding${result.findings.length === 1 ? '' : 's'}, severity ${result.severity}${rules ? `: ${rules}` : ''}\n`;
}

async function main() {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { json: { type: 'boolean' } } });
  const source = positionals[0] ?? '-';
  if (!process.env.PORCH_API_KEY) {
    process.stderr.write('redact.mjs: set PORCH_API_KEY to your API key (mdi_...)\n');
    process.exit(2);
  }
  let text;
  try {
    text = readFileSync(source === '-' ? 0 : source, 'utf8');
  } catch (err) {
    process.stderr.write(`redact.mjs: cannot read ${source}: ${err.code ?? 'unreadable'}\n`);
    process.exit(2);
  }
  try {
    const result = await scan(text);
    process.stderr.write(summary(result));
    if (result.truncated && !values.json) {
      // Findings past the scan's limit were not reported: a "redacted" text would still hold them.
      process.stderr.write('redact.mjs: the text holds more findings than one scan reports, so it cannot be redacted completely; nothing was printed\n');
      process.exit(TRUNCATED_EXIT_CODE);
    }
    process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : redact(text, result.findings));
    if (result.severity === 'block') process.exitCode = BLOCK_EXIT_CODE;
  } catch (err) {
    if (!(err instanceof PorchApiError)) throw err;
    process.stderr.write(`${describeError(err)}\n`);
    process.exit(1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
