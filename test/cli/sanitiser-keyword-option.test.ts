/**
 * `porch sanitiser rule add --keyword`: one keyword as written, repeatable, so a keyword holding
 * a comma can be written from the CLI (regression: --keywords, comma-separated, split "Smith,
 * John" in two and had no other way to write it).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPorch } from '../helpers/cli.js';

let directory: string;
let env: NodeJS.ProcessEnv;
let org: string;

const porch = (...args: string[]) => runPorch(env, ...args);

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-cli-keyword-'));
  env = { ...process.env, DATABASE_URL: `file:${join(directory, 'porch.db')}`, LOG_LEVEL: 'silent' };
  delete env.PORCH_CONFIG;
  expect((await porch('db', 'init')).code).toBe(0);
  const created = await porch('account', 'create', '--email', 'keyword-cli@example.com', '--json');
  org = (JSON.parse(created.stdout) as { organisation_id: string }).organisation_id;
});
afterAll(() => rm(directory, { recursive: true, force: true }));

async function storedKeywords(ruleId: string): Promise<unknown> {
  const listed = JSON.parse((await porch('sanitiser', 'rule', 'list', '--org', org, '--json')).stdout) as Array<{
    rule_id: string;
    definition: { keywords?: unknown };
  }>;
  return listed.find((rule) => rule.rule_id === ruleId)?.definition.keywords;
}

describe('porch sanitiser rule add --keyword', () => {
  it('stores each --keyword as written, commas kept, after those of --keywords', async () => {
    const added = await porch(
      'sanitiser',
      'rule',
      'add',
      '--org',
      org,
      '--id',
      'custom.people',
      '--label',
      'People',
      '--keywords',
      'Acme Corp,Globex',
      '--keyword',
      'Smith, John',
      '--keyword',
      'Doe, Jane',
    );
    expect(added.code, added.stderr).toBe(0);
    expect(await storedKeywords('custom.people')).toEqual(['Acme Corp', 'Globex', 'Smith, John', 'Doe, Jane']);
  });

  it('takes --keyword alone, and refuses it with --regex', async () => {
    const alone = await porch('sanitiser', 'rule', 'add', '--org', org, '--id', 'custom.one', '--label', 'One', '--keyword', 'Smith, John');
    expect(alone.code, alone.stderr).toBe(0);
    expect(await storedKeywords('custom.one')).toEqual(['Smith, John']);
    const both = await porch('sanitiser', 'rule', 'add', '--org', org, '--id', 'custom.two', '--label', 'Two', '--keyword', 'x', '--regex', 'x+');
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain('Give exactly one of --regex or --keywords (or --keyword).');
  });
});
