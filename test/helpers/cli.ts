/**
 * Runs the operator CLI. `runPorch` runs it in-process through the same function the `porch`
 * entry calls (milliseconds a command); `runPorchProcess` starts the real entry as a process
 * (about half a second), for the few tests that cover the entry itself.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { BUNDLE_ENTRY, buildBundle } from '../../scripts/build-bundle.js';
import { runCli } from '../../src/cli/run-cli.js';

const run = promisify(execFile);

/** This worker's build of the bundle, shared by every test file it runs. */
let bundled: Promise<string> | undefined;

/** Bundles the sources into `folder` (another worker may have done it first: then its bundle stays). */
async function bundleSources(folder: string): Promise<string> {
  const entry = join(folder, BUNDLE_ENTRY);
  if (existsSync(entry)) return entry;
  const building = `${folder}.${process.pid}`;
  await buildBundle(building, 'sources');
  try {
    await rename(building, folder);
  } catch (err) {
    if (!existsSync(entry)) throw err;
    await rm(building, { recursive: true, force: true });
  }
  return entry;
}

/**
 * node's arguments up to a `porch` command, for a process running the current sources: this
 * run's bundle of them (test/setup/source-bundle.ts), built on first use (about 3 s). Under tsx,
 * every such process loaded ~700 modules through tsx's loader, 1.6 s before it did anything; the
 * bundle starts in under 0.5 s, and its modules keep their source files' `import.meta.url`
 * (scripts/build-bundle.ts, `locations: 'sources'`), so they find what the sources find.
 */
export async function porchEntryArgs(): Promise<string[]> {
  bundled ??= bundleSources(inject('sourceBundleDir'));
  return [await bundled];
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
    const { stdout, stderr } = await run(process.execPath, [...(await porchEntryArgs()), ...args], { env, cwd: process.cwd() });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failure = err as CliResult;
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}
