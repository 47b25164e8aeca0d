/**
 * `npm run bench:streaming`: time to first byte of a streamed execution, through Porch and
 * straight from the upstream, side by side in one run. The fake OpenAI-compatible upstream and
 * Porch (`node dist/cli/index.js serve`, built by the npm script) each run in their own process;
 * this process only sends requests, one at a time, the two kinds taking turns, so the machine's
 * drift over the run hits both alike. Several rounds, so the spread between rounds shows how far
 * one number can be trusted on a shared machine.
 *
 * "First byte" is the first content the client can show: the first `delta` event from Porch
 * (`POST /personas/{id}/execute` with `Accept: text/event-stream`), the first content chunk from
 * the upstream (`POST /v1/chat/completions` with `stream: true`). Both are read by the same
 * node:http client (bench/streaming-client.ts). Target: Porch adds at most 2 ms at p50.
 *
 * BENCH_QUICK=1 runs a few requests per round (for checking the harness, not for numbers);
 * BENCH_NODE_ARGS adds node flags to Porch (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
 */
import { rm } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { children, stopProcess } from './bench-processes.js';
import { GATEWAY_KEY, startStreamingSetup, timedEventStream, timedJson, upstreamStreamBody } from './streaming-client.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = QUICK ? 2 : 5;
const PAIRS_PER_ROUND = QUICK ? 20 : 300;
const WARM_UP_PAIRS = QUICK ? 5 : 100;
/** Porch's start flags, as `npm start` (see package.json). */
const PORCH_ARGS = [
  '--max-semi-space-size=8',
  ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg.length > 0),
  join(ROOT, 'dist', 'cli', 'index.js'),
  'serve',
];
const INPUT = 'Our synergistic platform leverages best-of-breed paradigms to empower stakeholders.';

function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

interface Summary {
  p50: number;
  p90: number;
  p99: number;
}

function summarise(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p90: percentile(sorted, 0.9), p99: percentile(sorted, 0.99) };
}

const ms = (value: number) => value.toFixed(2);

async function main(): Promise<void> {
  process.stdout.write('Starting the fake upstream and Porch...\n');
  const setup = await startStreamingSetup(undefined, PORCH_ARGS);
  try {
    const porchUrl = `${setup.porch.url}${setup.personaPath}`;
    const porchHeaders = { 'x-api-key': setup.key, accept: 'text/event-stream' };
    const upstreamUrl = `${setup.fake.url}/chat/completions`;
    const upstreamHeaders = { authorization: `Bearer ${GATEWAY_KEY}`, accept: 'text/event-stream' };

    const viaPorch = async (): Promise<number> => {
      const response = await timedEventStream(porchUrl, porchHeaders, { input: INPUT });
      const first = response.events.find((event) => event.event === 'delta');
      if (response.status !== 200 || first === undefined)
        throw new Error(`Porch answered ${response.status} without a delta: ${JSON.stringify(response.events).slice(0, 300)}`);
      return first.atMs;
    };
    // For reference: the same execution answered as JSON (its whole answer is one short word, so
    // the end of the response is its first byte), to tell streaming's own cost from the rest.
    const jsonHeaders = { 'x-api-key': setup.key, accept: 'application/json' };
    const viaPorchJson = async (): Promise<number> => {
      const response = await timedJson(porchUrl, jsonHeaders, { input: INPUT });
      if (response.status !== 200) throw new Error(`Porch answered ${response.status} to the JSON execution`);
      return response.totalMs;
    };
    const direct = async (): Promise<number> => {
      const response = await timedEventStream(upstreamUrl, upstreamHeaders, upstreamStreamBody(INPUT));
      const first = response.events.find((event) => event.data.includes('"content"'));
      if (response.status !== 200 || first === undefined) throw new Error(`the upstream answered ${response.status} without content`);
      return first.atMs;
    };

    for (let index = 0; index < WARM_UP_PAIRS; index += 1) {
      await direct();
      await viaPorch();
      await viaPorchJson();
    }
    const rounds: Array<{ direct: Summary; porch: Summary; json: Summary; added: number }> = [];
    const allDirect: number[] = [];
    const allPorch: number[] = [];
    const allJson: number[] = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      const directTimes: number[] = [];
      const porchTimes: number[] = [];
      const jsonTimes: number[] = [];
      for (let index = 0; index < PAIRS_PER_ROUND; index += 1) {
        // Alternate which goes first, so neither always runs on a just-warmed connection pool.
        if (index % 2 === 0) {
          directTimes.push(await direct());
          porchTimes.push(await viaPorch());
        } else {
          porchTimes.push(await viaPorch());
          directTimes.push(await direct());
        }
        jsonTimes.push(await viaPorchJson());
      }
      allDirect.push(...directTimes);
      allPorch.push(...porchTimes);
      allJson.push(...jsonTimes);
      const summary = { direct: summarise(directTimes), porch: summarise(porchTimes), json: summarise(jsonTimes), added: 0 };
      summary.added = summary.porch.p50 - summary.direct.p50;
      rounds.push(summary);
      process.stdout.write(`round ${round}: direct p50 ${ms(summary.direct.p50)} ms, Porch p50 ${ms(summary.porch.p50)} ms, added ${ms(summary.added)} ms\n`);
    }

    const overallDirect = summarise(allDirect);
    const overallPorch = summarise(allPorch);
    const overallJson = summarise(allJson);
    const added = rounds.map((round) => round.added).sort((a, b) => a - b);
    const lines = [
      `Time to first byte of a streamed execution (${new Date().toISOString().slice(0, 10)}, ${cpus().length} vCPU ${cpus()[0]?.model ?? ''}, Node ${process.version})`,
      '',
      `${ROUNDS} rounds of ${PAIRS_PER_ROUND} sequential pairs after ${WARM_UP_PAIRS} warm-up pairs; milliseconds from the request sent to the first content. The last column, for reference, is the same execution as JSON, to its last byte.`,
      '',
      '| Round | Direct p50 | Direct p90 | Direct p99 | Porch p50 | Porch p90 | Porch p99 | Added at p50 | Porch JSON p50 (reference) |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rounds.map(
        (round, index) =>
          `| ${index + 1} | ${ms(round.direct.p50)} | ${ms(round.direct.p90)} | ${ms(round.direct.p99)} | ${ms(round.porch.p50)} | ${ms(round.porch.p90)} | ${ms(round.porch.p99)} | ${ms(round.added)} | ${ms(round.json.p50)} |`,
      ),
      `| all | ${ms(overallDirect.p50)} | ${ms(overallDirect.p90)} | ${ms(overallDirect.p99)} | ${ms(overallPorch.p50)} | ${ms(overallPorch.p90)} | ${ms(overallPorch.p99)} | **${ms(overallPorch.p50 - overallDirect.p50)}** | ${ms(overallJson.p50)} |`,
      '',
      `Added at p50 across rounds: ${ms(added[0] ?? Number.NaN)} to ${ms(added.at(-1) ?? Number.NaN)} ms. Target <= 2 ms at p50: ${overallPorch.p50 - overallDirect.p50 <= 2 ? 'met' : 'not met'}.`,
    ];
    process.stdout.write(`\n${lines.join('\n')}\n`);
  } finally {
    for (const child of [...children]) await stopProcess(child);
    await rm(setup.directory, { recursive: true, force: true });
  }
}

await main();
