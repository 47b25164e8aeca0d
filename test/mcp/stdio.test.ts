/**
 * `porch mcp` as an MCP client starts it: a child process speaking MCP on stdin/stdout, with the
 * key from PORCH_API_KEY, logs on stderr only, and a clean exit when stdin closes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { createSilentLogger } from '../../src/logger.js';
import { createApplication } from '../../src/main.js';
import { operations } from '../../src/operations/index.js';
import { exposedOn } from '../../src/operations/operation.js';
import { porchEntryArgs } from '../helpers/cli.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { describeResult, resultText } from '../helpers/mcp-client.js';

const REPO_ROOT = join(import.meta.dirname, '..', '..');

let dataDir: string;
let env: Record<string, string>;
let key: string;
let cardId: string;
let workflowId: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'porch-mcp-stdio-'));
  env = { DATABASE_URL: `file:${join(dataDir, 'porch.db')}`, PORCH_DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  const application = await createApplication(loadConfig({ ...env, PORCH_NO_BOOTSTRAP: '1' }, REPO_ROOT), { logger: createSilentLogger() });
  try {
    const account = await application.core.accounts.createAccount({ email: 'stdio@example.com', plan: 'expert', credits: 100 });
    key = (await application.core.accounts.createKey({ accountId: account.id })).plaintext;
    cardId = (await application.core.contextCards.create(account.id, { title: 'Stdio card', content: 'Read over stdio' })).id;
    const { ids } = await application.core.bundles.importBundle(account.id, DEMO_BUNDLE);
    workflowId = ids['workflow:release-announcement'] ?? '';
  } finally {
    await application.close();
  }
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** An SDK client that starts `porch mcp` itself, as Claude Desktop or Cursor would. */
async function startClient(extraEnv: Record<string, string>, options: { modern?: boolean } = {}): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(await porchEntryArgs()), 'mcp'],
    cwd: REPO_ROOT,
    env: { ...env, ...extraEnv },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client(
    { name: 'porch-stdio-test', version: '1.0.0' },
    // A client pinned to the current revision opens with server/discover, not initialize.
    options.modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** Runs `porch mcp` directly, writes `input` to stdin, closes stdin after `answers` lines came back, and collects what it wrote. */
async function runRaw(extraEnv: Record<string, string>, input: string, answers = 1): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const entryArgs = await porchEntryArgs();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entryArgs, 'mcp'], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', ...env, ...extraEnv } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      // Close stdin once the answers have arrived: the server must then exit.
      if (stdout.split('\n').length > answers) child.stdin.end();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => undefined);
    child.stdin.write(input);
  });
}

/** `porch mcp` started directly, asked one JSON-RPC request at a time: each answer is found by its id. */
async function startRaw(extraEnv: Record<string, string>) {
  const child = spawn(process.execPath, [...(await porchEntryArgs()), 'mcp'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', ...env, ...extraEnv },
  });
  const waiting = new Map<number, (answer: Record<string, unknown>) => void>();
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
      const answer = JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>;
      buffered = buffered.slice(newline + 1);
      if (typeof answer.id === 'number') waiting.get(answer.id)?.(answer);
    }
  });
  let nextId = 1;
  return {
    request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
      const id = nextId++;
      const answered = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      return answered;
    },
    close: () =>
      new Promise<number | null>((resolve) => {
        child.on('close', resolve);
        child.stdin.end();
      }),
  };
}

const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`;

describe('porch mcp', () => {
  it('serves a client of revision 2026-07-28 with the tools of its key', async () => {
    const { client } = await startClient({ PORCH_API_KEY: key }, { modern: true });
    try {
      expect(client.getProtocolEra()).toBe('modern');
      const card = await client.callTool({ name: 'get_context_card', arguments: { id: cardId } });
      expect(card.isError, describeResult(card)).toBeFalsy();
      expect(resultText(card)).toContain('Read over stdio');
    } finally {
      await client.close();
    }
  });

  it('serves the public tools without PORCH_API_KEY and scores a prompt', async () => {
    const { client, stderr } = await startClient({});
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
      expect(names).toEqual(
        exposedOn(operations, 'mcp-tool')
          .filter((operation) => operation.access === 'public')
          .map((operation) => operation.name)
          .sort(),
      );
      const result = await client.callTool({ name: 'analyze_prompt', arguments: { prompt: 'You are a tax adviser. List three deductions as a table.' } });
      expect(result.isError, describeResult(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ scores: { role: expect.any(Number) } });
      expect(stderr()).toContain('MCP server ready on stdio');
    } finally {
      await client.close();
    }
  });

  it("acts for PORCH_API_KEY's account: its tools, cards, prompts and resources", async () => {
    const { client } = await startClient({ PORCH_API_KEY: key });
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('list_context_cards');
      const cards = await client.callTool({ name: 'list_context_cards', arguments: {} });
      expect(cards.isError, describeResult(cards)).toBeFalsy();
      expect(resultText(cards)).toContain('Stdio card');
      expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toContain('release-notes');
      const read = await client.readResource({ uri: `porch://context-cards/${cardId}` });
      expect(read.contents[0]).toMatchObject({ text: 'Read over stdio' });
    } finally {
      await client.close();
    }
  });

  it('exits non-zero for an invalid key, with the reason on stderr and as the answer to the first request', async () => {
    const run = await runRaw({ PORCH_API_KEY: 'mdi_notARealKey000000000000000000000000000000' }, INITIALIZE);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('porch: PORCH_API_KEY was refused: INVALID_API_KEY: The API key is invalid, expired or revoked.');
    // The client's first request is answered with the reason (regression: it saw only "Connection closed").
    expect(JSON.parse(run.stdout)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: 'porch mcp cannot start: PORCH_API_KEY was refused: INVALID_API_KEY: The API key is invalid, expired or revoked.' },
    });
  });

  it('writes only protocol messages to stdout and exits 0 when stdin closes', async () => {
    const run = await runRaw({ PORCH_API_KEY: key }, INITIALIZE);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n').filter((line) => line.length > 0);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'porch' } } });
    for (const line of run.stderr.split('\n').filter((entry) => entry.length > 0)) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('runs a task it queued itself, with no porch serve on the database (regression: it stayed queued)', async () => {
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    };
    const server = await startRaw({ PORCH_API_KEY: key });
    try {
      const created = await server.request('tools/call', {
        name: 'execute_workflow',
        arguments: { id: workflowId, variables: RELEASE_VARIABLES },
        _meta: envelope,
      });
      const task = created.result as { resultType: string; taskId: string };
      expect(task.resultType, JSON.stringify(created)).toBe('task');
      let status = 'working';
      let answer: Record<string, unknown> = {};
      for (const deadline = Date.now() + 20_000; status === 'working' && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        answer = await server.request('tasks/get', { taskId: task.taskId, _meta: envelope });
        status = String((answer.result as { status?: string } | undefined)?.status);
      }
      expect(answer.result, JSON.stringify(answer)).toMatchObject({ status: 'completed', result: { structuredContent: { status: 'completed' } } });
    } finally {
      expect(await server.close()).toBe(0);
    }
  });

  it('keeps serving, with its database, a client that opens with server/discover and falls back to initialize', async () => {
    // A client that speaks both eras may probe with server/discover and then initialize; the SDK
    // then discards the instance it built for the probe (regression: porch mcp took that for the
    // end of the connection, closed its database, and answered every later call INTERNAL_ERROR).
    const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const input = [
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope } },
      JSON.parse(INITIALIZE),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    ]
      .map((message) => `${JSON.stringify(message)}\n`)
      .join('');
    const run = await runRaw({ PORCH_API_KEY: key }, input, 3);
    expect(run.code, run.stderr).toBe(0);
    const answers = run.stdout
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as { id?: number; result?: { tools?: { name: string }[] }; error?: unknown });
    const toolsList = answers.find((answer) => answer.id === 2);
    expect(toolsList?.error, run.stderr.slice(-2000)).toBeUndefined();
    expect(toolsList?.result?.tools?.map((tool) => tool.name)).toContain('list_context_cards');
  });
});
