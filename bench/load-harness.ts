/** What the load benchmarks share: the server in its own process, and /health probes. */
import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

/**
 * Runs the calling bench script again as the server (`<script> serve`), in a process of its own,
 * so the load generator's work never lands on the server's event loop; resolves once the server
 * prints its `listening <url> ...` line, with the words after `listening`.
 */
export async function startServerProcess(scriptUrl: string): Promise<{ child: ChildProcess; words: string[] }> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(scriptUrl), 'serve'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const words = await new Promise<string[]>((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = /listening ([^\n]+)\n/.exec(stdout);
      if (line?.[1]) resolve(line[1].split(' '));
    });
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
  });
  return { child, words };
}

/** Milliseconds one GET /health takes, end to end. */
export async function probeHealth(url: string): Promise<number> {
  const started = performance.now();
  await (await fetch(`${url}/api/public/v1/health`)).text();
  return performance.now() - started;
}

/** `samples` probes of /health one after another on an idle server. */
export async function idleHealth(url: string, samples = 50): Promise<number[]> {
  const latencies: number[] = [];
  for (let index = 0; index < samples; index += 1) latencies.push(await probeHealth(url));
  return latencies;
}

export function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}
