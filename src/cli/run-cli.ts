/**
 * The `porch` command as a function: the entry (`index.ts`) calls it with the process's
 * arguments, environment and streams; tests call it in-process with their own.
 */
import { Readable, type Writable } from 'node:stream';
import { CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { PorchError } from '../core/errors.js';
import { describeFileError } from '../db/file-errors.js';
import { DatabaseRefusal, StoreUnavailableError } from '../db/store.js';
import { withoutQueryParameters } from '../logger.js';
import { CliUsageError, type CliContext } from './context.js';
import { describeOutputFailure, outputWritten } from './output.js';
import { createProgram } from './program.js';
import { visibleLines } from './visible-text.js';

export interface RunCliOptions {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  stdout: Writable;
  stderr: Writable;
  /** Only `porch mcp` reads it; without it, input ends at once. */
  stdin?: Readable;
  /** Where logs go; stderr unless told otherwise (the entry passes fd 2). */
  logDestination?: Writable | number;
  /** For `porch serve`: resolves when it should shut down. Without it, it serves until the process ends. */
  waitForStop?: () => Promise<string>;
}

/** A fault's message and its cause's, as the log would have them (a failed query's values left out). */
function describeUnexpected(err: unknown): string {
  const shown = withoutQueryParameters(err);
  if (!(shown instanceof Error)) return String(shown);
  return shown.cause instanceof Error ? `${shown.message}: ${shown.cause.message}` : shown.message;
}

/**
 * Runs `porch ...argv` (the arguments after the command name) and resolves with its exit code:
 * 0 on success, 1 with a message on stderr for a refused or failed command, Commander's code for
 * usage mistakes and help. Never ends the process and never rejects.
 */
export async function runCli(argv: readonly string[], options: RunCliOptions): Promise<number> {
  const context: CliContext = {
    env: options.env,
    cwd: options.cwd,
    stdin: options.stdin ?? Readable.from([]),
    stdout: options.stdout,
    stderr: options.stderr,
    logDestination: options.logDestination ?? options.stderr,
    waitForStop: options.waitForStop ?? (() => new Promise<string>(() => undefined)),
  };
  // A message may quote stored text (a name, a rule id): its control characters are escaped, as in any output.
  const fail = (message: string): number => {
    context.stderr.write(`porch: ${visibleLines(message)}\n`);
    return 1;
  };
  // A write to stdout that fails (a full disk, a closed pipe) is reported as an 'error' event, which
  // with no listener ended the process with a stack trace (regression: `porch account list > /dev/full`).
  // It is heard here, and the command then fails with a message once it is done.
  const ignoreUntilDone = (): void => undefined;
  options.stdout.on('error', ignoreUntilDone);
  try {
    await createProgram(context).parseAsync([...argv], { from: 'user' });
    const failure = await outputWritten(options.stdout);
    return failure === undefined ? 0 : fail(`${describeOutputFailure(failure)}.`);
  } catch (err) {
    // The database is busy (another process holds SQLite's lock) or unreachable: its message says so and what to do.
    if (err instanceof StoreUnavailableError) return fail(err.message);
    if (err instanceof PorchError || err instanceof CliUsageError || err instanceof ConfigError || err instanceof DatabaseRefusal) return fail(err.message);
    // Commander has already written its message (or the help) through the context.
    if (err instanceof CommanderError) return err.exitCode;
    // A path the operator gave that the file system refused (--output to a folder, a missing folder).
    const fileError = describeFileError(err);
    if (fileError !== undefined) return fail(`${fileError}.`);
    const hostError = describeHostError(err);
    if (hostError !== undefined) return fail(hostError);
    const listenError = describeListenError(err);
    if (listenError !== undefined) return fail(listenError);
    return fail(`unexpected error: ${describeUnexpected(err)}`);
  }
}

/** A port `porch serve` could not listen on, said as the operator's to fix; undefined for any other error. */
function describeListenError(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { syscall, code, address, port } = err as { syscall?: unknown; code?: unknown; address?: unknown; port?: unknown };
  // A worker of `serve --workers` has the primary bind for it, and hears of a taken port as `bind`.
  if ((syscall !== 'listen' && syscall !== 'bind') || typeof code !== 'string') return undefined;
  const where = `${typeof address === 'string' ? address : 'the host'}:${typeof port === 'number' ? port : '?'}`;
  if (code === 'EADDRINUSE') return `cannot listen on ${where}: another process uses that port. Stop it, or set PORT (or HOST) to another.`;
  if (code === 'EACCES') return `cannot listen on ${where}: this user may not use that port. Choose a port above 1023 with PORT.`;
  if (code === 'EADDRNOTAVAIL') return `cannot listen on ${where}: this host has no such address. Set HOST to one of its addresses, or 0.0.0.0.`;
  return `cannot listen on ${where} (${code}).`;
}

/**
 * A HOST that names no address of this machine's resolver: said as HOST's to fix (regression:
 * "unexpected error: getaddrinfo ENOTFOUND porch.example.com"); undefined for any other error.
 */
function describeHostError(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { syscall, code, hostname } = err as { syscall?: unknown; code?: unknown; hostname?: unknown };
  if (syscall !== 'getaddrinfo' || typeof code !== 'string') return undefined;
  return `cannot listen on HOST ${typeof hostname === 'string' ? hostname : '?'}: the name does not resolve to an address of this host (${code}). Set HOST to one of its addresses (127.0.0.1, or 0.0.0.0 for every interface); the public name belongs in PORCH_PUBLIC_URL.`;
}
