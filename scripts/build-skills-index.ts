/**
 * Writes .well-known/agent-skills/index.json from skills/ (the same index the server serves).
 *   npm run build:skills-index            write it
 *   npm run build:skills-index -- --check exit 1 when the committed file is stale
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { COMMITTED_INDEX_PATH, loadAgentSkills, serializeIndex } from '../src/rest/discovery/agent-skills.js';
import { PACKAGE_ROOT } from '../src/rest/discovery/package-root.js';

const target = join(PACKAGE_ROOT, COMMITTED_INDEX_PATH);
const expected = serializeIndex(loadAgentSkills(PACKAGE_ROOT).index);
let current: string | null = null;
try {
  current = readFileSync(target, 'utf8');
} catch {
  current = null;
}

if (process.argv.includes('--check')) {
  if (current !== expected) {
    process.stderr.write(`${COMMITTED_INDEX_PATH} is stale; run npm run build:skills-index\n`);
    process.exit(1);
  }
  process.stdout.write(`${COMMITTED_INDEX_PATH} is up to date\n`);
} else if (current === expected) {
  process.stdout.write(`${COMMITTED_INDEX_PATH} is up to date\n`);
} else {
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, expected);
  process.stdout.write(`wrote ${COMMITTED_INDEX_PATH}\n`);
}
