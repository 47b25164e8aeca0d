/**
 * Regenerates the generated parts of docs/ (the error table of docs/errors.md, from ERROR_TABLE).
 *   npm run build:docs            rewrite them
 *   npm run build:docs -- --check exit 1 when a committed file is stale
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withErrorTable } from '../src/rest/discovery/error-table.js';
import { PACKAGE_ROOT } from '../src/rest/discovery/package-root.js';

const file = join(PACKAGE_ROOT, 'docs/errors.md');
const current = readFileSync(file, 'utf8');
const expected = withErrorTable(current);
if (current === expected) {
  process.stdout.write('docs/errors.md is up to date\n');
} else if (process.argv.includes('--check')) {
  process.stderr.write('docs/errors.md is stale; run npm run build:docs\n');
  process.exit(1);
} else {
  writeFileSync(file, expected);
  process.stdout.write('wrote docs/errors.md\n');
}
