#!/usr/bin/env node
/** The `porch` command. Errors end the process with a message on stderr and a non-zero exit. */
import { CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { PorchError } from '../core/errors.js';
import { CliUsageError } from './context.js';
import { createProgram } from './program.js';

function fail(message: string): never {
  process.stderr.write(`porch: ${message}\n`);
  process.exit(1);
}

try {
  await createProgram().parseAsync(process.argv);
} catch (err) {
  if (err instanceof PorchError || err instanceof CliUsageError || err instanceof ConfigError) fail(err.message);
  if (err instanceof CommanderError) process.exit(err.exitCode);
  fail(`unexpected error: ${err instanceof Error ? err.message : String(err)}`);
}
