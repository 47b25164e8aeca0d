/**
 * `npx tsx bench/profile-shares.ts PROFILE.cpuprofile...`: where a Porch server's busy time went,
 * by category (the store, Node's HTTP, the socket writes, JSON, GC, Porch's own code...), from
 * `node --cpu-prof` profiles of a bench's servers. This is how bench/RESULTS-NOTES.md's "what
 * stands in the way" shares are taken, e.g.:
 *
 *   BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" BENCH_MCP=0 npx tsx bench/list-bench.ts
 *   npx tsx bench/profile-shares.ts /tmp/prof/*.cpuprofile
 *
 * Each sample is charged to the first category its own frame matches (self time); a sample with
 * module loading anywhere on its stack counts as start-up, which is left out with idle time, so
 * the shares are of the time the server spent serving. Several profiles are reported one by one.
 * PROFILE_TOP=<n> also lists the n functions with the most self time, with their categories.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const HTTP_PACKAGES =
  /node_modules\/(express|body-parser|router|raw-body|type-is|parseurl|accepts|negotiator|iconv-lite|content-type|mime|finalhandler|send|on-finished|qs)\//;

/** First match wins; the order puts the specific before the general. */
const CATEGORIES: ReadonlyArray<readonly [string, (frame: CallFrame) => boolean]> = [
  ['GC', (frame) => frame.functionName === '(garbage collector)'],
  ['store: SQLite, PostgreSQL driver, drizzle', (frame) => /better-sqlite3|drizzle-orm|node_modules\/pg|\/db\/(sqlite|postgres)\//.test(frame.url)],
  ['socket writes', (frame) => /^(writev|writeUtf8String|writeBuffer|writeLatin1String)$/.test(frame.functionName)],
  ["Node's HTTP, net and streams", (frame) => /^node:(_http|net|internal\/stream|internal\/streams|stream|events|internal\/http)/.test(frame.url)],
  ['JSON writing', (frame) => /list-stream/.test(frame.url) || frame.functionName === 'stringify'],
  ['MCP SDK', (frame) => /@modelcontextprotocol/.test(frame.url)],
  ['zod', (frame) => /node_modules\/zod\//.test(frame.url)],
  ['Express and its helpers', (frame) => HTTP_PACKAGES.test(frame.url)],
  ['prom-client', (frame) => /prom-client/.test(frame.url)],
  ['OpenTelemetry', (frame) => /@opentelemetry/.test(frame.url)],
  ['openai SDK and undici', (frame) => /node_modules\/(openai|undici)\//.test(frame.url)],
  ["Porch's own code", (frame) => /\/(dist|src)\//.test(frame.url)],
  ['other (native, Node internals)', () => true],
];

const STARTUP = /modules\/(cjs|esm)|compileSourceTextModule|bootstrap\/realm|wrapSafe/;

function shares(profile: CpuProfile): { busyMs: number; byCategory: Map<string, number>; byFunction: Map<string, { category: string; micros: number }> } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const isStartup = (id: number): boolean => {
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const frame = byId.get(current)?.callFrame;
      if (frame !== undefined && (STARTUP.test(frame.url) || STARTUP.test(frame.functionName))) return true;
    }
    return false;
  };
  const byCategory = new Map<string, number>();
  const byFunction = new Map<string, { category: string; micros: number }>();
  let busy = 0;
  profile.samples.forEach((id, index) => {
    const frame = byId.get(id)?.callFrame;
    const delta = profile.timeDeltas[index] ?? 0;
    if (frame === undefined || frame.functionName === '(idle)' || isStartup(id)) return;
    const category = CATEGORIES.find(([, matches]) => matches(frame))?.[0] ?? 'other';
    byCategory.set(category, (byCategory.get(category) ?? 0) + delta);
    const name = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}`;
    const entry = byFunction.get(name) ?? { category, micros: 0 };
    entry.micros += delta;
    byFunction.set(name, entry);
    busy += delta;
  });
  return { busyMs: busy / 1000, byCategory, byFunction };
}

const TOP = Number(process.env.PROFILE_TOP ?? 0);

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: npx tsx bench/profile-shares.ts PROFILE.cpuprofile...\n');
  process.exit(2);
}
for (const file of files) {
  const { busyMs, byCategory, byFunction } = shares(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  process.stdout.write(`${basename(file)}: busy ${(busyMs / 1000).toFixed(2)} s\n`);
  for (const [category, micros] of [...byCategory].sort((left, right) => right[1] - left[1])) {
    process.stdout.write(`${((100 * micros) / 1000 / busyMs).toFixed(1).padStart(6)} %  ${category}\n`);
  }
  if (TOP > 0) process.stdout.write(`top ${TOP} functions by self time:\n`);
  for (const [name, { category, micros }] of [...byFunction].sort((left, right) => right[1].micros - left[1].micros).slice(0, TOP)) {
    process.stdout.write(`${((100 * micros) / 1000 / busyMs).toFixed(1).padStart(6)} %  ${name}  (${category})\n`);
  }
}
