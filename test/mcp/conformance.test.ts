/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
 * scripts/mcp-conformance/) against a real Porch: over Streamable HTTP without a key, over HTTP
 * with a key (through a relay that adds `X-API-Key`, since the suite cannot send a header), and
 * over stdio (`porch mcp` behind an HTTP relay, since the suite speaks only HTTP).
 *
 * Every scenario of the suite is in SCENARIOS below: it passes, or it does not apply to Porch
 * (with the reason), or it applies and Porch lacks what it tests (with what the MCP door must
 * add). A `missing` scenario that starts passing fails this test until it is moved to `passes`,
 * so the list stays true; docs/mcp.md carries the same list with the same reasons.
 *
 * The same three modes run again for revision 2026-07-28 with the prerelease suite, classified per
 * check (TABLE_2026 below).
 *
 * The first run installs the suite and Node.js 22 (it needs 22) into .cache/mcp-conformance/,
 * which needs the npm registry; later runs use the cache and no network.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConformanceTools,
  describeOutcome,
  ensureConformanceTools,
  type ProcessResult,
  runInspectorCli,
  runServerScenarios,
  type ScenarioOutcome,
} from '../../scripts/mcp-conformance.js';
import { type Relay, startKeyRelay, startStdioRelay } from '../../scripts/mcp-conformance/relays.js';
import { loadConfig } from '../../src/config.js';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { createSilentLogger } from '../../src/logger.js';
import { createApplication } from '../../src/main.js';
import { porchEntryArgs } from '../helpers/cli.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { mcpUrl } from '../helpers/mcp-client.js';

type Mode = 'HTTP without a key' | 'HTTP with a key' | 'stdio with a key';

type Expectation =
  | { verdict: 'passes' }
  | { verdict: 'not applicable'; reason: string }
  /** Applies to Porch, which lacks it today: fails until the door adds it, then moves to `passes`. */
  | { verdict: 'missing'; reason: string };

const PASSES: Expectation = { verdict: 'passes' };

const INPUT_REQUIRED_FIXTURE: Expectation = {
  verdict: 'not applicable',
  reason:
    "Needs the suite's reference tools that answer with an input-required result (`test_input_required_result_*`); Porch never asks the client for input, so it has no such tool.",
};

const TASK_FIXTURE: Expectation = {
  verdict: 'not applicable',
  reason:
    "Needs the task tools of the suite's reference server (`greet`, `slow_compute`, `failing_job`, `confirm_delete`...); Porch's tasks are its execute tools, whose lifecycle test/mcp/modern-revision.test.ts covers.",
};

const STDIO_HAS_NO_HEADERS: Expectation = {
  verdict: 'not applicable',
  reason:
    "Checks HTTP headers or status codes; stdio has neither: the relay passes only the message to `porch mcp`, and the HTTP runs cover Porch's HTTP endpoint.",
};

const RELAY_HAS_NO_STREAM: Expectation = {
  verdict: 'not applicable',
  reason: 'Needs the `subscriptions/listen` stream; the stdio relay answers each POST with one JSON message and cannot carry a stream.',
};

function fixture(kind: 'tool' | 'prompt' | 'resource', name: string, more = ''): Expectation {
  return { verdict: 'not applicable', reason: `Needs the ${kind} \`${name}\` of the suite's reference server; Porch has no such ${kind}${more}.` };
}

/** Every server scenario of the pinned suite (`conformance list --server`), as it applies to Porch. */
const SCENARIOS: Record<string, Expectation> = {
  'server-initialize': PASSES,
  ping: PASSES,
  'tools-list': PASSES,
  'resources-list': PASSES,
  'prompts-list': PASSES,
  'dns-rebinding-protection': PASSES,
  'logging-set-level': {
    verdict: 'not applicable',
    reason:
      'Porch sends no log notifications, so it declares no `logging` capability (`logging/setLevel` answers -32601): answering setLevel and then never logging would claim what it does not do. Revision 2026-07-28 deprecates logging (SEP-2577) and removes the method.',
  },
  'completion-complete': PASSES,
  'tools-call-simple-text': fixture('tool', 'test_simple_text'),
  'tools-call-image': fixture('tool', 'test_image_content'),
  'tools-call-audio': fixture('tool', 'test_audio_content'),
  'tools-call-embedded-resource': fixture('tool', 'test_embedded_resource'),
  'tools-call-mixed-content': fixture('tool', 'test_multiple_content_types'),
  'tools-call-with-logging': fixture('tool', 'test_tool_with_logging'),
  'tools-call-error': fixture('tool', 'test_error_handling'),
  'tools-call-with-progress': fixture('tool', 'test_tool_with_progress', ' (execute tools report progress, covered by test/mcp/progress.test.ts)'),
  'tools-call-sampling': fixture('tool', 'test_sampling', ' and never asks the client to sample'),
  'tools-call-elicitation': fixture('tool', 'test_elicitation', ' and never asks the client for input'),
  'elicitation-sep1034-defaults': fixture('tool', 'test_elicitation_sep1034_defaults', ' and never asks the client for input'),
  'elicitation-sep1330-enums': fixture('tool', 'test_elicitation_sep1330_enums', ' and never asks the client for input'),
  'resources-read-text': fixture('resource', 'test://static-text'),
  'resources-read-binary': fixture('resource', 'test://static-binary'),
  'resources-templates-read': fixture('resource', 'test://template/123/data'),
  'resources-subscribe': fixture('resource', 'test://watched-resource', ' and does not offer the optional `resources.subscribe` capability'),
  'resources-unsubscribe': fixture('resource', 'test://watched-resource', ' and does not offer the optional `resources.subscribe` capability'),
  'prompts-get-simple': fixture('prompt', 'test_simple_prompt'),
  'prompts-get-with-args': fixture('prompt', 'test_prompt_with_arguments'),
  'prompts-get-embedded-resource': fixture('prompt', 'test_prompt_with_embedded_resource'),
  'prompts-get-with-image': fixture('prompt', 'test_prompt_with_image'),
  'server-sse-multiple-streams': {
    verdict: 'not applicable',
    reason:
      "Needs a session (`Mcp-Session-Id`) to open several GET streams; Porch's HTTP endpoint is stateless by design and answers GET with 405, so the suite only warns and checks nothing.",
  },
};

/** Where a transport changes what applies. */
const OVERRIDES: Partial<Record<Mode, Record<string, Expectation>>> = {
  'stdio with a key': {
    'dns-rebinding-protection': {
      verdict: 'not applicable',
      reason: "stdio has no Host or Origin header: the suite's requests reach the relay, not Porch's HTTP endpoint, whose check the HTTP runs cover.",
    },
  },
};

/**
 * Revision 2026-07-28, which suite 0.1.x does not test: the prerelease suite pinned beside it
 * (`conformance-2026`), run with `--requirements 2026-07-28`. That runs every scenario the
 * revision requires and, with `--force`, the extension scenarios (the tasks extension) and the
 * pending ones, all in one process per mode. Its scenarios mix checks Porch can answer with checks
 * that need the suite's reference server, so this table is per check: a scenario's verdict holds
 * for each of its checks unless a `scenario › check` row says otherwise (a row ending in `*`
 * covers every check whose id starts with what comes before it). `wire-schema-valid`, the
 * suite's schema validation of every message Porch sent, must pass in every scenario.
 */
const TABLE_2026: Record<string, Expectation> = {
  'server-stateless': PASSES,
  'server-stateless › sep-2575-server-rejects-undeclared-capability': fixture('tool', 'test_missing_capability'),
  'server-stateless › sep-2575-missing-capability-http-400': fixture('tool', 'test_missing_capability'),
  'server-stateless › sep-2575-http-server-no-independent-requests-on-stream': fixture(
    'tool',
    'test_streaming_elicitation',
    ' and never sends requests of its own',
  ),
  'server-stateless › sep-2575-server-no-log-without-loglevel': fixture('tool', 'test_logging_tool', ' and sends no log notifications'),
  'tools-list': PASSES,
  'prompts-list': PASSES,
  'resources-list': PASSES,
  caching: PASSES,
  'dns-rebinding-protection': PASSES,
  'http-header-validation': PASSES,
  'server-sse-multiple-streams': PASSES,
  'sep-2164-resource-not-found': PASSES,
  'completion-complete': PASSES,
  'tools-call-simple-text': fixture('tool', 'test_simple_text'),
  'tools-call-image': fixture('tool', 'test_image_content'),
  'tools-call-audio': fixture('tool', 'test_audio_content'),
  'tools-call-embedded-resource': fixture('tool', 'test_embedded_resource'),
  'tools-call-mixed-content': fixture('tool', 'test_multiple_content_types'),
  'tools-call-error': fixture('tool', 'test_error_handling'),
  'tools-call-with-progress': fixture('tool', 'test_tool_with_progress', ' (execute tools report progress, covered by test/mcp/progress.test.ts)'),
  'json-schema-2020-12': fixture('tool', 'json_schema_2020_12_tool', ' (its tools declare JSON Schema 2020-12, which `wire-schema-valid` checks)'),
  'http-custom-header-server-validation': {
    verdict: 'not applicable',
    reason:
      'Needs a tool with an `x-mcp-header` parameter (SEP-2243); no Porch tool maps a parameter to a header, so the suite reports every check untestable.',
  },
  'resources-read-text': fixture('resource', 'test://static-text'),
  'resources-read-binary': fixture('resource', 'test://static-binary'),
  'resources-templates-read': fixture('resource', 'test://template/123/data'),
  'prompts-get-simple': fixture('prompt', 'test_simple_prompt'),
  'prompts-get-with-args': fixture('prompt', 'test_prompt_with_arguments'),
  'prompts-get-embedded-resource': fixture('prompt', 'test_prompt_with_embedded_resource'),
  'prompts-get-with-image': fixture('prompt', 'test_prompt_with_image'),
  'input-required-result-basic-elicitation': INPUT_REQUIRED_FIXTURE,
  'input-required-result-basic-sampling': INPUT_REQUIRED_FIXTURE,
  'input-required-result-basic-list-roots': INPUT_REQUIRED_FIXTURE,
  'input-required-result-request-state': INPUT_REQUIRED_FIXTURE,
  'input-required-result-multiple-input-requests': INPUT_REQUIRED_FIXTURE,
  'input-required-result-multi-round': INPUT_REQUIRED_FIXTURE,
  'input-required-result-missing-input-response': INPUT_REQUIRED_FIXTURE,
  'input-required-result-result-type': INPUT_REQUIRED_FIXTURE,
  'input-required-result-tampered-state': INPUT_REQUIRED_FIXTURE,
  'input-required-result-capability-check': INPUT_REQUIRED_FIXTURE,
  'input-required-result-ignore-extra-params': INPUT_REQUIRED_FIXTURE,
  'input-required-result-non-tool-request': fixture('prompt', 'test_input_required_result_prompt', ' and never asks the client for input'),
  'input-required-result-unsupported-methods': PASSES,
  'input-required-result-validate-input': PASSES,
  'tasks-capability-negotiation': PASSES,
  'tasks-capability-negotiation › sep-2663-server-rejects-undeclared-client': TASK_FIXTURE,
  'tasks-capability-negotiation › tasks-per-request-meta-opt-in': TASK_FIXTURE,
  'tasks-dispatch-and-envelope': PASSES,
  'tasks-dispatch-and-envelope › tasks-server-directed-creation-no-hint': TASK_FIXTURE,
  'tasks-dispatch-and-envelope › sep-2663-legacy-task-param-ignored': TASK_FIXTURE,
  'tasks-dispatch-and-envelope › tasks-immediate-result-shortcut': TASK_FIXTURE,
  'tasks-dispatch-and-envelope › tasks-result-type-complete-on-non-task-responses': TASK_FIXTURE,
  'tasks-dispatch-and-envelope › sep-2663-durable-create-strong-consistency': TASK_FIXTURE,
  'tasks-request-headers': PASSES,
  'tasks-request-headers › tasks-headers-tolerate-mcp-method-on-tools-call': TASK_FIXTURE,
  'tasks-request-headers › sep-2663-routing-headers-accepted-on-tasks-get': TASK_FIXTURE,
  'tasks-request-headers › sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get': TASK_FIXTURE,
  'tasks-lifecycle': TASK_FIXTURE,
  'tasks-wire-fields': TASK_FIXTURE,
  'tasks-request-state-removal': TASK_FIXTURE,
  'tasks-mrtr-input': TASK_FIXTURE,
  'tasks-mrtr-composition': TASK_FIXTURE,
  'tasks-required-task-error': {
    verdict: 'not applicable',
    reason:
      "Needs a tool whose task support is `required` (the suite calls its `failing_job`); Porch's execute tools take a task only when the client asks and answer synchronously otherwise, so no Porch tool can answer -32021 for a client without the extension.",
  },
  'tasks-status-notifications': {
    verdict: 'not applicable',
    reason: 'The suite skips it itself: task status notifications moved to the `subscriptions/listen` stream and its harness is not rewritten yet.',
  },
};

/** Where a transport changes what applies, as in OVERRIDES; per check as in TABLE_2026. */
const OVERRIDES_2026: Partial<Record<Mode, Record<string, Expectation>>> = {
  'HTTP without a key': {
    'tasks-dispatch-and-envelope › sep-2663-tasks-get-invalid-task-id-32602': {
      verdict: 'not applicable',
      reason:
        "Without a key, `tasks/get` is answered `401` with the Bearer challenge, as every request that needs a key (a task is a run of the key's account); the runs with a key check the `-32602`.",
    },
  },
  'stdio with a key': {
    'dns-rebinding-protection': STDIO_HAS_NO_HEADERS,
    'http-header-validation': STDIO_HAS_NO_HEADERS,
    'server-stateless › sep-2575-http-server-*': STDIO_HAS_NO_HEADERS,
    'tasks-request-headers › tasks-headers-reject-mismatched-method': STDIO_HAS_NO_HEADERS,
    'server-stateless › sep-2575-server-sends-subscription-ack': RELAY_HAS_NO_STREAM,
    'server-stateless › sep-2575-server-tags-subscription-id': RELAY_HAS_NO_STREAM,
    'server-stateless › sep-2575-server-honors-notification-filter': RELAY_HAS_NO_STREAM,
  },
};

function expectationFor(mode: Mode, scenario: string): Expectation | undefined {
  return OVERRIDES[mode]?.[scenario] ?? SCENARIOS[scenario];
}

/** Every way an outcome disagrees with the table, one message each (empty when all agree). */
function disagreements(mode: Mode, outcomes: readonly ScenarioOutcome[]): string[] {
  const problems: string[] = [];
  const ran = new Set(outcomes.map((outcome) => outcome.scenario));
  for (const scenario of Object.keys(SCENARIOS)) {
    if (!ran.has(scenario)) problems.push(`${scenario}: in the table but the suite did not run it (renamed or dropped by the pinned suite?)`);
  }
  for (const outcome of outcomes) {
    const expected = expectationFor(mode, outcome.scenario);
    if (expected === undefined) {
      problems.push(`${outcome.scenario}: new scenario, not in the table; it ${outcome.verdict}:\n    ${describeOutcome(outcome)}`);
    } else if (expected.verdict === 'passes' && outcome.verdict !== 'passes') {
      problems.push(`${outcome.scenario}: should pass but ${outcome.verdict}:\n    ${describeOutcome(outcome)}`);
    } else if (expected.verdict === 'missing' && outcome.verdict === 'passes') {
      problems.push(`${outcome.scenario}: listed as missing but now passes; mark it \`passes\` here and remove it from docs/mcp.md`);
    }
    // A keyed run whose key never reached Porch would agree with the same table; make it show.
    const refusedKey = outcome.checks.find((check) => /MISSING_API_KEY|INVALID_API_KEY/.test(check.errorMessage ?? ''));
    if (mode !== 'HTTP without a key' && refusedKey) problems.push(`${outcome.scenario}: the key did not reach Porch: ${refusedKey.errorMessage}`);
  }
  return problems;
}

const REPO_ROOT = join(import.meta.dirname, '..', '..');
/** npm ci of the suite and Node.js 22 on a clean machine (about 25 s here; slow registries take longer). */
const INSTALL_TIMEOUT_MS = 5 * 60_000;
/** One run of the 30 scenarios takes about 5 s; the margin is for a loaded machine. */
const SUITE_TIMEOUT_MS = 120_000;

let tools: ConformanceTools;
let harness: Harness;
let httpKey: string;
/** `porch mcp`'s environment: its database file and key. */
let stdioEnv: Record<string, string>;
/** node's arguments up to `porch mcp`: the bundled sources. */
let porchEntry: string[];
let keyRelay: Relay;
let stdioRelay: Relay & { stderr(): string };
let workDir: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'porch-mcp-conformance-'));
  tools = await ensureConformanceTools({ timeoutMs: INSTALL_TIMEOUT_MS });

  // The public URL names the real port, as in a deployment: the DNS-rebinding scenario sends the
  // server's own address as Origin, which Porch accepts only when it is the public origin.
  harness = await createHarness({ publicPort: true });
  const { accountId, key } = await harness.expertWithKey();
  httpKey = key;
  await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE);
  await harness.core.contextCards.create(accountId, { title: 'Conformance card', content: 'Read by the conformance suite' });
  keyRelay = await startKeyRelay(mcpUrl(harness).href, key);

  // `porch mcp` opens a database file of its own, made here through the real services.
  const env = { DATABASE_URL: `file:${join(workDir, 'porch.db')}`, PORCH_DATA_DIR: workDir, LOG_LEVEL: 'warn' };
  const application = await createApplication(loadConfig({ ...env, PORCH_NO_BOOTSTRAP: '1' }, REPO_ROOT), { logger: createSilentLogger() });
  let stdioKey: string;
  try {
    const account = await application.core.accounts.createAccount({ email: 'conformance@example.com', plan: 'expert', credits: 100 });
    stdioKey = (await application.core.accounts.createKey({ accountId: account.id })).plaintext;
    await application.core.contextCards.create(account.id, { title: 'Conformance card', content: 'Read by the conformance suite' });
    await application.core.bundles.importBundle(account.id, DEMO_BUNDLE);
  } finally {
    await application.close();
  }
  stdioEnv = { ...env, PORCH_API_KEY: stdioKey };
  porchEntry = await porchEntryArgs();
  stdioRelay = await startStdioRelay({
    command: process.execPath,
    args: [...porchEntry, 'mcp'],
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? workDir, ...stdioEnv },
    requestTimeoutMs: 30_000,
  });
}, INSTALL_TIMEOUT_MS + 60_000);

afterAll(async () => {
  await stdioRelay?.close();
  await keyRelay?.close();
  await harness?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** `serverLog`: what the server under test wrote, shown when the table disagrees. */
async function runMode(mode: Mode, url: string, serverLog: () => string = () => ''): Promise<void> {
  const outcomes = await runServerScenarios(tools, { url, outputDir: join(workDir, mode.replaceAll(' ', '-')), timeoutMs: SUITE_TIMEOUT_MS });
  const problems = disagreements(mode, outcomes);
  expect(problems, `conformance suite ${tools.version} ${mode}${problems.length > 0 ? `\nserver log:\n${serverLog().slice(-2000)}` : ''}`).toEqual([]);
}

describe(`MCP conformance suite`, () => {
  it(
    'over HTTP without a key, every scenario that applies passes',
    async () => {
      await runMode('HTTP without a key', mcpUrl(harness).href);
    },
    SUITE_TIMEOUT_MS,
  );

  it(
    'over HTTP with a key, every scenario that applies passes',
    async () => {
      await runMode('HTTP with a key', keyRelay.url);
    },
    SUITE_TIMEOUT_MS,
  );

  it(
    'over stdio with a key, every scenario that applies passes',
    async () => {
      await runMode('stdio with a key', stdioRelay.url, () => stdioRelay.stderr());
    },
    SUITE_TIMEOUT_MS,
  );

  it('docs/mcp.md lists every scenario that does not pass, with the same reason as this test', () => {
    const docs = readFileSync(join(REPO_ROOT, 'docs', 'mcp.md'), 'utf8');
    const rows: string[] = [];
    for (const [scenario, expected] of Object.entries(SCENARIOS)) {
      if (expected.verdict !== 'passes') rows.push(`| \`${scenario}\` | every transport | ${expected.verdict} | ${expected.reason} |`);
    }
    for (const [mode, overrides] of Object.entries(OVERRIDES)) {
      for (const [scenario, expected] of Object.entries(overrides)) {
        if (expected.verdict !== 'passes') rows.push(`| \`${scenario}\` | ${mode.split(' ')[0]} | ${expected.verdict} | ${expected.reason} |`);
      }
    }
    expect(rows.filter((row) => !docs.includes(row))).toEqual([]);
  });
});

/** The row of TABLE_2026 (or of the mode's overrides) that decides one check, and its key. */
function expectationFor2026(mode: Mode, scenario: string, check: string): { key: string; expected: Expectation } | undefined {
  for (const table of [OVERRIDES_2026[mode] ?? {}, TABLE_2026]) {
    for (const [key, expected] of Object.entries(table)) {
      const [rowScenario, rowCheck] = key.split(' › ');
      if (rowScenario !== scenario || rowCheck === undefined) continue;
      if (rowCheck === check || (rowCheck.endsWith('*') && check.startsWith(rowCheck.slice(0, -1)))) return { key, expected };
    }
    if (check !== 'wire-schema-valid' && table[scenario] !== undefined) return { key: scenario, expected: table[scenario] };
  }
  return check === 'wire-schema-valid' ? { key: `${scenario} › wire-schema-valid`, expected: PASSES } : undefined;
}

/** SKIPPED and INFO are the suite's "optional, not exercised": they do not contradict `passes`. */
const AGREES_WITH_PASSES = new Set(['SUCCESS', 'INFO', 'SKIPPED']);

function disagreements2026(mode: Mode, outcomes: readonly ScenarioOutcome[]): string[] {
  const problems: string[] = [];
  const ran = new Set(outcomes.map((outcome) => outcome.scenario));
  for (const key of Object.keys(TABLE_2026)) {
    const scenario = key.split(' › ')[0] ?? key;
    if (!ran.has(scenario)) problems.push(`${key}: in the table but the suite did not run ${scenario} (renamed or dropped by the pinned suite?)`);
  }
  for (const outcome of outcomes) {
    for (const check of outcome.checks) {
      const row = expectationFor2026(mode, outcome.scenario, check.id);
      const said = `${check.status}: ${check.errorMessage ?? check.description ?? ''}`.slice(0, 500);
      if (row === undefined) problems.push(`${outcome.scenario} › ${check.id}: new, not in the table; ${said}`);
      else if (row.expected.verdict === 'passes' && !AGREES_WITH_PASSES.has(check.status))
        problems.push(`${outcome.scenario} › ${check.id} should pass (${row.key}); ${said}`);
      else if (row.expected.verdict === 'missing' && check.status === 'SUCCESS') {
        problems.push(`${outcome.scenario} › ${check.id} is listed as missing (${row.key}) but now passes; mark it \`passes\` here and in docs/mcp.md`);
      }
      if (mode !== 'HTTP without a key' && /MISSING_API_KEY|INVALID_API_KEY/.test(check.errorMessage ?? '')) {
        problems.push(`${outcome.scenario} › ${check.id}: the key did not reach Porch: ${check.errorMessage}`);
      }
    }
  }
  return problems;
}

async function runMode2026(mode: Mode, url: string, serverLog: () => string = () => ''): Promise<void> {
  const outcomes = await runServerScenarios(
    { ...tools, entry: tools.entry2026, version: tools.version2026 },
    { url, outputDir: join(workDir, `2026-${mode.replaceAll(' ', '-')}`), args: ['--requirements', '2026-07-28'], timeoutMs: SUITE_TIMEOUT_MS },
  );
  const problems = disagreements2026(mode, outcomes);
  expect(problems, `conformance suite ${tools.version2026} ${mode}${problems.length > 0 ? `\nserver log:\n${serverLog().slice(-2000)}` : ''}`).toEqual([]);
}

/** The docs row of a table entry: `scenario` or `scenario` › `check`, where, verdict, reason. */
function docsRow(key: string, where: string, expected: Exclude<Expectation, { verdict: 'passes' }>): string {
  const name = key
    .split(' › ')
    .map((part) => `\`${part}\``)
    .join(' › ');
  return `| ${name} | ${where} | ${expected.verdict} | ${expected.reason} |`;
}

describe('MCP conformance suite, revision 2026-07-28 (prerelease suite, with the tasks extension)', () => {
  it(
    'over HTTP without a key, every check that applies passes',
    async () => {
      await runMode2026('HTTP without a key', mcpUrl(harness).href);
    },
    SUITE_TIMEOUT_MS,
  );

  it(
    'over HTTP with a key, every check that applies passes',
    async () => {
      await runMode2026('HTTP with a key', keyRelay.url);
    },
    SUITE_TIMEOUT_MS,
  );

  it(
    'over stdio with a key, every check that applies passes',
    async () => {
      await runMode2026('stdio with a key', stdioRelay.url, () => stdioRelay.stderr());
    },
    SUITE_TIMEOUT_MS,
  );

  it('docs/mcp.md lists every check that does not pass, with the same reason as this test', () => {
    const docs = readFileSync(join(REPO_ROOT, 'docs', 'mcp.md'), 'utf8');
    const rows: string[] = [];
    for (const [key, expected] of Object.entries(TABLE_2026)) if (expected.verdict !== 'passes') rows.push(docsRow(key, 'every transport', expected));
    for (const [mode, overrides] of Object.entries(OVERRIDES_2026)) {
      // A transport's name, or the mode in full where it is one run of HTTP.
      const where = mode.startsWith('stdio') ? 'stdio' : mode;
      for (const [key, expected] of Object.entries(overrides)) if (expected.verdict !== 'passes') rows.push(docsRow(key, where, expected));
    }
    const section = docs.slice(docs.indexOf('### Revision 2026-07-28'));
    expect(rows.filter((row) => !section.includes(row))).toEqual([]);
  });
});

/**
 * The Inspector's "modern" mode pins revision 2026-07-28, which it negotiates with
 * `server/discover`; it has no fallback. Its legacy mode opens with `initialize`.
 */
function inspectorTargets(): { transport: string; args: string[] }[] {
  const stdioVariables = Object.entries(stdioEnv).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
  return [
    { transport: 'HTTP', args: [mcpUrl(harness).href, '--header', `X-API-Key: ${httpKey}`] },
    { transport: 'stdio', args: [...stdioVariables, '--cwd', REPO_ROOT, process.execPath, ...porchEntry, 'mcp'] },
  ];
}

function toolNames(run: ProcessResult): string[] {
  const parsed = JSON.parse(run.stdout) as { result?: { tools?: { name: string }[] } };
  return (parsed.result?.tools ?? []).map((tool) => tool.name);
}

describe('MCP Inspector', () => {
  it(
    "connects in its legacy mode over HTTP with a key and over stdio, and lists the key's tools",
    async () => {
      for (const { transport, args } of inspectorTargets()) {
        const run = await runInspectorCli(tools, [...args, '--protocol-era', 'legacy', '--method', 'tools/list', '--format', 'json'], {
          cwd: REPO_ROOT,
          home: workDir,
        });
        expect(run.code, `Inspector ${tools.inspectorVersion} over ${transport}: ${run.stdout}${run.stderr}`.slice(0, 2000)).toBe(0);
        expect(toolNames(run), transport).toContain('list_context_cards');
      }
    },
    SUITE_TIMEOUT_MS,
  );

  it(
    'in its modern mode (2026-07-28) connects and lists the tools of the key',
    async () => {
      for (const { transport, args } of inspectorTargets()) {
        const run = await runInspectorCli(tools, [...args, '--protocol-era', 'modern', '--method', 'tools/list', '--format', 'json'], {
          cwd: REPO_ROOT,
          home: workDir,
        });
        const said = `Inspector ${tools.inspectorVersion} over ${transport}: ${run.stdout}${run.stderr}`.slice(0, 2000);
        expect(run.code, said).toBe(0);
        expect(toolNames(run), transport).toContain('list_context_cards');
      }
    },
    SUITE_TIMEOUT_MS,
  );
});
