/** Runs the operator CLI as a real process, the way an operator does. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CLI = ['--import', 'tsx', 'src/cli/index.ts'];

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `porch ...args` with `env` (a database file, a log level); resolves with the exit code instead of throwing. */
export async function runPorch(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...CLI, ...args], { env, cwd: process.cwd() });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failure = err as CliResult;
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}
