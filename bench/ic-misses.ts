/**
 * `npx tsx bench/ic-misses.ts <v8.log> [rows]`: where a server's megamorphic property accesses
 * missed V8's shared lookup cache, by access site, from a log written with `node --log-ic`.
 *
 * A site that misses once per request is one that meets an object of a new map every time: on
 * Node 20, an object made by copying another with a property added (`{ ...request, signal }`)
 * gets a map of its own, so every read of it misses and goes through V8's runtime, and the maps
 * crowd the cache every other megamorphic access of the process shares (bench/RESULTS-NOTES.md,
 * "Objects of one shape"). Run a bench with the flag, then this on the log:
 *
 *   BENCH_NODE_ARGS="--log-ic --logfile=/tmp/ic/v8.log" BENCH_REST=0 BENCH_ROUNDS=1 npx tsx bench/list-bench.ts
 *   npx tsx bench/ic-misses.ts /tmp/ic/isolate-*-v8.log
 *
 * (execute-bench.ts takes BENCH_NODE_ARGS too.) Each row is a count of misses, the access, the
 * property, the site's line and column in its own script, and the function it was compiled in
 * (an inlined callee's site shows its caller's name). Compare the counts with the requests the
 * bench made: sites near one miss per request, in Porch's dist/, are the ones to look at.
 */
import { readFileSync } from 'node:fs';

/** The fields of one of V8's log lines: CSV whose quoted fields double their quotes. */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < line.length; index += 1) {
    const character = line[index];
    if (quoted) {
      if (character === '"' && line[index + 1] === '"') {
        field += '"';
        index += 1;
      } else if (character === '"') quoted = false;
      else field += character;
    } else if (character === '"') quoted = true;
    else if (character === ',') {
      fields.push(field);
      field = '';
    } else field += character;
  }
  fields.push(field);
  return fields;
}

/** A compiled code object: where it lies in memory and what V8 named it (`function file:line:column`). */
interface CodeRange {
  start: number;
  end: number;
  name: string;
}

/** The name of the code containing `address`, the latest created first (code memory is reused). */
function codeAt(codes: readonly CodeRange[], address: number): string {
  for (let index = codes.length - 1; index >= 0; index -= 1) {
    const code = codes[index];
    if (code !== undefined && address >= code.start && address < code.end) return code.name;
  }
  return '?';
}

const IC_EVENT = /^(?:Keyed)?(?:Load|Store|Define)[A-Za-z]*IC,/;
/** The state V8 logs for a megamorphic inline cache. */
const MEGAMORPHIC = 'N';

function megamorphicMisses(log: string): Map<string, number> {
  const codes: CodeRange[] = [];
  const misses = new Map<string, number>();
  for (const line of log.split('\n')) {
    if (line.startsWith('code-creation,')) {
      // code-creation,<type>,<kind>,<timestamp>,<address>,<size>,<name>,...
      const fields = csvFields(line);
      const start = Number.parseInt(fields[4] ?? '', 16);
      codes.push({ start, end: start + Number(fields[5]), name: fields[6] ?? '?' });
    } else if (IC_EVENT.test(line)) {
      // <type>,<pc>,<time>,<line>,<column>,<old state>,<new state>,<map>,<key>,...
      const [type, pc = '', , lineNumber, column, oldState, , , key] = csvFields(line);
      if (oldState !== MEGAMORPHIC) continue;
      const site = codeAt(codes, Number.parseInt(pc, 16)).replace(/file:\/\/\S*?\/(node_modules|dist)\//, '$1/');
      const row = `${type} ${key} ${lineNumber}:${column} in ${site}`;
      misses.set(row, (misses.get(row) ?? 0) + 1);
    }
  }
  return misses;
}

const [file, rows = '40'] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write('usage: npx tsx bench/ic-misses.ts <v8.log> [rows]\n');
  process.exit(2);
}
const misses = [...megamorphicMisses(readFileSync(file, 'utf8'))].sort((left, right) => right[1] - left[1]);
for (const [row, count] of misses.slice(0, Number(rows))) process.stdout.write(`${String(count).padStart(8)}  ${row}\n`);
