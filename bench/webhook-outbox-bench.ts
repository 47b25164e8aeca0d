/**
 * What the webhook outbox adds to recording a run on SQLite (a file database in WAL mode, as
 * served): the run insert alone (as before webhooks), the insert with its event for an account
 * without endpoints (what every execution now pays), and with one and with three subscribed
 * endpoints (one outbox row each). Run with `npx tsx bench/webhook-outbox-bench.ts`; results are
 * recorded in bench/WEBHOOKS.md.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { newId } from '../src/core/ids.js';
import { runFinishedEvents } from '../src/core/webhooks/events.js';
import { createStore } from '../src/db/create-store.js';
import type { RunRecord, Store } from '../src/db/store.js';

const WARMUP_INSERTS = 2_000;
const MEASURED_INSERTS = 20_000;
const ROUNDS = 5;

function run(accountId: string): RunRecord {
  return {
    id: newId(),
    accountId,
    keyId: newId(),
    kind: 'composition',
    resourceId: newId(),
    version: 1,
    status: 'completed',
    model: 'echo/echo',
    inputTokens: 120,
    outputTokens: 80,
    totalTokens: 200,
    chargedTokens: 200,
    durationMs: 12,
    createdAt: Date.now(),
    payload: { inputs: { variables: { product: 'Porch' } }, result: { content: 'x'.repeat(400) } },
    keyKind: 'api_key',
    attempts: 0,
    claimedBy: null,
    startedAt: Date.now() - 12,
    finishedAt: Date.now(),
    cancelRequestedAt: null,
    traceContext: null,
  };
}

async function account(store: Store, endpoints: number): Promise<string> {
  const organisationId = newId();
  const accountId = newId();
  await store.accounts.create({
    account: { id: accountId, organisationId, email: `${accountId}@example.com`, name: null, plan: 'expert', downgradedAt: null, createdAt: Date.now() },
    organisation: {
      id: organisationId,
      name: 'bench',
      euOnlyModels: false,
      strictByok: false,
      ownerAccountId: accountId,
      sanitiserRulesVersion: 0,
      guardrailInputs: 'off',
      guardrailOutputs: 'off',
      guardrailMinSeverity: 'warn',
      createdAt: Date.now(),
    },
    initialTokens: 0,
    grantEntryId: newId(),
  });
  for (let index = 0; index < endpoints; index++) {
    await store.webhooks.insertEndpointIfBelowLimit({
      endpoint: {
        id: newId(),
        accountId,
        url: 'https://hooks.example.com/',
        description: null,
        events: ['run.completed'],
        enabled: true,
        encryptedSecret: 'v1.x.y.z',
        previousEncryptedSecret: null,
        previousSecretExpiresAt: null,
        createdAt: Date.now(),
        updatedAt: Date.now(),
      },
      maxPerAccount: 10,
    });
  }
  return accountId;
}

async function measure(store: Store, accountId: string, withEvents: boolean): Promise<number> {
  for (let index = 0; index < WARMUP_INSERTS; index++) {
    const record = run(accountId);
    await store.runs.insert(record, withEvents ? runFinishedEvents(record, record.finishedAt ?? record.createdAt) : []);
  }
  const started = performance.now();
  for (let index = 0; index < MEASURED_INSERTS; index++) {
    const record = run(accountId);
    await store.runs.insert(record, withEvents ? runFinishedEvents(record, record.finishedAt ?? record.createdAt) : []);
  }
  return ((performance.now() - started) * 1_000) / MEASURED_INSERTS;
}

const directory = await mkdtemp(join(tmpdir(), 'porch-outbox-bench-'));
try {
  const store = await createStore(`file:${join(directory, 'bench.db')}`);
  const cases = [
    { name: 'run insert alone (before webhooks)', endpoints: 0, events: false },
    { name: 'run + event, account without endpoints', endpoints: 0, events: true },
    { name: 'run + event, 1 subscribed endpoint', endpoints: 1, events: true },
    { name: 'run + event, 3 subscribed endpoints', endpoints: 3, events: true },
  ];
  const accounts = await Promise.all(cases.map((each) => account(store, each.endpoints)));
  const results = new Map<string, number[]>();
  // Rounds interleave the cases, so a slower moment of a shared machine hits all of them alike.
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, each] of cases.entries()) {
      const microseconds = await measure(store, accounts[index] ?? '', each.events);
      results.set(each.name, [...(results.get(each.name) ?? []), microseconds]);
    }
  }
  console.log(`SQLite file (WAL), ${MEASURED_INSERTS} inserts per case and round, median of ${ROUNDS} rounds:`);
  for (const [name, samples] of results) {
    const sorted = [...samples].sort((a, b) => a - b);
    console.log(`  ${name.padEnd(44)} ${(sorted[Math.floor(sorted.length / 2)] ?? 0).toFixed(1)} µs per insert`);
  }
  await store.close();
} finally {
  await rm(directory, { recursive: true, force: true });
}
