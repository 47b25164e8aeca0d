/** The operator CLI, run in-process (as the `porch` entry runs it) against a real database file. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { createStore } from '../../src/db/create-store.js';
import { runPorch, runPorchIn } from '../helpers/cli.js';
import { usageRecord } from '../db/fixtures.js';

let directory: string;
let env: NodeJS.ProcessEnv;

const porch = (...args: string[]) => runPorch(env, ...args);

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-cli-'));
  env = { ...process.env, DATABASE_URL: `file:${join(directory, 'porch.db')}`, LOG_LEVEL: 'silent', PORCH_CONFIG: '' };
  delete env.PORCH_CONFIG;
  expect((await porch('db', 'init')).code).toBe(0);
});
afterAll(() => rm(directory, { recursive: true, force: true }));

describe('porch CLI', () => {
  it('runs the documented account, key, plan and credit commands', async () => {
    const created = await porch('account', 'create', '--email', 'ada@example.com', '--plan', 'expert', '--credits', '1000', '--json');
    expect(created.code, created.stderr).toBe(0);
    const account = JSON.parse(created.stdout) as { id: string; credits: number; plan: string };
    expect(account).toMatchObject({ plan: 'expert', credits: 1000 });

    const key = await porch('key', 'create', '--account', account.id, '--scopes', 'read:workflow,api:context-cards', '--rpm', '5', '--rpd', '20000', '--json');
    expect(key.code, key.stderr).toBe(0);
    const keyJson = JSON.parse(key.stdout) as { id: string; key: string; scopes: string[]; requests_per_minute: number };
    expect(keyJson.key).toMatch(/^mdi_[A-Za-z0-9_-]{43}$/);
    expect(keyJson).toMatchObject({ scopes: ['read:workflow', 'api:context-cards'], requests_per_minute: 5 });

    const listed = await porch('key', 'list', '--account', account.id, '--json');
    expect(listed.stdout).not.toContain(keyJson.key);

    expect((await porch('credits', 'grant', '--account', account.id, '--credits', '500')).code).toBe(0);
    const shown = JSON.parse((await porch('credits', 'show', '--account', account.id, '--json')).stdout) as { credits: number };
    expect(shown.credits).toBe(1500);

    expect((await porch('account', 'set-plan', account.id, 'builder')).code).toBe(0);
    // A bad plan names where it was given (regression: "Plan must be one of ..." alone).
    expect((await porch('account', 'create', '--email', 'gold@example.com', '--plan', 'gold')).stderr).toContain(
      '--plan must be one of free, builder, expert, got "gold"',
    );
    expect((await porch('account', 'set-plan', account.id, 'gold')).stderr).toContain('<plan> must be one of');
    const refused = await porch('key', 'create', '--account', account.id);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/Only Expert accounts may create API keys/);

    expect((await porch('key', 'revoke', keyJson.id)).code).toBe(0);
    const afterRevoke = JSON.parse((await porch('key', 'list', '--account', account.id, '--json')).stdout) as Array<{ status: string }>;
    expect(afterRevoke[0]?.status).toBe('revoked');
  });

  it('rotates a key with a grace period, keeping the old key working until then', async () => {
    const account = JSON.parse((await porch('account', 'create', '--email', 'rotate@example.com', '--plan', 'expert', '--json')).stdout) as { id: string };
    const key = JSON.parse((await porch('key', 'create', '--account', account.id, '--json')).stdout) as { id: string };
    const tooLong = await porch('key', 'rotate', key.id, '--grace', '86401');
    expect(tooLong.code).toBe(1);
    expect(tooLong.stderr).toMatch(/--grace must be a whole number from 0 to 86,400, got "86401"/);
    const rotated = await porch('key', 'rotate', key.id, '--grace', '3600', '--json');
    expect(rotated.code, rotated.stderr).toBe(0);
    const result = JSON.parse(rotated.stdout) as { id: string; key: string; previous: { id: string; status: string; expires_at: string } };
    expect(result.key).toMatch(/^mdi_/);
    expect(result.previous).toMatchObject({ id: key.id, status: 'active' });
    expect(Date.parse(result.previous.expires_at) - Date.now()).toBeGreaterThan(3_500_000);
    const text = await porch('key', 'rotate', result.id);
    expect(text.stdout).toContain('the old key is revoked.');
  });

  it('grants only what the ledger keeps exactly: whole tokens, up to a billion credits an account (regression: 0.0001 wrote a zero entry, 10^13 lost precision)', async () => {
    const tooMany = await porch('account', 'create', '--email', 'rich@example.com', '--plan', 'expert', '--credits', '1000000001');
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toMatch(
      /^porch: --credits must be a decimal number from 0 to 1,000,000,000, with at most 3 decimals \(such as 500 or 2\.5\), got "1000000001"\.$/m,
    );
    const account = JSON.parse(
      (await porch('account', 'create', '--email', 'grants@example.com', '--plan', 'expert', '--credits', '999999000', '--json')).stdout,
    ) as {
      id: string;
    };
    const grant = (credits: string) => porch('credits', 'grant', '--account', account.id, '--credits', credits);
    // Decimal digits only (regression: 0x10 granted 16 credits), and one message, naming --credits and
    // all it takes, whatever is wrong (regression: -10 and 0 were refused in different words).
    for (const odd of ['0.0001', '0', '-10', '0x10', '1e3', ' 7', '10000000000000']) {
      expect((await grant(odd)).stderr, odd).toContain(
        `porch: --credits must be a decimal number more than 0 and at most 1,000,000,000, with at most 3 decimals (such as 500 or 2.5), got "${odd}".\n`,
      );
    }
    expect((await grant('1000.001')).stderr).toMatch(
      /This grant would take the balance to 1000000000\.001 credits; an account may hold at most 1,000,000,000\./,
    );
    const granted = await grant('999.999');
    expect(granted.code, granted.stderr).toBe(0);
    const store = await createStore(env.DATABASE_URL ?? '');
    try {
      const ledger = await store.credits.ledger(account.id);
      expect(ledger.map((entry) => entry.deltaTokens)).toEqual([999_999_000_000, 999_999]);
      expect((await store.credits.balance(account.id)).balanceTokens).toBe(999_999_999_999);
    } finally {
      await store.close();
    }
  });

  it("sums an account's usage by the grouping asked, and refuses a bad grouping or timestamp", async () => {
    const account = JSON.parse((await porch('account', 'create', '--email', 'usage@example.com', '--plan', 'expert', '--json')).stdout) as { id: string };
    const store = await createStore(env.DATABASE_URL ?? '');
    try {
      for (const model of ['echo/echo', 'echo/echo', 'fake/other'])
        await store.usage.insert(usageRecord(account.id, { model, createdAt: Date.now() - 60_000 }));
    } finally {
      await store.close();
    }
    const byModel = await porch('usage', '--account', account.id, '--group-by', 'model', '--json');
    expect(byModel.code, byModel.stderr).toBe(0);
    const usage = JSON.parse(byModel.stdout) as { rows: Array<{ group: string; requests: number; total_tokens: number }>; totals: { requests: number } };
    expect(usage.rows.map((row) => [row.group, row.requests, row.total_tokens])).toEqual([
      ['echo/echo', 2, 60],
      ['fake/other', 1, 30],
    ]);
    expect(usage.totals.requests).toBe(3);
    expect((await porch('usage', '--account', account.id)).stdout).toMatch(/total\s+3\s+0\s+3\s+30\s+60\s+90\s+0\.09/);
    expect((await porch('usage', '--account', account.id, '--group-by', 'week')).code).toBe(1);
    // Times as the API reads them, never in the host's time zone (regression: no offset meant local time, "1" the year 2001).
    for (const time of ['yesterday', '2026-11-28T05:00:00', '1', '2026-11-28 05:00']) {
      const badTime = await porch('usage', '--account', account.id, '--from', time);
      expect(badTime.code, time).toBe(1);
      expect(badTime.stderr, time).toMatch(/--from must be a day \(2026-05-01, from 00:00 UTC\) or a date and time with Z or an offset/);
    }
    const days = await porch('usage', '--account', account.id, '--from', '2026-11-28', '--to', '2026-11-29T01:00:00+01:00', '--json');
    expect(days.code, days.stderr).toBe(0);
    expect(JSON.parse(days.stdout)).toMatchObject({ from: '2026-11-28T00:00:00.000Z', to: '2026-11-29T00:00:00.000Z' });
    const backwards = await porch('usage', '--account', account.id, '--from', '2026-11-29', '--to', '2026-11-28');
    expect(backwards.stderr).toContain('--from: must be before --to.');
  });

  it('imports and exports bundles, and refuses an invalid one writing nothing', async () => {
    const account = JSON.parse((await porch('account', 'create', '--email', 'grace@example.com', '--json')).stdout) as { id: string };
    const file = join(directory, 'bundle.yaml');
    await writeFile(file, stringify(DEMO_BUNDLE));
    const imported = await porch('import', file, '--account', account.id, '--json');
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ workflows: 1, compositions: 1, skills: 1, personas: 1, context_cards: 2 });

    const exported = await porch('export', '--account', account.id, '--format', 'json');
    expect(JSON.parse(exported.stdout)).toMatchObject({ version: 1, workflows: [{ name: 'Release announcement' }] });

    const bad = join(directory, 'bad.json');
    await writeFile(bad, JSON.stringify({ skills: [{ name: 'x' }] }));
    const refused = await porch('import', bad, '--account', account.id);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/skills\[0\]\.instructions/);
  });

  it('re-imports idempotently, prunes, and lists, shows, labels and deletes resources', async () => {
    const account = JSON.parse((await porch('account', 'create', '--email', 'lifecycle@example.com', '--json')).stdout) as { id: string };
    const file = join(directory, 'lifecycle.yaml');
    await writeFile(file, stringify(DEMO_BUNDLE));
    await porch('import', file, '--account', account.id);
    const again = await porch('import', file, '--account', account.id);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/compositions\s+1\s+0\s+0\s+1\s+0/);

    const listed = JSON.parse((await porch('resource', 'list', 'composition', '--account', account.id, '--json')).stdout) as Array<{
      id: string;
      version: number;
    }>;
    expect(listed).toHaveLength(1);
    const id = listed[0]?.id ?? '';
    const changed = { ...DEMO_BUNDLE, compositions: (DEMO_BUNDLE.compositions ?? []).map((composition) => ({ ...composition, description: 'Changed.' })) };
    await writeFile(file, stringify(changed));
    expect((await porch('import', file, '--account', account.id)).code).toBe(0);
    const labelled = await porch('label', 'set', 'composition', id, 'production', '1', '--account', account.id);
    expect(labelled.stdout).toContain('latest=2, production=1');
    const shown = await porch('resource', 'show', 'composition', id, '--account', account.id);
    expect(shown.stdout).toMatch(/versions\s+2 \(.*\), 1 \(/);
    const noVersion = await porch('label', 'set', 'composition', id, 'production', '7', '--account', account.id);
    expect(noVersion.code).toBe(1);
    expect(noVersion.stderr).toMatch(/no version 7; its versions are 1 to 2/);

    await writeFile(file, stringify({ skills: DEMO_BUNDLE.skills }));
    const pruned = JSON.parse((await porch('import', file, '--account', account.id, '--prune', '--json')).stdout) as { deleted: Record<string, number> };
    expect(pruned.deleted).toMatchObject({ compositions: 1, workflows: 1, personas: 1 });
    const skills = JSON.parse((await porch('resource', 'list', 'skill', '--account', account.id, '--json')).stdout) as Array<{ id: string }>;
    expect((await porch('resource', 'delete', 'skill', skills[0]?.id ?? '', '--account', account.id)).code).toBe(0);
    expect(JSON.parse((await porch('resource', 'list', 'skill', '--account', account.id, '--json')).stdout)).toEqual([]);
  });

  it('refuses an export cut short with --prune, saying so and deleting nothing (regression: it deleted everything after the cut)', async () => {
    const account = JSON.parse((await porch('account', 'create', '--email', 'cut@example.com', '--json')).stdout) as { id: string };
    await writeFile(join(directory, 'whole.yaml'), stringify(DEMO_BUNDLE));
    expect((await porch('import', join(directory, 'whole.yaml'), '--account', account.id)).code).toBe(0);
    const exported = await porch('export', '--account', account.id, '--output', join(directory, 'export.yaml'));
    expect(exported.code, exported.stderr).toBe(0);
    const text = await readFile(join(directory, 'export.yaml'), 'utf8');
    const cut = join(directory, 'cut.yaml');
    // Cut inside the first workflow: what comes before is valid YAML.
    await writeFile(cut, text.slice(0, text.indexOf('\nworkflows:') + 40));
    const refused = await porch('import', cut, '--account', account.id, '--prune');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('The bundle looks cut short');
    const again = await porch('export', '--account', account.id);
    expect(again.stdout).toBe(text);
  });

  it('reads and writes relative paths in its working folder, not the test runner’s', async () => {
    const account = JSON.parse((await porch('account', 'create', '--email', 'relative@example.com', '--json')).stdout) as { id: string };
    await writeFile(join(directory, 'relative.yaml'), stringify(DEMO_BUNDLE));
    const imported = await runPorchIn(directory, env, 'import', 'relative.yaml', '--account', account.id);
    expect(imported.code, imported.stderr).toBe(0);
    const exported = await runPorchIn(directory, env, 'export', '--account', account.id, '--output', 'exported.yaml');
    expect(exported.code, exported.stderr).toBe(0);
    expect(await readFile(join(directory, 'exported.yaml'), 'utf8')).toContain('Release announcement');
    // A path the file system refuses is named with the reason (regression: "unexpected error: EISDIR").
    const toFolder = await runPorchIn(directory, env, 'export', '--account', account.id, '--output', '.');
    expect(toFolder.code).toBe(1);
    expect(toFolder.stderr).toContain(`porch: cannot write the bundle to ${directory}: it is a folder.\n`);
  });

  it('stores a BYOK key from an environment variable and never prints it', async () => {
    const account = JSON.parse((await porch('account', 'create', '--email', 'byok@example.com', '--json')).stdout) as { id: string; organisation_id: string };
    const secret = 'sk-cli-byok-secret-9876';
    const saved = await runPorch(
      { ...env, CUSTOMER_KEY: secret, OPENAI_API_KEY: 'sk-gateway' },
      'byok',
      'set',
      '--org',
      account.organisation_id,
      '--provider',
      'openai',
      '--key-env',
      'CUSTOMER_KEY',
      '--json',
    );
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).not.toContain(secret);
    expect(JSON.parse(saved.stdout)).toMatchObject({ provider: 'openai', key_hint: '...9876', status: 'active' });
    const missing = await porch('byok', 'set', '--account', account.id, '--provider', 'openai', '--key-env', 'UNSET_VARIABLE');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/UNSET_VARIABLE is not set/);
  });

  it('manages sanitiser rules, refusing a regex RE2 cannot run', async () => {
    const account = JSON.parse((await porch('account', 'create', '--email', 'rules@example.com', '--json')).stdout) as { organisation_id: string };
    const org = account.organisation_id;
    const added = await porch(
      'sanitiser',
      'rule',
      'add',
      '--org',
      org,
      '--id',
      'custom.codename',
      '--label',
      'Project codename',
      '--keywords',
      'bluebird,redwing',
      '--severity',
      'block',
    );
    expect(added.code, added.stderr).toBe(0);
    const lookbehind = await porch('sanitiser', 'rule', 'add', '--org', org, '--id', 'custom.bad', '--label', 'Bad', '--regex', '(?<=x)y');
    expect(lookbehind.code).toBe(1);
    expect(lookbehind.stderr).toMatch(/pattern/);
    expect((await porch('sanitiser', 'rule', 'set', 'pii.email', '--org', org, '--enabled', 'off')).code).toBe(0);
    const listed = JSON.parse((await porch('sanitiser', 'rule', 'list', '--org', org, '--json')).stdout) as Array<{ rule_id: string; kind: string }>;
    expect(listed.map((rule) => [rule.rule_id, rule.kind])).toEqual([
      ['custom.codename', 'custom'],
      ['pii.email', 'override'],
    ]);
    expect((await porch('sanitiser', 'rule', 'remove', 'custom.codename', '--org', org)).code).toBe(0);
  });

  it('exits non-zero with a clear message on bad input', async () => {
    const badNumber = await porch('key', 'create', '--account', 'x', '--rpm', 'many');
    expect(badNumber.code).toBe(1);
    expect(badNumber.stderr).toMatch(/--rpm must be a whole number/);
    // Regression: said "at least 1" of a number above the billion the limit allows.
    const { stdout } = await porch('account', 'create', '--email', `limits-${Date.now()}@example.com`, '--plan', 'expert', '--json');
    const tooMany = await porch('key', 'create', '--account', (JSON.parse(stdout) as { id: string }).id, '--rpm', '2147483648');
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toContain('must be a whole number from 1 to 1,000,000,000');
    const missing = await porch('account', 'show', '0190a4b0-0000-7000-8000-000000000000');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No account with id/);
    const unknown = await porch('account', 'fly');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/unknown command 'fly'/);
    const help = await porch('key', 'create', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--scopes <list>/);
    // In-process runs report their code; none may leave one behind for the test runner's process.
    expect(process.exitCode ?? 0).toBe(0);
  });
});
