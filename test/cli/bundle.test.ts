/**
 * The bundle `npm start` and the `porch` bin run (scripts/build-bundle.ts), built from the current
 * sources and started as `npm start` starts it: every door and every file it reads beside its
 * sources must still be found from the bundle, so a path or a lazy import that only works
 * unbundled fails here, not in a user's deployment.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BUNDLE_ENTRY, buildBundle } from '../../scripts/build-bundle.js';
import { MCP_PATH } from '../../src/mcp/http.js';
import { CONSOLE_PATHS, SITE_PATHS } from '../../src/operations/site-paths.js';
import { describeResult, resultText } from '../helpers/mcp-client.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { api, baseEnv, makeDataDir, openDirect, startPorchProcess, type PorchProcess } from '../reliability/porch-process.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLIENT_INFO = { name: 'porch-bundle-test', version: '1.0.0' };

/** node's arguments before the command, as package.json's start script gives them (`node <flags> dist/bundle/porch.js serve`). */
async function startScriptNodeFlags(): Promise<string[]> {
  const manifest = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string }; bin: { porch: string } };
  const words = manifest.scripts.start.split(/\s+/);
  // The start script and the bin run the same file.
  expect(words.slice(-2)).toEqual([manifest.bin.porch, 'serve']);
  expect(manifest.bin.porch).toBe(`dist/bundle/${BUNDLE_ENTRY}`);
  return words.slice(1, -2);
}

/** Connects an MCP client over `transport` and checks that the bundled server lists the seeded card. */
async function expectCardListedOver(transport: Parameters<Client['connect']>[0]): Promise<void> {
  const client = new Client(CLIENT_INFO);
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: 'list_context_cards', arguments: {} });
    expect(result.isError, describeResult(result)).toBeFalsy();
    expect(resultText(result)).toContain('Bundled card');
  } finally {
    await client.close();
  }
}

let bundleDir: string;
let entryArgs: string[];
let data: Awaited<ReturnType<typeof makeDataDir>>;
let server: PorchProcess;
let key: string;

beforeAll(async () => {
  // Inside the repository, as dist/bundle is: the bundle resolves node_modules and the package's
  // folders (migrations, docs, skills, console assets) from where it sits.
  await mkdir(join(REPO_ROOT, '.cache'), { recursive: true });
  bundleDir = await mkdtemp(join(REPO_ROOT, '.cache', 'bundle-test-'));
  await buildBundle(bundleDir);
  entryArgs = [...(await startScriptNodeFlags()), join(bundleDir, BUNDLE_ENTRY)];
  data = await makeDataDir();
  // A new database: the bundle's supervisor applies the migrations, and two workers (node:cluster
  // re-runs the bundle's entry) serve.
  server = await startPorchProcess(data.databaseUrl, {}, ['--workers', '2'], entryArgs);
  const application = await openDirect(data.databaseUrl);
  try {
    const account = await application.core.accounts.createAccount({ email: 'bundle@example.com', plan: 'expert', credits: 100 });
    key = (await application.core.accounts.createKey({ accountId: account.id })).plaintext;
    await application.core.contextCards.create(account.id, { title: 'Bundled card', content: 'Served from the bundle' });
  } finally {
    await application.close();
  }
}, 60_000);

afterAll(async () => {
  if (server) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  await data?.cleanup();
  if (bundleDir) await rm(bundleDir, { recursive: true, force: true });
});

describe('the bundled server, started as npm start starts it', () => {
  it('migrates a new database and answers /health', async () => {
    const health = await api(server.url, 'GET', '/health');
    expect(health.status, health.text).toBe(200);
    expect(health.body?.data).toMatchObject({ status: 'ok', database: 'ok' });
  });

  it('answers an authenticated REST call', async () => {
    const cards = await api(server.url, 'GET', '/context-cards', { key });
    expect(cards.status, cards.text).toBe(200);
    expect(cards.text).toContain('Bundled card');
  });

  it('answers an MCP tool call over HTTP', async () => {
    await expectCardListedOver(new StreamableHTTPClientTransport(new URL(`${server.url}${MCP_PATH}`), { requestInit: { headers: { 'x-api-key': key } } }));
  });

  it('serves a console page and the stylesheet it links (the console assets folder)', async () => {
    const page = await fetch(`${server.url}${CONSOLE_PATHS.signIn}`);
    const html = await page.text();
    expect(page.status, html.slice(0, 500)).toBe(200);
    const stylesheet = new RegExp(`${CONSOLE_PATHS.assets}/console\\.[^"]+\\.css`).exec(html)?.[0];
    expect(stylesheet, html.slice(0, 2000)).toBeDefined();
    const css = await fetch(`${server.url}${stylesheet}`);
    expect(css.status).toBe(200);
    expect((await css.text()).length).toBeGreaterThan(1000);
  });

  it('serves the discovery documents: the skills index, a docs page and llms.txt (the package folders)', async () => {
    const skills = await fetch(`${server.url}${SITE_PATHS.agentSkillsIndex}`);
    expect(skills.status).toBe(200);
    expect(((await skills.json()) as { skills: unknown[] }).skills.length).toBeGreaterThan(0);
    const docsPage = await fetch(`${server.url}${SITE_PATHS.docs}/quick-start`);
    expect(docsPage.status).toBe(200);
    expect(await docsPage.text()).toContain('<h1');
    const llms = await fetch(`${server.url}${SITE_PATHS.llmsTxt}`);
    expect(llms.status).toBe(200);
    expect(await llms.text()).toContain('/docs/');
  });

  it('scans a long text on the sanitiser worker thread (a worker module of the bundle)', async () => {
    // Longer than INLINE_SCAN_MAX_CHARS, so the scan runs on the worker, not inline.
    const text = `${'The quarterly report is attached. '.repeat(600)}Mail ada@example.com about it.`;
    const scan = await api(server.url, 'POST', '/sanitiser/scan', { key, body: { text } });
    expect(scan.status, scan.text).toBe(200);
    expect(scan.text).toContain('pii.email');
  });

  it('starts with tracing on and exports its spans (regression: the bundle exited, "OTLPTraceExporter is not a constructor")', async () => {
    // The OpenTelemetry packages are CommonJS chunks of the bundle, loaded only when tracing is on.
    const receiver = await startOtlpReceiver();
    const traced = await startPorchProcess(data.databaseUrl, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '50' }, [], entryArgs);
    try {
      const cards = await api(traced.url, 'GET', '/context-cards', { key });
      expect(cards.status, cards.text).toBe(200);
      await vi.waitFor(() => expect(receiver.spans.map((span) => span.attributes['porch.operation'])).toContain('list_context_cards'), { timeout: 10_000 });
    } finally {
      traced.child.kill('SIGTERM');
      await traced.exited;
      await receiver.close();
    }
  });

  it('serves MCP over stdio as `porch mcp`', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(bundleDir, BUNDLE_ENTRY), 'mcp'],
      cwd: REPO_ROOT,
      env: { ...baseEnv(data.databaseUrl), PORCH_API_KEY: key },
      stderr: 'pipe',
    });
    await expectCardListedOver(transport);
  });

  it("turns Node's compile cache on in the package's node_modules/.cache before loading the CLI", async () => {
    // Node 20 has no module.enableCompileCache; a stand-in installed before the entry runs records the call.
    const standIn = `import module from 'node:module'; module.enableCompileCache = (directory) => { process.stderr.write('compile cache: ' + directory + '\\n'); };`;
    const result = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(standIn)}`, join(bundleDir, BUNDLE_ENTRY), '--help'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr.split('\n')[0]).toBe(`compile cache: ${join(REPO_ROOT, 'node_modules', '.cache', 'porch-compile-cache')}/`);
    expect(result.stdout).toContain('Usage: porch');
  });
});
