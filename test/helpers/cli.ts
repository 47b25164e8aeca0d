/**
 * Runs the operator CLI. `runPorch` runs it in-process through the same function the `porch`
 * entry calls (milliseconds a command); `runPorchProcess` starts the real entry as a process
 * (about half a second), for the few tests that cover the entry itself.
 */
import { execFile } from 'node:child_process';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';

const run = promisify(execFile);

/**
 * node's arguments up to a `porch` command, for a process running the current sources: this
 * run's bundle of them (test/setup/source-bundle.ts), which starts a second sooner than tsx.
 */
export function porchEntryArgs(): string[] {
  return [inject('sourceBundleEntry')];
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A stream that keeps what is written to it. */
export function collectingStream(): { stream: Writable; text(): string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, encoding, done) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk);
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** `porch ...args` with `env` (a database file, a log level), in this process; resolves with the exit code. */
export function runPorch(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliResult> {
  return runPorchIn(process.cwd(), env, ...args);
}

/** `runPorch` as if started in the folder `cwd` (relative paths resolve against it). */
export async function runPorchIn(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliResult> {
  const stdout = collectingStream();
  const stderr = collectingStream();
  const code = await runCli(args, { env, cwd, stdout: stdout.stream, stderr: stderr.stream });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** `porch ...args` as a real process (the bundled sources, `porchEntryArgs`); resolves with the exit code instead of throwing. */
export async function runPorchProcess(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...porchEntryArgs(), ...args], { env, cwd: process.cwd() });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failure = err as CliResult;
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}
