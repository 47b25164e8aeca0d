/**
 * The migration that replaced `workflow_runs` with `runs` moves every recorded workflow run over:
 * its tokens from the stored result, its key and charge from the run's own usage row, its result
 * as the payload; the migration that made runs a queue then fills in its columns for them. Run on
 * each engine against the table as the first migration made it.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { isPostgresStore } from '../../src/db/postgres/index.js';
import { isSqliteStore } from '../../src/db/sqlite/index.js';
import type { Store } from '../../src/db/store.js';
import { describeEachEngine } from './engines.js';
import { createAccount, T0, usageRecord } from './fixtures.js';

/** The statements of a committed migration file that match `pattern`. */
function statementsOf(path: string, pattern: RegExp): string[] {
  return readFileSync(new URL(`../../src/db/${path}`, import.meta.url), 'utf8')
    .split('--> statement-breakpoint')
    .filter((statement) => pattern.test(statement));
}

async function execute(store: Store, statements: readonly string[], parameters: unknown[][] = []): Promise<void> {
  for (const [index, statement] of statements.entries()) {
    if (isSqliteStore(store)) store.database.sqlite.prepare(statement).run(...(parameters[index] ?? []));
    else if (isPostgresStore(store)) await store.database.pool.query(statement, parameters[index] ?? []);
    else throw new Error('unknown engine');
  }
}

describeEachEngine('runs migration', (engine) => {
  it('moves recorded workflow runs into runs with their tokens, key, charge and result', async () => {
    const { store } = engine();
    const sqlite = isSqliteStore(store);
    const folder = sqlite ? 'sqlite/migrations' : 'postgres/migrations';
    const [createOld] = statementsOf(`${folder}/0000_init.sql`, /CREATE TABLE [`"]workflow_runs[`"]/);
    const [copy] = statementsOf(sqlite ? `${folder}/0005_runs.sql` : `${folder}/0002_runs.sql`, /INSERT INTO/);
    // The migration that made runs a queue then backfills what it added for the runs recorded before it.
    const [backfill] = statementsOf(sqlite ? `${folder}/0008_async_runs.sql` : `${folder}/0005_async_runs.sql`, /UPDATE/);
    if (!createOld || !copy || !backfill) throw new Error('the migration statements were not found');
    const { account } = await createAccount(store);
    const keyId = newId();
    const [runId, orphanId] = [newId(), newId()];
    const result = {
      run_id: runId,
      status: 'completed',
      outputs: { post: 'hi' },
      node_results: [],
      duration_ms: 9,
      token_usage: { input_tokens: 4, output_tokens: 6, total_tokens: 10 },
    };
    await store.usage.insert(
      usageRecord(account.id, { apiKeyId: keyId, operation: 'execute_workflow', runId, model: null, chargedTokens: 10, totalTokens: 10 }),
    );
    await store.usage.insert(usageRecord(account.id, { apiKeyId: keyId, operation: 'execute_workflow', runId, nodeId: 'draft', chargedTokens: 10 }));
    const insertOld = sqlite
      ? 'INSERT INTO workflow_runs (id, workflow_id, account_id, status, result, duration_ms, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)'
      : 'INSERT INTO workflow_runs (id, workflow_id, account_id, status, result, duration_ms, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)';
    const workflowId = newId();
    await execute(
      store,
      [createOld, insertOld, insertOld, copy, backfill],
      [[], [runId, workflowId, account.id, 'completed', JSON.stringify(result), 9, T0], [orphanId, workflowId, account.id, 'failed', '{}', 3, T0 + 1]],
    );
    expect(await store.runs.findOwned({ accountId: account.id, id: runId })).toEqual({
      id: runId,
      accountId: account.id,
      keyId,
      kind: 'workflow',
      resourceId: workflowId,
      // Every resource was at version 1 before versions existed.
      version: 1,
      status: 'completed',
      model: null,
      inputTokens: 4,
      outputTokens: 6,
      totalTokens: 10,
      chargedTokens: 10,
      durationMs: 9,
      createdAt: T0,
      payload: { inputs: null, result },
      keyKind: 'api_key',
      attempts: 0,
      claimedBy: null,
      startedAt: T0 - 9,
      finishedAt: T0,
      cancelRequestedAt: null,
      traceContext: null,
    });
    expect(await store.runs.findOwned({ accountId: account.id, id: orphanId }), 'a run without usage rows moves with zeros').toMatchObject({
      keyId: null,
      keyKind: null,
      status: 'failed',
      totalTokens: 0,
      chargedTokens: 0,
      payload: { inputs: null, result: {} },
    });
  });
});
