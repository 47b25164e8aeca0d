/**
 * Workflow engine benchmark: how much the engine itself costs per node, and whether parallel
 * branches really overlap. Run with `npm run bench:engine` (tsx bench/engine-bench.ts); results
 * are recorded in bench/ENGINE.md.
 *
 * The executors are fakes on purpose: a zero-latency one isolates the engine's own overhead
 * (rendering, scheduling, timers, trace), a fixed 20 ms one shows the scheduling shape.
 */
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { runWorkflow, type ExecuteNode, type NodeExecutionResult, type RunWorkflowOptions } from '../src/core/engine/run-workflow.js';
import { validateWorkflowDefinition, type WorkflowDefinition, type WorkflowDefinitionInput } from '../src/core/engine/workflow-definition.js';

/** Overhead budget per node from the engine's brief: small next to any model call. */
const OVERHEAD_TARGET_MICROSECONDS = 200;
/** Latency of one fake model call in the parallel scenario. */
const BRANCH_LATENCY_MS = 20;
const CHAIN_LENGTH = 100;
const BRANCH_COUNT = 10;
/** Enough runs for stable medians; warm-up lets the JIT settle before measuring. */
const WARMUP_RUNS = 300;
const MEASURED_RUNS = 2_000;
const LATENCY_RUNS = 30;

const FIXED_RESULT: NodeExecutionResult = {
  output: 'ok',
  model: 'echo/echo',
  token_usage: { input_tokens: 12, output_tokens: 3, total_tokens: 15 },
};

const immediate: ExecuteNode = () => Promise.resolve(FIXED_RESULT);

const delayed: ExecuteNode = () =>
  new Promise((resolve) => {
    setTimeout(() => resolve(FIXED_RESULT), BRANCH_LATENCY_MS);
  });

function chainDefinition(): WorkflowDefinitionInput {
  const nodes = Array.from({ length: CHAIN_LENGTH }, (_, index) => ({
    id: `n${index}`,
    kind: 'model' as const,
    prompt: index === 0 ? 'Start with {{topic}}' : `Step ${index} after {{n${index - 1}}} on {{topic}}`,
  }));
  return {
    variables: [{ name: 'topic', required: true }],
    nodes,
    outputs: { result: `n${CHAIN_LENGTH - 1}` },
  };
}

function parallelDefinition(): WorkflowDefinitionInput {
  const branches = Array.from({ length: BRANCH_COUNT }, (_, index) => ({
    id: `branch${index}`,
    kind: 'model' as const,
    prompt: `Angle ${index} on {{topic}}`,
  }));
  const join = {
    id: 'join',
    kind: 'template' as const,
    template: branches.map((branch) => `- {{${branch.id}}}`).join('\n'),
  };
  return {
    variables: [{ name: 'topic', required: true }],
    nodes: [...branches, join],
    outputs: { summary: 'join' },
  };
}

interface Stats {
  medianMs: number;
  p95Ms: number;
  minMs: number;
  maxMs: number;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (fraction: number): number => sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
  return { medianMs: at(0.5), p95Ms: at(0.95), minMs: sorted[0] ?? 0, maxMs: sorted[sorted.length - 1] ?? 0 };
}

async function measure(
  runs: number,
  warmup: number,
  definitionFor: () => WorkflowDefinition,
  executeNode: ExecuteNode,
  options: RunWorkflowOptions,
): Promise<Stats> {
  const samples: number[] = [];
  for (let run = 0; run < warmup + runs; run += 1) {
    const started = performance.now();
    const definition = definitionFor();
    const result = await runWorkflow(definition, { topic: 'owls' }, executeNode, options);
    const elapsed = performance.now() - started;
    if (result.status !== 'completed') throw new Error(`benchmark run failed: ${JSON.stringify(result.node_results)}`);
    if (run >= warmup) samples.push(elapsed);
  }
  return stats(samples);
}

interface Row {
  scenario: string;
  nodes: number;
  stats: Stats;
  perNodeMicroseconds?: number;
}

function formatMs(value: number): string {
  return value.toFixed(value < 10 ? 3 : 1);
}

function table(rows: Row[]): string {
  const header = '| Scenario | Nodes | Median ms | p95 ms | Min ms | Max ms | Overhead per node (µs, median) |';
  const divider = '|---|---:|---:|---:|---:|---:|---:|';
  const lines = rows.map(
    (row) =>
      `| ${row.scenario} | ${row.nodes} | ${formatMs(row.stats.medianMs)} | ${formatMs(row.stats.p95Ms)} | ` +
      `${formatMs(row.stats.minMs)} | ${formatMs(row.stats.maxMs)} | ` +
      `${row.perNodeMicroseconds === undefined ? '-' : row.perNodeMicroseconds.toFixed(1)} |`,
  );
  return [header, divider, ...lines].join('\n');
}

async function main(): Promise<void> {
  const chain = validateWorkflowDefinition(chainDefinition());
  const parallel = validateWorkflowDefinition(parallelDefinition());
  const chainInput = chainDefinition();
  const zeroLatency: RunWorkflowOptions = {};
  const rows: Row[] = [];

  // Warm every code path first, so the first scenario measured does not pay for the JIT alone.
  await measure(0, WARMUP_RUNS, () => validateWorkflowDefinition(chainInput), immediate, zeroLatency);
  await measure(0, WARMUP_RUNS, () => parallel, immediate, { maxConcurrency: BRANCH_COUNT });

  const chainCached = await measure(MEASURED_RUNS, WARMUP_RUNS, () => chain, immediate, zeroLatency);
  rows.push({
    scenario: `chain of ${CHAIN_LENGTH}, zero latency, compiled once`,
    nodes: CHAIN_LENGTH,
    stats: chainCached,
    perNodeMicroseconds: (chainCached.medianMs * 1000) / CHAIN_LENGTH,
  });

  // A definition parsed fresh for every run (no cache hit): the timing includes validation and
  // compilation, as when a workflow is loaded from the database for each request.
  const chainFresh = await measure(MEASURED_RUNS / 4, WARMUP_RUNS / 4, () => validateWorkflowDefinition(chainInput), immediate, zeroLatency);
  rows.push({
    scenario: `chain of ${CHAIN_LENGTH}, zero latency, validated + compiled every run`,
    nodes: CHAIN_LENGTH,
    stats: chainFresh,
    perNodeMicroseconds: (chainFresh.medianMs * 1000) / CHAIN_LENGTH,
  });

  const parallelNodes = BRANCH_COUNT + 1;
  const parallelZero = await measure(MEASURED_RUNS, WARMUP_RUNS, () => parallel, immediate, { maxConcurrency: BRANCH_COUNT });
  rows.push({
    scenario: `${BRANCH_COUNT} branches + fan-in, zero latency, maxConcurrency ${BRANCH_COUNT}`,
    nodes: parallelNodes,
    stats: parallelZero,
    perNodeMicroseconds: (parallelZero.medianMs * 1000) / parallelNodes,
  });

  const parallelWide = await measure(LATENCY_RUNS, 3, () => parallel, delayed, { maxConcurrency: BRANCH_COUNT });
  rows.push({
    scenario: `${BRANCH_COUNT} branches of ${BRANCH_LATENCY_MS} ms + fan-in, maxConcurrency ${BRANCH_COUNT}`,
    nodes: parallelNodes,
    stats: parallelWide,
  });

  const parallelDefault = await measure(LATENCY_RUNS, 3, () => parallel, delayed, {});
  rows.push({
    scenario: `${BRANCH_COUNT} branches of ${BRANCH_LATENCY_MS} ms + fan-in, default maxConcurrency (4)`,
    nodes: parallelNodes,
    stats: parallelDefault,
  });

  const cpuModel = cpus()[0]?.model ?? 'unknown';
  process.stdout.write(
    [
      `Workflow engine benchmark — ${new Date().toISOString()}`,
      `Node ${process.version}, ${cpus().length} CPUs (${cpuModel})`,
      '',
      table(rows),
      '',
      `Overhead target: < ${OVERHEAD_TARGET_MICROSECONDS} µs per node: ` +
        ((chainCached.medianMs * 1000) / CHAIN_LENGTH < OVERHEAD_TARGET_MICROSECONDS ? 'met' : 'NOT met'),
      `Parallel target: ${BRANCH_COUNT} branches of ${BRANCH_LATENCY_MS} ms in about one branch's time: ` +
        (parallelWide.medianMs < BRANCH_LATENCY_MS * 1.5 ? 'met' : 'NOT met') +
        ` (median ${formatMs(parallelWide.medianMs)} ms)`,
      '',
    ].join('\n'),
  );
}

await main();
