/** `porch sanitiser rule ...`, run in-process (as the `porch` entry runs it) against a real database file. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPorch } from '../helpers/cli.js';

const MISSING_ORGANISATION = '0190a4b0-0000-7000-8000-000000000000';

let directory: string;
let env: NodeJS.ProcessEnv;
let org: string;

const porch = (...args: string[]) => runPorch(env, ...args);

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-cli-sanitiser-'));
  env = { ...process.env, DATABASE_URL: `file:${join(directory, 'porch.db')}`, LOG_LEVEL: 'silent' };
  delete env.PORCH_CONFIG;
  expect((await porch('db', 'init')).code).toBe(0);
  const created = await porch('account', 'create', '--email', 'sanitiser-cli@example.com', '--json');
  org = (JSON.parse(created.stdout) as { organisation_id: string }).organisation_id;
});
afterAll(() => rm(directory, { recursive: true, force: true }));

describe('porch sanitiser rule', () => {
  it('set switches a custom rule off and changes its severity, keeping its definition', async () => {
    const added = await porch(
      'sanitiser',
      'rule',
      'add',
      '--org',
      org,
      '--id',
      'custom.x',
      '--label',
      'Codename',
      '--keywords',
      'bluebird',
      '--case-sensitive',
    );
    expect(added.code, added.stderr).toBe(0);
    const off = await porch('sanitiser', 'rule', 'set', 'custom.x', '--org', org, '--enabled', 'off', '--severity', 'block');
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toMatch(/Saved custom rule custom\.x\./);
    const listed = JSON.parse((await porch('sanitiser', 'rule', 'list', '--org', org, '--json')).stdout) as Array<{
      rule_id: string;
      kind: string;
      definition: unknown;
    }>;
    expect(listed).toEqual([
      expect.objectContaining({
        rule_id: 'custom.x',
        kind: 'custom',
        definition: expect.objectContaining({ enabled: false, severity: 'block', keywords: ['bluebird'], case_sensitive: true }),
      }),
    ]);
  });

  it('set names the command listing the built-in rules for an unknown id, and says how to add a missing custom rule', async () => {
    const unknown = await porch('sanitiser', 'rule', 'set', 'pii.shoe_size', '--org', org, '--enabled', 'off');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/"pii\.shoe_size" is not a built-in rule: .*"porch sanitiser builtins"/);
    expect(unknown.stderr).not.toMatch(/BUILT_IN_RULES/);
    const missing = await porch('sanitiser', 'rule', 'set', 'custom.none', '--org', org, '--enabled', 'off');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no custom rule "custom\.none"; "porch sanitiser rule add" adds one/);
    const nothing = await porch('sanitiser', 'rule', 'set', 'pii.email', '--org', org);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toMatch(/Give --enabled and\/or --severity\./);
  });

  it('add refuses case flags that do not apply to the kind of rule instead of ignoring them', async () => {
    const regex = await porch('sanitiser', 'rule', 'add', '--org', org, '--id', 'custom.r', '--label', 'R', '--regex', 'PRJ-\\d+', '--case-sensitive');
    expect(regex.code).toBe(1);
    expect(regex.stderr).toMatch(/--case-sensitive applies to --keywords/);
    const keywords = await porch('sanitiser', 'rule', 'add', '--org', org, '--id', 'custom.k', '--label', 'K', '--keywords', 'a,b', '--ignore-case');
    expect(keywords.code).toBe(1);
    expect(keywords.stderr).toMatch(/--ignore-case applies to --regex/);
    const listed = JSON.parse((await porch('sanitiser', 'rule', 'list', '--org', org, '--json')).stdout) as Array<{ rule_id: string }>;
    expect(listed.map((rule) => rule.rule_id)).not.toContain('custom.r');
  });

  it('remove says that an organisation does not exist', async () => {
    const removed = await porch('sanitiser', 'rule', 'remove', 'custom.x', '--org', MISSING_ORGANISATION);
    expect(removed.code).toBe(1);
    expect(removed.stderr).toMatch(new RegExp(`No organisation with id ${MISSING_ORGANISATION}\\.`));
  });
});

describe('porch org set --guardrail-*', () => {
  it('stores the guardrail policy on the organisation and prints it', async () => {
    const set = await porch('org', 'set', org, '--guardrail-inputs', 'redact', '--guardrail-outputs', 'block', '--guardrail-min-severity', 'warn', '--json');
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ id: org, guardrail_inputs: 'redact', guardrail_outputs: 'block', guardrail_min_severity: 'warn' });
    const again = await porch('org', 'set', org, '--guardrail-inputs', 'off', '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({ guardrail_inputs: 'off', guardrail_outputs: 'block' });
  });

  it('refuses a mode it does not know, naming the allowed ones', async () => {
    const refused = await porch('org', 'set', org, '--guardrail-outputs', 'shout');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/--guardrail-outputs takes off, report, redact, block; got "shout"/);
  });
});
