/**
 * What the operator CLI shows: whole credits beside exact tokens, partner keys and organisation policies, a JSON
 * result from every command that changes something, and no key file made by a command that only reads.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { DEFAULT_KEY_SCOPES } from '../../src/core/access/scopes.js';
import { runPorchIn } from '../helpers/cli.js';

let directory: string;
let env: NodeJS.ProcessEnv;

const porch = (...args: string[]) => runPorchIn(directory, env, ...args);

/** `porch ...args --json`, parsed; fails the test with stderr when the command fails. */
async function porchJson<Result>(...args: string[]): Promise<Result> {
  const result = await porch(...args, '--json');
  expect(result.code, `porch ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return JSON.parse(result.stdout) as Result;
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-cli-output-'));
  await writeFile(join(directory, 'porch.config.yaml'), stringify({ webhooks: { allow_hosts: ['127.0.0.1'] } }));
  env = { PATH: process.env.PATH ?? '', DATABASE_URL: `file:${join(directory, 'porch.db')}`, LOG_LEVEL: 'silent' };
  expect((await porch('db', 'init')).code).toBe(0);
});
afterAll(() => rm(directory, { recursive: true, force: true }));

type AccountJson = { id: string; organisation_id: string; credits: number };

describe('credits', () => {
  // Regression: "Granted 5.5 credits; the account now has 15." for a balance of 15,500 tokens, with nothing to say so.
  it('are shown whole, as everywhere, beside the exact available tokens, in text and JSON', async () => {
    const account = await porchJson<AccountJson>('account', 'create', '--email', 'exact@example.com', '--credits', '10');
    const granted = await porch('credits', 'grant', '--account', account.id, '--credits', '5.5');
    expect(granted.stdout).toBe('Granted 5.5 credits; the account now has 15 credits (15,500 tokens).\n');
    expect(await porchJson('credits', 'grant', '--account', account.id, '--credits', '6.001')).toMatchObject({
      granted: 6.001,
      credits: 21,
      available_tokens: 21_501,
    });
    expect(await porchJson('credits', 'show', '--account', account.id)).toMatchObject({ credits: 21, available_tokens: 21_501, balance_tokens: 21_501 });
    expect(await porchJson('account', 'show', account.id)).toMatchObject({ credits: 21, available_tokens: 21_501 });
    const listed = await porchJson<Array<AccountJson & { available_tokens: number }>>('account', 'list');
    expect(listed.find((listedAccount) => listedAccount.id === account.id)).toMatchObject({ credits: 21, available_tokens: 21_501 });
    expect(await porchJson('account', 'create', '--email', 'half@example.com', '--credits', '0.5')).toMatchObject({ credits: 0, available_tokens: 500 });
    expect((await porch('account', 'list')).stdout).toMatch(/exact@example\.com\s+expert\s+21\s+21501/);
    const whole = await porch('credits', 'grant', '--account', account.id, '--credits', '0.499');
    expect(whole.stdout).toBe('Granted 0.499 credits; the account now has 22 credits.\n');
  });
});

describe('partner keys and organisation policies', () => {
  // Regression: partner keys, which act for any account of the organisation, could be found only with SQL.
  it('are listed by porch partner-key list, revoked ones included, never with their plaintext', async () => {
    const account = await porchJson<AccountJson>('account', 'create', '--email', 'partner@example.com');
    const created = await porchJson<{ id: string; key: string }>(
      'partner-key',
      'create',
      '--org',
      account.organisation_id,
      '--name',
      'Acme',
      '--scopes',
      'api:judge',
    );
    const other = await porchJson<{ id: string }>('partner-key', 'create', '--org', account.organisation_id);
    await porch('partner-key', 'revoke', other.id);
    const listed = await porchJson<Array<{ id: string; name: string; status: string; scopes: string[] }>>(
      'partner-key',
      'list',
      '--org',
      account.organisation_id,
    );
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: created.id, name: 'Acme', status: 'active', scopes: ['api:judge'] }),
        // Issued without --scopes: what it holds is an API key's default (regression: shown as
        // null, "(all)" in the table, though it was refused write:*, read:usage and the rest).
        expect.objectContaining({ id: other.id, status: 'revoked', scopes: [...DEFAULT_KEY_SCOPES] }),
      ]),
    );
    expect(listed).toHaveLength(2);
    const text = await porch('partner-key', 'list', '--org', account.organisation_id);
    expect(text.stdout).toMatch(new RegExp(`${created.id}\\s+Acme\\s+mpk_\\S+\\s+active`));
    expect(text.stdout).not.toContain(created.key);
    const missing = await porch('partner-key', 'list', '--org', '00000000-0000-0000-0000-000000000000');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No organisation with id 00000000-0000-0000-0000-000000000000');
  });

  // Regression: `porch org set` changed policies that no command could show.
  it('are shown by porch org show, as org set answers them', async () => {
    const account = await porchJson<AccountJson>('account', 'create', '--email', 'policy@example.com');
    const set = await porchJson<Record<string, unknown>>('org', 'set', account.organisation_id, '--eu-only-models', 'on', '--guardrail-inputs', 'redact');
    const shown = await porchJson<Record<string, unknown>>('org', 'show', account.organisation_id);
    expect(shown).toEqual(set);
    expect(shown).toMatchObject({ id: account.organisation_id, eu_only_models: true, guardrail_inputs: 'redact' });
    expect((await porch('org', 'show', account.organisation_id)).stdout).toMatch(/eu_only_models\s+true/);
  });
});

describe('--json', () => {
  // Regression: refused as an unknown option by resource delete, webhook remove and sanitiser rule remove.
  it('prints what a delete or remove did', async () => {
    const account = await porchJson<AccountJson>('account', 'create', '--email', 'json@example.com');
    const bundle = join(directory, 'bundle.yaml');
    await writeFile(bundle, stringify(DEMO_BUNDLE));
    expect((await porch('import', bundle, '--account', account.id)).code).toBe(0);
    const [composition] = await porchJson<Array<{ id: string }>>('resource', 'list', 'composition', '--account', account.id);
    const compositionId = composition?.id ?? '';
    expect(await porchJson('resource', 'delete', 'composition', compositionId, '--account', account.id)).toEqual({
      kind: 'composition',
      id: compositionId,
      account_id: account.id,
      deleted: true,
    });
    const endpoint = await porchJson<{ endpoint: { id: string } }>(
      'webhook',
      'add',
      '--account',
      account.id,
      '--url',
      'http://127.0.0.1:9/hook',
      '--events',
      'run.completed',
    );
    expect(await porchJson('webhook', 'remove', endpoint.endpoint.id, '--account', account.id)).toMatchObject({ id: endpoint.endpoint.id, deleted: true });
    expect((await porch('sanitiser', 'rule', 'add', '--org', account.organisation_id, '--id', 'custom.x', '--label', 'X', '--keywords', 'a')).code).toBe(0);
    expect(await porchJson('sanitiser', 'rule', 'remove', 'custom.x', '--org', account.organisation_id)).toEqual({
      id: 'custom.x',
      organisation_id: account.organisation_id,
      removed: true,
    });
  });
});

/** Control characters other than the line breaks between lines, and bidirectional controls (U+202E). */
const UNSHOWN = /[\p{Cc}\p{Bidi_Control}]/gu;
const controlsIn = (text: string) => [...text.replaceAll('\n', '').matchAll(UNSHOWN)].map(([character]) => character);

describe('stored text with control characters', () => {
  // Regression: a key named with a line break and ESC codes (POST /keys accepts them) printed a
  // forged row in `porch key list` and recoloured the operator's terminal; so did a composition's name.
  it('is shown escaped in every table, and exact in --json', async () => {
    const keyName = 'bad\nname\u001b[31m';
    const account = await porchJson<AccountJson>('account', 'create', '--email', 'controls@example.com', '--name', 'Ada\u202etxt.exe\u009b\u007f');
    const key = await porchJson<{ id: string; name: string }>('key', 'create', '--account', account.id, '--name', keyName);
    expect(key.name, 'the JSON holds the name exactly').toBe(keyName);
    const bundle = join(directory, 'controls.yaml');
    const composition = { key: 'controls', name: 'x\n\u001b[2J\u001b]0;owned\u0007', template: 'Hello.' };
    await writeFile(bundle, stringify({ compositions: [composition] }));
    expect((await porch('import', bundle, '--account', account.id)).code).toBe(0);
    await porch('sanitiser', 'rule', 'add', '--org', account.organisation_id, '--id', 'custom.bidi', '--label', 'a\u202eb', '--keywords', 'x');

    const keyList = await porch('key', 'list', '--account', account.id);
    expect(keyList.stdout.trimEnd().split('\n'), 'a header and one row').toHaveLength(2);
    expect(keyList.stdout).toContain('bad\\nname\\u001b[31m');
    const shown = await porch('account', 'show', account.id);
    expect(shown.stdout).toMatch(/^name +Ada\\u202etxt\.exe\\u009b\\u007f$/m);
    const compositions = await porch('resource', 'list', 'composition', '--account', account.id);
    expect(compositions.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(compositions.stdout).toContain('x\\n\\u001b[2J\\u001b]0;owned\\u0007');
    const rules = await porch('sanitiser', 'rule', 'list', '--org', account.organisation_id);
    expect(rules.stdout).toContain('a\\u202eb');
    for (const [command, result] of Object.entries({ keyList, shown, compositions, rules })) {
      expect(result.code, `${command}: ${result.stderr}`).toBe(0);
      expect(controlsIn(result.stdout), command).toEqual([]);
    }
    const json = await porchJson<Array<{ name: string }>>('resource', 'list', 'composition', '--account', account.id);
    expect(json[0]?.name).toBe(composition.name);
  });

  // Regression: `porch skills import` wrote the names of the files it left behind to stderr as they
  // were, so a file in a cloned skill folder named with ESC and BEL codes cleared and retitled the terminal.
  it('is shown escaped when it names the files of a skill folder left behind, and exact in --json', async () => {
    const account = await porchJson<AccountJson>('account', 'create', '--email', 'skill-files@example.com');
    const folder = join(directory, 'evil-skill');
    const fileName = 'evil\u001b[2J\u001b]0;pwned\u0007.txt';
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'SKILL.md'), '---\nname: evil-skill\ndescription: Left its files behind. Use in tests.\n---\n\nDo it.\n');
    await writeFile(join(folder, fileName), 'x');

    const imported = await porch('skills', 'import', folder, '--account', account.id);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain('not imported (a Porch skill holds only the SKILL.md instructions): evil\\u001b[2J\\u001b]0;pwned\\u0007.txt\n');
    expect(controlsIn(imported.stderr)).toEqual([]);
    const json = await porchJson<{ ignored_files: string[] }>('skills', 'import', folder, '--account', account.id);
    expect(json.ignored_files).toEqual([fileName]);
  });

  // Regression: the line naming the database wrote its path as it was, controls and all, where the
  // folder porch runs in (or the percent-decoded DATABASE_URL) held them.
  it('is shown escaped when it is the path of the database a command opens', async () => {
    const here = { ...env, DATABASE_URL: `file:${join(directory, 'clear%1B%5B2J.db')}` };
    expect((await runPorchIn(directory, here, 'db', 'init')).code).toBe(0);
    const listed = await runPorchIn(directory, here, 'account', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toContain(`porch: database ${join(directory, 'clear\\u001b[2J.db')}\n`);
    expect(controlsIn(listed.stderr)).toEqual([]);
  });
});

describe('a key of an account that left Expert', () => {
  // Regression: listed as active while every request with it was refused (401 API_EXPERT_ONLY).
  it('is listed as suspended, with the plan that suspends it', async () => {
    const account = await porchJson<AccountJson>('account', 'create', '--email', 'downgraded@example.com');
    const key = await porchJson<{ id: string }>('key', 'create', '--account', account.id);
    expect((await porch('key', 'list', '--account', account.id)).stdout).toMatch(new RegExp(`${key.id}\\s+API key\\s+mdi_\\S+\\s+active\\s`));
    expect((await porch('account', 'set-plan', account.id, 'builder')).code).toBe(0);
    expect((await porch('key', 'list', '--account', account.id)).stdout).toMatch(
      new RegExp(`${key.id}\\s+API key\\s+mdi_\\S+\\s+suspended \\(plan builder\\)\\s`),
    );
    expect((await porch('account', 'show', account.id)).stdout).toMatch(new RegExp(`${key.id}\\s+mdi_\\S+\\s+suspended \\(plan builder\\)\\s`));
    expect((await porch('account', 'set-plan', account.id, 'expert')).code).toBe(0);
    expect((await porch('key', 'list', '--account', account.id)).stdout).toMatch(/\sactive\s/);
  });
});

describe('the secret key file', () => {
  // Regression: every command, `porch account list` included, generated secret.key.
  it('is created only by a command that may encrypt with it', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'porch-cli-secret-'));
    const keyFile = join(folder, 'secret.key');
    const here = { ...env, DATABASE_URL: `file:${join(folder, 'porch.db')}`, PORCH_DATA_DIR: folder };
    try {
      // db init creates the database; the key file is left to a command that needs it.
      expect((await runPorchIn(folder, here, 'db', 'init')).code).toBe(0);
      const removeKey = async () => rm(keyFile, { force: true });
      await removeKey();
      for (const args of [
        ['account', 'list'],
        ['account', 'list', '--json'],
      ]) {
        const result = await runPorchIn(folder, here, ...args);
        expect(result.code, result.stderr).toBe(0);
        expect(existsSync(keyFile), `porch ${args.join(' ')}`).toBe(false);
      }
      const created = await runPorchIn(folder, here, 'account', 'create', '--email', 'key@example.com', '--json');
      const accountId = (JSON.parse(created.stdout) as { id: string }).id;
      for (const args of [
        ['account', 'show', accountId],
        ['credits', 'show', '--account', accountId],
        ['key', 'list', '--account', accountId],
        ['usage', '--account', accountId],
      ]) {
        await removeKey();
        const result = await runPorchIn(folder, here, ...args);
        expect(result.code, result.stderr).toBe(0);
        expect(existsSync(keyFile), `porch ${args.join(' ')}`).toBe(false);
      }
      await runPorchIn(folder, here, 'webhook', 'add', '--account', accountId, '--url', 'https://hooks.example.com/x', '--events', 'run.completed');
      expect(existsSync(keyFile), 'webhook add encrypts the signing secret').toBe(true);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  // Regression: `porch account list` failed with "cannot use .../secret.key: this user may not use
  // it" where the file could not be read, although it decrypts nothing. A folder in its place is
  // unreadable to every user, root included.
  it('is not read by a command that decrypts nothing', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'porch-cli-secret-'));
    const here = { ...env, DATABASE_URL: `file:${join(folder, 'porch.db')}`, PORCH_DATA_DIR: folder };
    try {
      expect((await runPorchIn(folder, here, 'db', 'init')).code).toBe(0);
      const created = await runPorchIn(folder, here, 'account', 'create', '--email', 'unreadable@example.com', '--json');
      const accountId = (JSON.parse(created.stdout) as { id: string }).id;
      await rm(join(folder, 'secret.key'), { force: true });
      await mkdir(join(folder, 'secret.key'));
      for (const args of [
        ['account', 'list'],
        ['account', 'show', accountId],
        ['key', 'list', '--account', accountId],
        ['credits', 'show', '--account', accountId],
        ['webhook', 'list', '--account', accountId],
        ['resource', 'list', 'workflow', '--account', accountId],
        ['byok', 'list', '--account', accountId],
        ['export', '--account', accountId],
      ]) {
        const result = await runPorchIn(folder, here, ...args);
        expect(result.code, `porch ${args.join(' ')}: ${result.stderr}`).toBe(0);
      }
      const encrypting = await runPorchIn(
        folder,
        here,
        'webhook',
        'add',
        '--account',
        accountId,
        '--url',
        'https://hooks.example.com/x',
        '--events',
        'run.completed',
      );
      expect(encrypting.code, 'a command that encrypts still needs the file').toBe(1);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
