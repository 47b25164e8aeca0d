/**
 * Regenerates the generated parts of docs/ (the error table of docs/errors.md, the MCP tool table
 * of docs/mcp.md).
 *   npm run build:docs            rewrite them
 *   npm run build:docs -- --check exit 1 when a committed file is stale
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { operations } from '../src/operations/index.js';
import { GENERATED_BLOCKS, withGeneratedBlock } from '../src/rest/discovery/generated-docs.js';
import { PACKAGE_ROOT } from '../src/rest/discovery/package-root.js';

let stale = false;
for (const block of GENERATED_BLOCKS) {
  const file = join(PACKAGE_ROOT, block.file);
  const current = readFileSync(file, 'utf8');
  const expected = withGeneratedBlock(current, block, operations);
  if (current === expected) {
    process.stdout.write(`${block.file} is up to date\n`);
  } else if (process.argv.includes('--check')) {
    process.stderr.write(`${block.file} is stale; run npm run build:docs\n`);
    stale = true;
  } else {
    writeFileSync(file, expected);
    process.stdout.write(`wrote ${block.file}\n`);
  }
}
if (stale) process.exitCode = 1;
