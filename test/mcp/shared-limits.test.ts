/**
 * One key, two doors: REST and MCP calls of the same key draw on the same rate-limit window and
 * the same credit balance, and both leave usage rows, because both take the same invocation path.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { executePersona } from '../../src/operations/execute-persona.js';
import type { Operation, OperationOutput } from '../../src/operations/operation.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { connectHttp, describeResult, operationNamed, resultText, sampleFor, toolArguments, type McpConnection } from '../helpers/mcp-client.js';
import { defined } from '../helpers/defined.js';

let harness: Harness;
let connection: McpConnection | undefined;
beforeEach(async () => {
  harness = await createHarness();
  // Start 10 s into a minute so the window cannot roll over mid-test.
  harness.clock.set(Date.UTC(2026, 5, 1, 12, 0, 10));
});
afterEach(async () => {
  await connection?.close();
  connection = undefined;
  await harness.close();
});

/** Enough REST executions to spend 2 credits with the echo model, with a wide margin. */
const MAX_DRAIN_ATTEMPTS = 60;

const executePersonaOperation: Operation = operationNamed('execute_persona');

describe("REST and MCP share one key's limits", () => {
  it('counts calls through both doors in one per-minute window, and refuses the next in either', async () => {
    const { key } = await harness.expertWithKey({ rpm: 4 });
    connection = await connectHttp(harness, { key });
    const mcpCall = () => defined(connection, 'the MCP connection').client.callTool({ name: 'list_context_cards', arguments: {} });

    expect((await harness.api('GET', '/context-cards', { key })).headers.get('x-ratelimit-remaining')).toBe('3');
    expect((await mcpCall())._meta).toMatchObject({ 'porch/rate-limit': { limit: 4, remaining: 2 } });
    expect((await harness.api('GET', '/context-cards', { key })).headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await mcpCall())._meta).toMatchObject({ 'porch/rate-limit': { remaining: 0 } });

    const rest = await harness.api('GET', '/context-cards', { key });
    expect(rest.status, describeResponse(rest)).toBe(429);
    const mcp = await mcpCall();
    expect(mcp.isError, describeResult(mcp)).toBe(true);
    expect(resultText(mcp)).toMatch(/^RATE_LIMITED: Rate limit of 4 requests per minute exceeded\. Retry after 50 seconds\./);
    expect(mcp._meta).toMatchObject({ 'porch/error': { code: 'RATE_LIMITED', retry_after: 50 } });
  });

  it('spends one credit balance: executions through either door are charged once each and recorded', async () => {
    const { key, accountId } = await harness.expertWithKey();
    const sample = await sampleFor(harness, 'execute_persona', accountId);
    const balance = async () => (await harness.store.credits.balance(accountId)).balanceTokens;
    const start = await balance();

    const rest = await harness.api<OperationOutput<typeof executePersona>>('POST', sample.path, { key, body: sample.body });
    expect(rest.status, describeResponse(rest)).toBe(200);
    const restTokens = rest.body.data.token_usage.total_tokens;
    expect(await balance()).toBe(start - restTokens);

    connection = await connectHttp(harness, { key });
    await connection.client.listTools();
    const mcp = await connection.client.callTool({ name: 'execute_persona', arguments: toolArguments(executePersonaOperation, sample) });
    expect(mcp.isError, describeResult(mcp)).toBeFalsy();
    const mcpTokens = (mcp.structuredContent as OperationOutput<typeof executePersona>).token_usage.total_tokens;
    expect(mcpTokens).toBeGreaterThan(0);
    expect(await balance()).toBe(start - restTokens - mcpTokens);
    expect(mcp._meta).toMatchObject({ 'porch/credits-remaining': Math.floor((start - restTokens - mcpTokens) / 1000) });

    const usage = await harness.store.usage.listByAccount(accountId);
    expect(usage.map((row) => [row.operation, row.chargedTokens])).toEqual(
      expect.arrayContaining([
        ['execute_persona', restTokens],
        ['execute_persona', mcpTokens],
      ]),
    );
    expect(usage).toHaveLength(2);
  });

  it('refuses an execution through MCP with INSUFFICIENT_CREDITS once REST has spent the balance', async () => {
    const { key, accountId } = await harness.expertWithKey({ credits: 2 });
    const sample = await sampleFor(harness, 'execute_persona', accountId);
    // Execute over REST until the balance no longer covers a reservation.
    let restRuns = 0;
    for (let attempt = 0; attempt < MAX_DRAIN_ATTEMPTS; attempt += 1) {
      const rest = await harness.api('POST', sample.path, { key, body: sample.body });
      if (rest.status === 402) break;
      expect(rest.status, describeResponse(rest)).toBe(200);
      restRuns += 1;
    }
    expect(restRuns).toBeGreaterThan(0);

    connection = await connectHttp(harness, { key });
    const mcp = await connection.client.callTool({ name: 'execute_persona', arguments: toolArguments(executePersonaOperation, sample) });
    expect(mcp.isError, describeResult(mcp)).toBe(true);
    expect(resultText(mcp)).toMatch(/^INSUFFICIENT_CREDITS: .*Do not retry; add credits to the account first\.$/);
    expect(await harness.store.usage.listByAccount(accountId)).toHaveLength(restRuns);
  });
});
