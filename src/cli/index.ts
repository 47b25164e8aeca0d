#!/usr/bin/env node
/**
 * The `porch` command: the only part of the CLI that touches `process`. Errors end the process
 * with a message on stderr and a non-zero exit code.
 */
import { runCli } from './run-cli.js';
import { releaseWorker, STOP_MESSAGE_TYPE } from './workers.js';

/**
 * Resolves on the first SIGINT, SIGTERM or SIGHUP (the terminal running the command was closed:
 * Node's default would end the server at once, cutting requests and leaving its leases to lapse);
 * a second one then ends the process at once (Node's default). A worker of `porch serve --workers` is also asked to stop by its supervisor over IPC,
 * not by a signal, so that a terminal's Ctrl-C (which reaches every process of the group) and the
 * supervisor's request do not add up to a second signal that would cut its shutdown short.
 */
function waitForStop(): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGHUP', () => resolve('SIGHUP'));
    process.on('message', (message: unknown) => {
      if (typeof message === 'object' && message !== null && 'type' in message && message.type === STOP_MESSAGE_TYPE) resolve('supervisor');
    });
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
// A worker of `porch serve --workers` ends here however its command ended (a shutdown, or a port it
// could not listen on): its IPC channel to the supervisor would otherwise keep it alive.
releaseWorker();
