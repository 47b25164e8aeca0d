/**
 * A new user's walkthrough of the docs and the skills: each claim or command the walkthrough tried
 * is read from the page and checked against a real server (or the code it describes), and the
 * pages' shell examples are run as written in a shell set up as the quick start says. Regressions,
 * one per claim: each was literally untrue, or its commands failed as written.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RETRIES } from '../../src/client/retry-policy.js';
import { parseBundleText } from '../../src/core/bundle/bundles.js';
import { API_ERROR_CODES, ERROR_TABLE } from '../../src/core/errors.js';
import { operations } from '../../src/operations/index.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const run = promisify(execFile);
const DOC_FILES = readdirSync(join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
/** The variables the quick start exports, which every page's examples may use. */
const QUICK_START_VARIABLES = ['PORCH_URL', 'PORCH_API_KEY'];
/** What the shell itself sets. */
const SHELL_VARIABLES = ['PWD', 'HOME', 'PATH'];

/** The bodies of a document's ```sh and ```bash blocks. */
function shellBlocks(text: string): string[] {
  return [...text.matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
}

/** A shell block's commands: lines joined over `\` line ends, comments and blank lines dropped. */
function shellCommands(block: string): string[] {
  return block
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter((line) => line !== '');
}

/** A command without its leading `export` and `NAME=value` assignments (a `NAME=$(...)` is kept: it runs a command). */
function withoutAssignments(command: string): string {
  const words = command.split(/\s+/);
  let index = 0;
  while (index < words.length && (words[index] === 'export' || /^[A-Z][A-Z0-9_]*=(?!\$\()/.test(words[index] ?? ''))) index += 1;
  return words.slice(index).join(' ');
}

/** The variables a command reads (`$NAME`, `${NAME}`), outside single quotes. */
function variablesRead(command: string): string[] {
  return [...command.replace(/'[^']*'/g, "''").matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1] ?? '');
}

/** The variables a page's commands set (`NAME=...`, `export NAME=...`, `NAME=$(...)`). */
function variablesSet(commands: string[]): string[] {
  return commands.flatMap((command) => [...command.matchAll(/(?:^|\s|export )([A-Za-z_][A-Za-z0-9_]*)=/g)].map((match) => match[1] ?? ''));
}

/** The backquoted names of a phrase: "(`a`, `b` or `c`)" gives [a, b, c]. */
function codeNames(phrase: string): string[] {
  return [...phrase.matchAll(/`([a-z_]+)`/g)].map((match) => match[1] ?? '');
}

let harness: Harness;
let key: string;
let accountId: string;
beforeAll(async () => {
  harness = await createHarness();
  ({ key, accountId } = await harness.expertWithKey({
    scopes: ['read:composition', 'write:composition', 'execute:composition', 'read:workflow', 'write:workflow'],
  }));
});
afterAll(() => harness.close());

/**
 * The blocks of a page that call the API with curl alone, run in order as one shell session (as a
 * reader pastes them) with the quick start's variables set for a new demo account, the one the
 * first start makes. The quick start's own `export` lines are what the environment already holds.
 */
async function runApiExamples(file: string): Promise<{ blocks: string[]; stdout: string; demoKey: string }> {
  const blocks = shellBlocks(read(file))
    .map((block) => shellCommands(block).filter((command) => !/^export PORCH_(URL|API_KEY)=/.test(command)))
    .filter((commands) => commands.length > 0 && commands.every((command) => /^(?:[A-Z_]+=\$\()?curl /.test(command)))
    .map((commands) => commands.join('\n'));
  const demo = await harness.core.demo.createDemo();
  const script = blocks.join('\n');
  try {
    const { stdout } = await run('bash', ['-eo', 'pipefail', '-c', script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', PORCH_URL: harness.url, PORCH_API_KEY: demo.key },
      timeout: 30_000,
    });
    return { blocks, stdout, demoKey: demo.key };
  } catch (err) {
    const failure = err as { code: number; stdout: string; stderr: string };
    throw new Error(`The examples of ${file} failed (exit ${failure.code}):\n${script}\nstdout: ${failure.stdout}\nstderr: ${failure.stderr}`);
  }
}

describe('versions-and-labels.md', () => {
  it('runs its examples in order, as written, without a 409 (regression: expected_version 3 after a sequence that leaves version 2)', async () => {
    const { blocks, stdout, demoKey } = await runApiExamples('docs/versions-and-labels.md');
    expect(blocks.join('\n').match(/^(?:ID=\$\()?curl /gm)?.length).toBeGreaterThanOrEqual(6);
    expect(stdout).not.toMatch(/"success":\s*false/);
    const compositions = await harness.api<{ items: Array<{ id: string; name: string }> }>('GET', '/compositions', { key: demoKey });
    const greeting = compositions.body.data.items.find((item) => item.name === 'Greeting');
    const got = await harness.api<{ version: number; labels: Record<string, number> }>('GET', `/compositions/${greeting?.id}`, { key: demoKey });
    expect(got.body.data, got.text).toMatchObject({ version: 3, labels: { latest: 3, production: 1 } });
  });
});

describe('the shell examples of every page', () => {
  const files = [...DOC_FILES, 'README.md'];

  it.each(files)(
    "%s: every variable a command reads is the quick start's or set on the page (regression: $PORCH, $ADMIN_KEY and $KEY were set nowhere)",
    (file) => {
      const commands = shellBlocks(read(file)).flatMap(shellCommands);
      const known = new Set([...QUICK_START_VARIABLES, ...SHELL_VARIABLES, ...variablesSet(commands)]);
      for (const command of commands) for (const variable of variablesRead(command)) expect(known, `${file}: ${command}`).toContain(variable);
    },
  );

  it.each(files)(
    '%s: every command is complete and reaches Porch at $PORCH_URL (regression: `curl -X PATCH ...`, http://127.0.0.1:3000 hard-coded)',
    (file) => {
      for (const command of shellBlocks(read(file)).flatMap(shellCommands)) {
        // Only a secret the reader holds (`PORCH_API_KEY=mdi_...`, `PGPASSWORD=...`) is left to fill in.
        const rest = withoutAssignments(command);
        expect(rest, `${file}: ${command}`).not.toContain('...');
        expect(rest, `${file}: ${command}`).not.toContain('127.0.0.1:3000');
        expect(rest.replaceAll('$PORCH_URL/api/public/', ''), `${file}: ${command}`).not.toContain('/api/public/');
      }
    },
  );

  // webhooks.md is left out: its endpoint's host is the reader's own, which the test cannot resolve.
  it.each([
    'docs/quick-start.md',
    'docs/authentication.md',
    'docs/self-service.md',
    'docs/rate-limits-and-credits.md',
    'docs/runs.md',
    'docs/streaming.md',
    'docs/organisation.md',
    'docs/sanitiser-rules.md',
    'docs/mcp.md',
    'README.md',
  ])("%s: its curl examples run as written against the quick start's demo account, and none is refused", async (file) => {
    const { blocks, stdout } = await runApiExamples(file);
    expect(blocks.length, `${file} has curl examples`).toBeGreaterThan(0);
    expect(stdout).not.toMatch(/"success":\s*false/);
    expect(stdout).not.toMatch(/^event: error/m);
  });
});

describe('authoring.md', () => {
  it('names exactly what of a composition\'s GET can be sent back as its PATCH, and what cannot (regression: "can always be sent back", and GET\'s data gave 400)', async () => {
    const authoring = read('docs/authoring.md').replace(/\s+/g, ' ');
    const sendable = codeNames(/the definition a composition's GET holds \(([^)]*)\)/.exec(authoring)?.[1] ?? '');
    const refused = codeNames(/a PATCH holding ((?:`[a-z_]+`(?:, | or ))+`[a-z_]+`)/.exec(authoring)?.[1] ?? '');
    expect(sendable).toContain('template');
    expect(refused).toContain('id');

    const created = await harness.api<{ id: string }>('POST', '/compositions', {
      key,
      body: { name: 'Greeting', template: 'Hello {{name}}', variables: [{ name: 'name', required: true }], model: 'echo/echo' },
    });
    const got = await harness.api<Record<string, unknown>>('GET', `/compositions/${created.body.data.id}`, { key });
    expect([...sendable, ...refused].sort(), 'the doc accounts for every field of the GET').toEqual(Object.keys(got.body.data).sort());

    const definition = Object.fromEntries(sendable.map((field) => [field, got.body.data[field]]));
    const sentBack = await harness.api('PATCH', `/compositions/${created.body.data.id}`, { key, body: definition });
    expect(sentBack.status, sentBack.text).toBe(200);
    const whole = await harness.api('PATCH', `/compositions/${created.body.data.id}`, { key, body: got.body.data });
    expect(whole.status, whole.text).toBe(400);
  });
});

describe('quick-start.md', () => {
  it('says the echo model is charged like any model, as the first execute shows (regression: "free of network and cost")', async () => {
    const quickStart = read('docs/quick-start.md').replace(/\s+/g, ' ');
    expect(quickStart).not.toMatch(/free of[^.]*cost/);
    expect(quickStart).toMatch(/echo\/echo[\s\S]*metered like any model/);
    const created = await harness.api<{ id: string }>('POST', '/compositions', { key, body: { name: 'Echo', template: 'Say {{word}}' } });
    const executed = await harness.api('POST', `/compositions/${created.body.data.id}/execute`, { key, body: { variables: { word: 'hi' } } });
    expect(executed.status, executed.text).toBe(200);
    expect(Number(executed.headers.get('x-credits-remaining'))).toBeLessThan(1000);
  });

  it('README, quick start and the porch-api skill say which lists are newest first and which oldest first (regression: "every list, newest first")', () => {
    const oldestFirst = operations.filter((operation) => /oldest first/.test(operation.description)).map((operation) => operation.path);
    expect(oldestFirst).toEqual(expect.arrayContaining(['/keys', '/connected-apps', '/webhooks']));
    for (const file of ['README.md', 'docs/quick-start.md', 'skills/porch-api/SKILL.md']) {
      const text = read(file).replace(/\s+/g, ' ');
      expect(text, file).not.toMatch(/Lists return every owned item, newest first/);
      expect(text, file).not.toMatch(/"count": n\}\}?`, newest first/);
      const sentence = /[^.]*oldest first\./.exec(text)?.[0] ?? '';
      for (const words of ['keys', 'connected apps', 'webhook endpoints', 'BYOK keys']) expect(sentence, `${file}: ${words}`).toContain(words);
    }
  });
});

describe('README.md', () => {
  it("labels a version its own import made (regression: label set ... production 2 right after the import: 'has no version 2')", async () => {
    const block = shellBlocks(read('README.md')).find((candidate) => candidate.includes('porch import examples/bundle.yaml')) ?? '';
    const version = Number(/porch label set workflow \S+ production (\d+)/.exec(block)?.[1]);
    await harness.core.bundles.importBundle(accountId, parseBundleText(await readFile(join(ROOT, 'examples/bundle.yaml'), 'utf8'), 'yaml'));
    const workflows = await harness.api<{ items: Array<{ id: string }> }>('GET', '/workflows', { key });
    const workflow = workflows.body.data.items[0];
    expect(workflow).toBeDefined();
    const labelled = await harness.api('POST', `/workflows/${workflow?.id}/labels`, { key, body: { label: 'production', version } });
    expect(labelled.status, labelled.text).toBe(200);
  });
});

describe('README.md TypeScript client', () => {
  it('runs as written against the demo catalog (regression: it sent `topic` to a workflow that needs product, version and changes, and `id` was never set)', async () => {
    const example = /## TypeScript client[\s\S]*?```ts\n([\s\S]*?)```/.exec(read('README.md'))?.[1] ?? '';
    expect(example).toContain("from 'porch/client'");
    const directory = await mkdtemp(join(tmpdir(), 'porch-readme-'));
    const file = join(directory, 'readme-example.mts');
    // Outside the package `porch/client` does not resolve, so the example imports the client's source.
    await writeFile(file, example.replace("'porch/client'", JSON.stringify(pathToFileURL(join(ROOT, 'src/client/index.ts')).href)), 'utf8');
    const demo = await harness.core.demo.createDemo();
    try {
      const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', file], {
        cwd: ROOT,
        env: { ...process.env, PORCH_URL: harness.url, PORCH_API_KEY: demo.key },
        timeout: 30_000,
      });
      expect(stdout, stderr).toMatch(/^completed /);
      expect(stdout).toContain('Write release notes for Porch version 1.2.');
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('the agent skills', () => {
  it('docs/skills.md says porch-api teaches every error code of the API, and its table names each (regression: 408 REQUEST_TIMEOUT was missing)', () => {
    expect(read('docs/skills.md')).toContain('every error code of the API');
    const table = read('skills/porch-api/SKILL.md')
      .split('\n')
      .filter((line) => line.startsWith('| '))
      .join('\n');
    for (const code of API_ERROR_CODES) expect(table, code).toContain(`\`${code}\``);
  });

  it("porch-sanitise says redact.mjs still prints the text on a block, as it does, and that a pipeline passes it on whatever the exit code (regression: 'Do not send anything on' alone)", async () => {
    const skill = read('skills/porch-sanitise/SKILL.md').replace(/\s+/g, ' ');
    expect(skill).toMatch(/`3` \(block\):[^`]*The redacted text is still printed on stdout/);
    expect(skill).toMatch(/In a pipeline the printed text flows on whatever the exit code/);
    expect(skill).toContain('set -o pipefail');
    const demo = await harness.core.demo.createDemo();
    const blocked = await run('bash', ['-c', 'printf "Card 4111 1111 1111 1111.\\n" | node skills/porch-sanitise/scripts/redact.mjs; echo "exit $?"'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', PORCH_URL: harness.url, PORCH_API_KEY: demo.key },
    });
    expect(blocked.stdout).toBe('Card [REDACTED: Payment card number].\nexit 3\n');
  });
});

describe('retries', () => {
  it(`says what the clients do, at most ${MAX_RETRIES} retries and ${MAX_RETRIES + 1} attempts in all, wherever the count is given (regression: "at most 3 attempts")`, () => {
    const sources = {
      'docs/rate-limits-and-credits.md': read('docs/rate-limits-and-credits.md'),
      'docs/errors.md (the error table)': ERROR_TABLE.AI_SERVICE_ERROR.hint,
      'docs/decisions.md': read('docs/decisions.md'),
      'README.md': read('README.md'),
      'skills/porch-api/SKILL.md': read('skills/porch-api/SKILL.md'),
    };
    for (const [source, text] of Object.entries(sources)) {
      const flat = text.replace(/\s+/g, ' ');
      expect(flat, source).not.toMatch(/at most (3|three) attempts/);
      expect(flat, source).toContain(`${MAX_RETRIES} retries`);
      expect(flat, source).toContain(`${MAX_RETRIES + 1} attempts in all`);
    }
    expect(read('docs/errors.md')).toContain(ERROR_TABLE.AI_SERVICE_ERROR.hint);
  });
});

describe('byok.md', () => {
  const byok = read('docs/byok.md');

  it('gives every `porch byok set` its key variable, so each line runs as written (regression: the second lacked OPENAI_CUSTOMER_KEY=...)', () => {
    const lines = shellBlocks(byok).flatMap((block) => block.split('\n').filter((line) => line.includes('porch byok set')));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const variable = /--key-env (\w+)/.exec(line)?.[1] ?? '';
      expect(line, line).toMatch(new RegExp(`^${variable}=\\S+ porch byok set`));
    }
  });

  it('says the organisation\'s admin manages its keys too, and that the CLI must know the provider itself (regression: "managed by the operator"; Unknown provider)', () => {
    const text = byok.replace(/\s+/g, ' ');
    expect(text).not.toContain('BYOK keys are managed by the operator');
    expect(text).toContain('POST /organisation/byok-keys');
    expect(text).toContain('console');
    expect(text).toContain('OPENAI_API_KEY');
    expect(text).toContain('Unknown provider "openai". Configured providers: none.');
  });
});

describe('cli.md and self-service.md on keys', () => {
  it('cli.md says `porch key create --json` prints the secret as `key` where REST answers `api_key`', () => {
    const row = read('docs/cli.md')
      .split('\n')
      .find((line) => line.startsWith('| `porch key create'));
    expect(row).toContain('`key`');
    expect(row).toContain('`api_key`');
  });

  it('self-service.md says a key in its grace period counts toward the 5 a create allows (regression: "its 5, and one more while a grace period runs")', () => {
    const text = read('docs/self-service.md').replace(/\s+/g, ' ');
    expect(text).not.toContain('its 5, and one more while a grace period runs');
    expect(text).toMatch(/A create counts every key that still works, an old key in its rotation grace period included/);
  });
});
