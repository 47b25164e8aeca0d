/**
 * `porch mcp` as MCP clients start it: from a folder of their own, with an absolute DATABASE_URL.
 * It must find the config beside the database, say which config and models it uses, and tell the
 * client why when it cannot start. Runs the CLI in this process with its own stdin and folders.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCli } from '../../src/cli/run-cli.js';
import { loadConfig } from '../../src/config.js';
import { collectingStream, runPorchIn } from '../helpers/cli.js';

let porchFolder: string;
let elsewhere: string;
let databaseUrl: string;

const LOCAL_MODEL_CONFIG = { ai: { providers: [{ id: 'local', base_url: 'http://127.0.0.1:9/v1', models: [{ name: 'llama' }] }] } };
const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`;

beforeAll(async () => {
  porchFolder = await mkdtemp(join(tmpdir(), 'porch-mcp-config-'));
  elsewhere = await mkdtemp(join(tmpdir(), 'porch-mcp-client-cwd-'));
  await mkdir(join(porchFolder, 'data'));
  await writeFile(join(porchFolder, 'porch.config.yaml'), stringify(LOCAL_MODEL_CONFIG));
  databaseUrl = `file:${join(porchFolder, 'data', 'porch.db')}`;
  const created = await runPorchIn(porchFolder, { DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' }, 'db', 'init');
  expect(created.code, created.stderr).toBe(0);
});
afterAll(async () => {
  await rm(porchFolder, { recursive: true, force: true });
  await rm(elsewhere, { recursive: true, force: true });
});

/** `porch mcp` started in `cwd` with `input` on stdin (which then ends); its exit code, stdout and JSON log lines. */
async function runMcp(cwd: string, env: NodeJS.ProcessEnv, input: string) {
  const stdout = collectingStream();
  const stderr = collectingStream();
  const code = await runCli(['mcp'], { env, cwd, stdin: Readable.from([Buffer.from(input)]), stdout: stdout.stream, stderr: stderr.stream });
  const lines = stderr
    .text()
    .split('\n')
    .filter((line) => line.startsWith('{'));
  return { code, stdout: stdout.text(), stderr: stderr.text(), logs: lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('porch mcp started from another folder', () => {
  it('uses the porch.config.yaml beside the database and logs it with its models (regression: silently ran on echo)', async () => {
    const run = await runMcp(elsewhere, { DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' }, INITIALIZE);
    expect(run.code, run.stderr).toBe(0);
    expect(run.logs).toContainEqual(
      expect.objectContaining({ msg: 'using the config and models', config: join(porchFolder, 'porch.config.yaml'), models: ['local/llama', 'echo/echo'] }),
    );
  });

  it('answers the client\'s first request with the reason when the config is broken, then exits 1 (regression: only "Connection closed")', async () => {
    const broken = join(elsewhere, 'broken.yaml');
    await writeFile(broken, 'ai: [unclosed');
    const run = await runMcp(elsewhere, { DATABASE_URL: databaseUrl, PORCH_CONFIG: broken, LOG_LEVEL: 'info' }, INITIALIZE);
    expect(run.code).toBe(1);
    const answer = JSON.parse(run.stdout.split('\n')[0] ?? '') as { id: number; error: { message: string } };
    expect(answer.id).toBe(1);
    expect(answer.error.message).toContain('porch mcp cannot start');
    expect(answer.error.message).toContain(broken);
    expect(run.stderr).toContain(`porch: Config file ${broken} is not valid YAML`);
  });

  it("refuses an empty PORCH_ACCOUNT rather than acting for the organisation's owner (regression: a missing user id spent the owner's credits)", async () => {
    for (const blank of ['', '  ']) {
      const run = await runMcp(elsewhere, { DATABASE_URL: databaseUrl, PORCH_ACCOUNT: blank, LOG_LEVEL: 'info' }, INITIALIZE);
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout.split('\n')[0] ?? '')).toMatchObject({ id: 1, error: { message: expect.stringContaining('PORCH_ACCOUNT is empty') } });
    }
  });

  // Regression: "PORCH_API_KEY was refused: VALIDATION_ERROR: PORCH_ACCOUNT must be an account id", of a key that was fine.
  it('names PORCH_ACCOUNT, not the key, when only the account a partner key would act for is refused', async () => {
    const here = { DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' };
    const owner = await runPorchIn(porchFolder, here, 'account', 'create', '--email', 'mcp-partner@example.com', '--json');
    const organisation = (JSON.parse(owner.stdout) as { organisation_id: string }).organisation_id;
    const issued = await runPorchIn(porchFolder, here, 'partner-key', 'create', '--org', organisation, '--json');
    const partnerKey = (JSON.parse(issued.stdout) as { key: string }).key;
    for (const [actingAccount, reason] of [
      ['nope', 'VALIDATION_ERROR: PORCH_ACCOUNT must be an account id (a uuid).'],
      ['0190a4b0-0000-7000-8000-00000000dead', "ACCESS_DENIED: The account in PORCH_ACCOUNT is not in this partner key's organisation."],
    ]) {
      const run = await runMcp(
        elsewhere,
        { DATABASE_URL: databaseUrl, PORCH_API_KEY: partnerKey, PORCH_ACCOUNT: actingAccount, LOG_LEVEL: 'silent' },
        INITIALIZE,
      );
      expect(run.code, actingAccount).toBe(1);
      const message = `PORCH_ACCOUNT was refused (PORCH_API_KEY is good): ${reason}`;
      expect(run.stderr, actingAccount).toContain(`porch: ${message}\n`);
      expect(JSON.parse(run.stdout.split('\n')[0] ?? '')).toMatchObject({ id: 1, error: { message: `porch mcp cannot start: ${message}` } });
    }
    const badKey = await runMcp(elsewhere, { DATABASE_URL: databaseUrl, PORCH_API_KEY: 'mpk_nope', PORCH_ACCOUNT: 'nope', LOG_LEVEL: 'silent' }, INITIALIZE);
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toMatch(/^porch: PORCH_API_KEY was refused: INVALID_API_KEY: /m);
  });

  it('answers with the reason when there is no database at DATABASE_URL', async () => {
    const run = await runMcp(elsewhere, { DATABASE_URL: `file:${join(elsewhere, 'missing.db')}`, LOG_LEVEL: 'info' }, INITIALIZE);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout.split('\n')[0] ?? '')).toMatchObject({ id: 1, error: { message: expect.stringContaining('No Porch database at') } });
  });

  it('answers with the reason, applying nothing, when the database lacks migrations', async () => {
    const behind = join(elsewhere, 'behind.db');
    await writeFile(behind, '');
    const run = await runMcp(elsewhere, { DATABASE_URL: `file:${behind}`, LOG_LEVEL: 'info' }, INITIALIZE);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout.split('\n')[0] ?? '')).toMatchObject({
      id: 1,
      error: { message: expect.stringMatching(/^porch mcp cannot start: DATABASE_URL: .* lacks \d+ migrations .* porch db migrate/) },
    });
  });
});

describe('where the config is looked for without PORCH_CONFIG', () => {
  it('prefers the current folder, then the database folder, then the folder above it', () => {
    const beside = loadConfig({ DATABASE_URL: databaseUrl }, elsewhere, { requireProviderKeys: false });
    expect(beside.configPath).toBe(join(porchFolder, 'porch.config.yaml'));
    expect(beside.configSearch).toEqual([
      join(elsewhere, 'porch.config.yaml'),
      join(porchFolder, 'data', 'porch.config.yaml'),
      join(porchFolder, 'porch.config.yaml'),
    ]);
    expect(beside.ai.providers.map((provider) => provider.id)).toEqual(['local']);
  });

  it('finds none for an in-memory database started elsewhere, and says where it looked', () => {
    const none = loadConfig({ DATABASE_URL: ':memory:' }, elsewhere, { requireProviderKeys: false });
    expect(none.configPath).toBeNull();
    expect(none.configSearch).toEqual([join(elsewhere, 'porch.config.yaml')]);
  });
});
