#!/usr/bin/env node
/**
 * The `porch` command: the only part of the CLI that touches `process`. Errors end the process
 * with a message on stderr and a non-zero exit code.
 */
import { runCli } from './run-cli.js';

/** Resolves on the first SIGINT or SIGTERM; a second SIGINT then ends the process at once (Node's default). */
function waitForStop(): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

// The exit code, not process.exit(): output still queued on a pipe is written before the process ends.
process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  logDestination: 2,
  waitForStop,
});
