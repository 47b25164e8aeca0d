/**
 * What the operator CLI accepts in its options: what the API accepts for the same field, refused
 * before anything is stored, with a message that names the option as typed and what it takes.
 * Run in-process (as the `porch` entry runs it) against a real database file.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runPorchIn } from '../helpers/cli.js';

let directory: string;
let env: NodeJS.ProcessEnv;
let account: { id: string; organisation_id: string };

const porch = (...args: string[]) => runPorchIn(directory, env, ...args);

/** `porch ...args`, which must fail with `message` on stderr and print nothing. */
async function refused(message: string, ...args: string[]): Promise<void> {
  const result = await porch(...args);
  expect(result.code, `porch ${args.join(' ')}: ${result.stderr}`).toBe(1);
  expect(result.stdout, args.join(' ')).toBe('');
  expect(result.stderr, args.join(' ')).toContain(`porch: ${message}\n`);
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-cli-options-'));
  await writeFile(join(directory, 'porch.config.yaml'), stringify({ webhooks: { allow_hosts: ['127.0.0.1'] } }));
  env = { PATH: process.env.PATH ?? '', DATABASE_URL: `file:${join(directory, 'porch.db')}`, LOG_LEVEL: 'silent' };
  expect((await porch('db', 'init')).code).toBe(0);
  account = JSON.parse((await porch('account', 'create', '--email', 'options@example.com', '--json')).stdout) as typeof account;
});
afterAll(() => rm(directory, { recursive: true, force: true }));

describe('webhook deliveries --limit', () => {
  // Regression: 99999999999999999999 said "unexpected error: datatype mismatch", 0 listed "No
  // deliveries." with exit 0, and 100000 was taken, where GET /webhooks/{id}/deliveries takes 1-500.
  it('takes a whole number from 1 to 500, as the API does', async () => {
    const added = await porch('webhook', 'add', '--account', account.id, '--url', 'http://127.0.0.1:9/hook', '--events', 'run.completed', '--json');
    const endpoint = (JSON.parse(added.stdout) as { endpoint: { id: string } }).endpoint.id;
    for (const limit of ['99999999999999999999', '0', '100000', '501', '-1', '1.5', 'ten', '']) {
      await refused(
        `--limit must be a whole number from 1 to 500, got "${limit}".`,
        'webhook',
        'deliveries',
        endpoint,
        '--account',
        account.id,
        '--limit',
        limit,
      );
    }
    const listed = await porch('webhook', 'deliveries', endpoint, '--account', account.id, '--limit', '500');
    expect(listed.code, listed.stderr).toBe(0);
  });
});

describe('numbers', () => {
  // Regression: --rpm 0 said "Requests per minute must be ..." without naming --rpm, where --rpm -1 named it.
  it('are refused in one message naming the option and all it takes, whatever is wrong', async () => {
    for (const rpm of ['0', '-1', '1000000001']) {
      await refused(`--rpm must be a whole number from 1 to 1,000,000,000, got "${rpm}".`, 'key', 'create', '--account', account.id, '--rpm', rpm);
    }
    await refused('--rpd must be a whole number from 1 to 1,000,000,000, got "0".', 'partner-key', 'create', '--org', account.organisation_id, '--rpd', '0');
  });

  // Regression: "has no version 100000000000000000000", the number read past what it holds exactly.
  it('refuses a version past the whole numbers held exactly, echoing it', async () => {
    const bundle = join(directory, 'label.yaml');
    await writeFile(bundle, stringify({ compositions: [{ key: 'labelled', name: 'Labelled', template: 'Hello.' }] }));
    expect((await porch('import', bundle, '--account', account.id)).code).toBe(0);
    const [composition] = JSON.parse((await porch('resource', 'list', 'composition', '--account', account.id, '--json')).stdout) as Array<{ id: string }>;
    const id = composition?.id ?? '';
    await refused(
      '<version> must be a whole number of at least 1, got "99999999999999999999".',
      ...['label', 'set', 'composition', id, 'production', '99999999999999999999', '--account', account.id],
    );
    const set = await porch('label', 'set', 'composition', id, 'production', '1', '--account', account.id);
    expect(set.code, set.stderr).toBe(0);
  });
});

describe('names and descriptions', () => {
  // Regression: the CLI stored a key name of 1,000 characters and a webhook description of 5,000,
  // where POST /keys takes at most 100 and POST /webhooks at most 500.
  it('are held to the bounds the API holds them to', async () => {
    const long = (length: number) => 'x'.repeat(length);
    await refused('--name must be at most 100 characters.', 'key', 'create', '--account', account.id, '--name', long(101));
    await refused('--name must be at most 100 characters.', 'partner-key', 'create', '--org', account.organisation_id, '--name', long(5_000));
    await refused('--name must be at most 100 characters.', 'account', 'create', '--email', 'long@example.com', '--name', long(5_000));
    await refused('--name must not be empty.', 'key', 'create', '--account', account.id, '--name', ' ');
    await refused(
      '--description must be at most 500 characters.',
      ...['webhook', 'add', '--account', account.id],
      ...['--url', 'http://127.0.0.1:9/a'],
      ...['--events', 'run.completed', '--description', long(501)],
    );
    const named = JSON.parse((await porch('key', 'create', '--account', account.id, '--name', long(100), '--json')).stdout) as { name: string };
    expect(named.name).toBe(long(100));
    const added = await porch('webhook', 'add', '--account', account.id, '--url', 'http://127.0.0.1:9/b', '--events', 'run.completed', '--json');
    const endpoint = (JSON.parse(added.stdout) as { endpoint: { id: string } }).endpoint.id;
    await refused('--description must be at most 500 characters.', 'webhook', 'update', endpoint, '--account', account.id, '--description', long(501));
    const accounts = JSON.parse((await porch('account', 'list', '--json')).stdout) as unknown[];
    expect(accounts, 'no account was created').toHaveLength(1);
  });
});

describe('sanitiser rule add and set', () => {
  // Regression: their refusals named the API's fields (`pattern:`, `rule_id:`, `severity:`), not the options.
  it('name the option that gave what was refused', async () => {
    const add = ['sanitiser', 'rule', 'add', '--org', account.organisation_id, '--label', 'Rule'];
    const rejection = async (...args: string[]) => {
      const result = await porch(...args);
      expect(result.code, args.join(' ')).toBe(1);
      return result.stderr;
    };
    expect(await rejection(...add, '--id', 'custom.a', '--regex', '(a')).toMatch(/^porch: --regex: not a valid RE2 regular expression/m);
    expect(await rejection(...add, '--id', 'custom.a', '--regex', 'a*')).toMatch(/^porch: --regex: matches the empty string/m);
    expect(await rejection(...add, '--id', 'bad', '--regex', 'a')).toMatch(/^porch: --id: must be "custom\." followed by/m);
    expect(await rejection(...add, '--id', 'custom.a', '--regex', 'a', '--severity', 'loud')).toMatch(
      /^porch: --severity: must be one of info, warn, block\.$/m,
    );
    expect(await rejection(...add, '--id', 'custom.a', '--keyword', ' ')).toMatch(/^porch: --keywords \(item 1\): must not be empty\.$/m);
    const set = ['sanitiser', 'rule', 'set', '--org', account.organisation_id];
    expect(await rejection(...set, 'pii.email', '--severity', 'loud')).toMatch(/^porch: --severity: must be one of info, warn, block\.$/m);
    expect(await rejection(...set, 'pii.shoe_size', '--enabled', 'off')).toMatch(/^porch: <rule-id>: "pii\.shoe_size" is not a built-in rule/m);
  });
});
