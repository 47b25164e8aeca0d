/**
 * Settings a command does not use must not stop it (ARCHITECTURE: "A setting is required only by
 * the commands that use it"), and the database a command uses is the one the operator meant.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runPorchIn } from '../helpers/cli.js';

let directory: string;
let env: NodeJS.ProcessEnv;

/** A config naming a provider key variable that the operator's shell does not hold. */
const CONFIG_WITH_UNSET_KEY = {
  ai: { providers: [{ id: 'vendor', base_url: 'https://vendor.test/v1', api_key_env: 'PORCH_TEST_UNSET_VENDOR_KEY', models: [{ name: 'large' }] }] },
};

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-cli-settings-'));
  await writeFile(join(directory, 'porch.config.yaml'), stringify(CONFIG_WITH_UNSET_KEY));
  env = { PATH: process.env.PATH ?? '', DATABASE_URL: `file:${join(directory, 'porch.db')}`, LOG_LEVEL: 'silent' };
});
afterAll(() => rm(directory, { recursive: true, force: true }));

const porch = (...args: string[]) => runPorchIn(directory, env, ...args);

describe('provider key variables', () => {
  // Regression: once porch.config.yaml named api_key_env, `porch account list` failed without the secret.
  it('are not required by commands that do not call models', async () => {
    const created = await porch('account', 'create', '--email', 'no-secret@example.com', '--json');
    expect(created.code, created.stderr).toBe(0);
    const account = JSON.parse(created.stdout) as { id: string };
    for (const args of [
      ['account', 'list'],
      ['key', 'create', '--account', account.id],
      ['credits', 'grant', '--account', account.id, '--credits', '5'],
      ['export', '--account', account.id],
    ]) {
      const result = await porch(...args);
      expect(result.code, `porch ${args.join(' ')}: ${result.stderr}`).toBe(0);
    }
  });

  it('are still required by the MCP server, which calls models', async () => {
    const result = await porch('mcp');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ai\.providers\[0\]\.api_key_env: environment variable PORCH_TEST_UNSET_VENDOR_KEY is not set/);
  });
});
