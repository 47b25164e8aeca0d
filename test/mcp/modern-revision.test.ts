/**
 * MCP revision 2026-07-28 on the one HTTP endpoint, with real v2 SDK clients: a client pinned to
 * the current revision connects (server/discover, the per-request envelope), lists and calls
 * tools with its key's scopes, and a 2025 client keeps working beside it. Execute tools answer
 * with a task (the tasks extension) when the request declares the extension, driven here by the
 * extension's own requester client: the task is the durable run, so its result is the one the
 * synchronous call gives, it is polled and cancelled like the run, and another account cannot see it.
 */
import { createTaskSessionFromClient, resultFromTaskOutcome, type RawClientDispatch } from '@modelcontextprotocol/ext-tasks/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { TASKS_EXTENSION, taskOfRun } from '../../src/mcp/tasks.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { connectHttp, CURRENT_REVISION, describeResult, mcpUrl, type McpConnection, taskDispatch } from '../helpers/mcp-client.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';

let harness: Harness;
const connections: McpConnection[] = [];

beforeEach(async () => {
  harness = await createHarness();
});
afterEach(async () => {
  for (const connection of connections.splice(0)) await connection.close();
  await harness.close();
});

async function connect(options: Parameters<typeof connectHttp>[1]): Promise<McpConnection> {
  const connection = await connectHttp(harness, options);
  connections.push(connection);
  return connection;
}

const CLIENT_INFO = { name: 'porch-tests', version: '1.0.0' };
const TASK_CAPABILITIES = { extensions: { [TASKS_EXTENSION]: {} } };

/** The task requester's raw path to this harness, with `key`. */
function rawDispatch(key: string): RawClientDispatch {
  return taskDispatch(mcpUrl(harness), () => ({ 'x-api-key': key }));
}

async function taskSession(key: string) {
  const connection = await connect({ key, era: 'modern', capabilities: TASK_CAPABILITIES });
  return createTaskSessionFromClient(connection.client, {
    endpointId: 'porch-tests',
    rawDispatch: rawDispatch(key),
    v2RequestFraming: { protocolVersion: CURRENT_REVISION, clientInfo: CLIENT_INFO, clientCapabilities: TASK_CAPABILITIES },
  });
}

describe('revision 2026-07-28', () => {
  it('connects a client pinned to the current revision, with the tools its key may use, beside a 2025 client', async () => {
    const { key } = await harness.expertWithKey({ scopes: ['api:context-cards'] });
    const modern = await connect({ key, era: 'modern' });
    expect(modern.client.getProtocolEra()).toBe('modern');
    expect(modern.client.getServerCapabilities()?.extensions).toHaveProperty([TASKS_EXTENSION]);
    const names = (await modern.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('list_context_cards');
    expect(names).not.toContain('execute_workflow');
    const listed = await modern.client.callTool({ name: 'list_context_cards', arguments: {} });
    expect(listed.isError, describeResult(listed)).toBeFalsy();

    const legacy = await connect({ key });
    expect(legacy.client.getProtocolEra()).toBe('legacy');
    expect((await legacy.client.listTools()).tools.map((tool) => tool.name)).toEqual(names);
  });

  it('serves the public tools without a key and refuses a key that does not work with 401', async () => {
    const modern = await connect({ era: 'modern' });
    const names = (await modern.client.listTools()).tools.map((tool) => tool.name);
    expect(names.sort()).toEqual(['analyze_prompt', 'get_health']);
    const analysed = await modern.client.callTool({ name: 'analyze_prompt', arguments: { prompt: 'Write a haiku about autumn in Kyoto.' } });
    expect(analysed.isError, describeResult(analysed)).toBeFalsy();
    await expect(connectHttp(harness, { key: 'mdi_not_a_key', era: 'modern' })).rejects.toThrow(/401|INVALID_API_KEY|nauthori/);
  });

  it('answers an execute without the tasks extension synchronously, as before', async () => {
    const { key, accountId } = await harness.expertWithKey();
    const { ids } = await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE);
    const modern = await connect({ key, era: 'modern' });
    const result = await modern.client.callTool({
      name: 'execute_workflow',
      arguments: { id: ids['workflow:release-announcement'], variables: RELEASE_VARIABLES },
    });
    expect(result.isError, describeResult(result)).toBeFalsy();
    expect((result.structuredContent as { status?: string }).status).toBe('completed');
  });
});

describe('tasks', () => {
  it('runs execute_workflow as a task whose result is the synchronous answer, and the task is the run', async () => {
    const { key, accountId } = await harness.expertWithKey();
    const { ids } = await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE);
    const session = await taskSession(key);
    try {
      const execution = await session.callTool('execute_workflow', { id: ids['workflow:release-announcement'] ?? '', variables: RELEASE_VARIABLES });
      expect(execution.kind).toBe('task');
      const taskId = execution.kind === 'task' ? execution.handle.taskId : '';
      const { outcome } = await execution.settle();
      const result = resultFromTaskOutcome(outcome) as CallToolResult;
      expect(result.isError, describeResult(result)).toBeFalsy();
      const data = result.structuredContent as { run_id: string; status: string; node_results: unknown[] };
      expect(data.status).toBe('completed');
      // As the synchronous call, without include_trace the answer has no trace (regression: it had four nodes).
      expect(data.node_results).toEqual([]);
      // The task id is the run id: the REST API shows the same run, completed, with the same result
      // and, as get_run always does, the trace.
      const run = await harness.api<{ status: string; result: { run_id: string; node_results: unknown[] } }>('GET', `/runs/${taskId}`, { key });
      expect(run.status).toBe(200);
      expect(run.body.data.status).toBe('completed');
      expect(run.body.data.result.run_id).toBe(data.run_id);
      expect(run.body.data.result.node_results).toHaveLength(4);

      const traced = await session.callTool('execute_workflow', {
        id: ids['workflow:release-announcement'] ?? '',
        variables: RELEASE_VARIABLES,
        include_trace: true,
      });
      const tracedResult = resultFromTaskOutcome((await traced.settle()).outcome) as CallToolResult;
      expect((tracedResult.structuredContent as { node_results: unknown[] }).node_results).toHaveLength(4);
    } finally {
      await session.close();
    }
  });
});

describe('tasks: ownership, cancellation and failures', () => {
  it("answers another account's task as not found, exactly like an unknown one", async () => {
    const owner = await harness.expertWithKey();
    const { ids } = await harness.core.bundles.importBundle(owner.accountId, DEMO_BUNDLE);
    const session = await taskSession(owner.key);
    try {
      const execution = await session.callTool('execute_workflow', { id: ids['workflow:release-announcement'] ?? '', variables: RELEASE_VARIABLES });
      const taskId = execution.kind === 'task' ? execution.handle.taskId : '';
      await execution.settle();
      const other = await harness.expertWithKey();
      for (const id of [taskId, '0190a4b0-0000-7000-8000-000000000000']) {
        const answer = await rawDispatch(other.key)({ method: 'tasks/get', params: { taskId: id, _meta: modernEnvelope() } }, undefined);
        expect(answer).toMatchObject({ kind: 'error', error: { code: -32602, data: { code: 'RESOURCE_NOT_FOUND' } } });
      }
    } finally {
      await session.close();
    }
  });

  it('names taskId, the parameter the client sent, when a task id is no run id (regression: "id: must be a uuid")', async () => {
    const { key } = await harness.expertWithKey();
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      const answer = await rawDispatch(key)({ method, params: { taskId: 'not-a-run', _meta: modernEnvelope() } }, undefined);
      expect(answer, method).toMatchObject({
        kind: 'error',
        error: { code: -32602, message: 'VALIDATION_ERROR: Invalid request: taskId: must be a uuid. Fix the request as the message says and send it again.' },
      });
    }
  });

  it('challenges a keyless tasks/get, tasks/cancel and tasks/update with 401, as other keyed requests (regression: 200 with -32602 "send the key")', async () => {
    const taskId = '0190a4b0-0000-7000-8000-000000000000';
    const scopesOf = { 'tasks/get': 'read:usage', 'tasks/update': 'read:usage', 'tasks/cancel': 'execute:workflow' };
    for (const [method, scope] of Object.entries(scopesOf)) {
      const response = await fetch(mcpUrl(harness), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': CURRENT_REVISION,
          'mcp-method': method,
          'mcp-name': taskId,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 5, method, params: { taskId, _meta: modernEnvelope() } }),
      });
      const text = await response.text();
      expect(response.status, `${method}: ${text}`).toBe(401);
      expect(JSON.parse(text)).toMatchObject({ id: 5, error: { code: -32000, data: { code: 'MISSING_API_KEY' } } });
      expect(response.headers.get('www-authenticate')).toMatch(new RegExp(`^Bearer realm="porch", resource_metadata="[^"]+", scope="[^"]*${scope}`));
    }
  });

  it('cancels a queued task: acknowledged, then cancelled, and its run never executes', async () => {
    await harness.close();
    harness = await createHarness({ backgroundWork: false });
    const { key, accountId } = await harness.expertWithKey();
    const { ids } = await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE);
    const dispatch = rawDispatch(key);
    const created = await dispatch(
      {
        method: 'tools/call',
        params: {
          name: 'execute_workflow',
          arguments: { id: ids['workflow:release-announcement'] ?? '', variables: RELEASE_VARIABLES },
          _meta: modernEnvelope(),
        },
      },
      undefined,
    );
    expect(created).toMatchObject({ kind: 'result', result: { resultType: 'task', status: 'working', pollIntervalMs: 1000 } });
    const taskId = created.kind === 'result' ? String((created.result as { taskId: string }).taskId) : '';
    expect(await dispatch({ method: 'tasks/cancel', params: { taskId, _meta: modernEnvelope() } }, undefined)).toMatchObject({ kind: 'result' });
    expect(await dispatch({ method: 'tasks/get', params: { taskId, _meta: modernEnvelope() } }, undefined)).toMatchObject({
      kind: 'result',
      result: { taskId, status: 'cancelled' },
    });
    // Cancelling again is acknowledged too: cancellation is cooperative, a run that ended stays as it ended.
    expect(await dispatch({ method: 'tasks/cancel', params: { taskId, _meta: modernEnvelope() } }, undefined)).toMatchObject({ kind: 'result' });
    const run = await harness.api<{ status: string; started_at: string | null }>('GET', `/runs/${taskId}`, { key });
    expect(run.body.data).toMatchObject({ status: 'cancelled', started_at: null });
  });

  it('gives a run that failed as a completed task whose result is the isError answer, code first', () => {
    const failed = taskOfRun(
      failedRun({
        kind: 'composition',
        operation: 'execute_composition',
        inputs: {},
        result: { error: { code: 'INSUFFICIENT_CREDITS', message: 'Not enough credits.' } },
      }),
      30,
      harness.config.errorCodes,
    );
    expect(failed).toMatchObject({
      status: 'completed',
      lastUpdatedAt: '2026-11-28T00:00:02.000Z',
      ttlMs: 30 * 86_400_000,
      result: { resultType: 'complete', isError: true },
    });
    expect(JSON.stringify(failed)).toMatch(/"text":"INSUFFICIENT_CREDITS: Not enough credits\./);
  });

  it('reads back a code get_run answered under Set B, so a failed task names it (regression: INTERNAL_ERROR with PORCH_ERROR_CODES=b)', () => {
    for (const [shown, named] of [
      ['INVALID_REQUEST', 'INVALID_REQUEST: Missing required variable: secs.'],
      ['UNAUTHORIZED', 'UNAUTHORIZED: The key was revoked. Do not retry'],
      ['AI_SERVICE_ERROR', 'AI_SERVICE_ERROR: The provider failed.'],
    ] as const) {
      const message = named.slice(shown.length + 2).replace(/ Do not retry$/, '');
      const failed = taskOfRun(
        failedRun({ kind: 'composition', operation: 'execute_composition', inputs: {}, result: { error: { code: shown, message } } }),
        30,
        'b',
      );
      expect(JSON.stringify(failed), shown).toContain(`"text":"${named}`);
    }
  });

  it('gives a workflow whose node failed its answer as data, as the synchronous call does (regression: INTERNAL_ERROR)', () => {
    const answer = {
      run_id: '0190a4b0-0000-7000-8000-000000000003',
      version: 1,
      status: 'failed',
      outputs: {},
      node_results: [{ node_id: 'j', status: 'failed', error: { code: 'AI_SERVICE_ERROR', message: 'Unreadable verdict.' } }],
      duration_ms: 5,
      token_usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    };
    const failed = taskOfRun(
      failedRun({
        id: answer.run_id,
        kind: 'workflow',
        operation: 'execute_workflow',
        token_usage: answer.token_usage,
        credits_charged: 0.015,
        inputs: { variables: {}, include_trace: true },
        result: answer,
      }),
      30,
      harness.config.errorCodes,
    );
    expect(failed).toMatchObject({ status: 'completed', statusMessage: 'Failed.', result: { resultType: 'complete', structuredContent: answer } });
    expect(failed.result).not.toHaveProperty('isError', true);
  });
});

/** A run that failed, as get_run answers it, with what a test sets on top. */
function failedRun(overrides: Partial<Parameters<typeof taskOfRun>[0]>): Parameters<typeof taskOfRun>[0] {
  return {
    id: '0190a4b0-0000-7000-8000-000000000001',
    kind: 'composition',
    operation: 'execute_composition',
    resource_id: '0190a4b0-0000-7000-8000-000000000002',
    version: 1,
    status: 'failed',
    model: null,
    key_id: null,
    token_usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
    credits_charged: 0,
    duration_ms: 5,
    created_at: '2026-11-28T00:00:00.000Z',
    started_at: '2026-11-28T00:00:01.000Z',
    finished_at: '2026-11-28T00:00:02.000Z',
    attempts: 1,
    cancel_requested: false,
    payload_available: true,
    inputs: {},
    result: null,
    ...overrides,
  };
}

/** The per-request envelope a 2026-07-28 client with the tasks extension puts on every request. */
function modernEnvelope() {
  return {
    'io.modelcontextprotocol/protocolVersion': CURRENT_REVISION,
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
    'io.modelcontextprotocol/clientCapabilities': TASK_CAPABILITIES,
  };
}
