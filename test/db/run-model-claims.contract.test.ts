/**
 * Storage contract for the models a queued run was accepted for (QueuedRunModels): a claim that
 * says what its process serves takes only the runs whose models it covers, oldest first, and
 * leaves the others queued for a process that serves them; a run without models, and a claim
 * without `serves`, match any.
 */
import { expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import type { QueuedRunModels, ServedModels, Store } from '../../src/db/store.js';
import { describeEachEngine } from './engines.js';
import { createAccount, INSTANCE_ID, T0 } from './fixtures.js';

const SERVER: ServedModels = { ids: ['openai/gpt-4o-mini', 'echo/echo'], defaultModel: 'openai/gpt-4o-mini' };
const ECHO_ONLY: ServedModels = { ids: ['echo/echo'], defaultModel: 'echo/echo' };

async function enqueue(store: Store, accountId: string, models: QueuedRunModels | null): Promise<string> {
  const id = newId();
  await store.runs.enqueue({
    id,
    accountId,
    keyId: newId(),
    keyKind: 'api_key',
    kind: 'composition',
    resourceId: newId(),
    version: 1,
    createdAt: T0,
    inputs: { variables: {} },
    models,
  });
  return id;
}

const claimAs = (store: Store, serves: ServedModels | undefined) =>
  store.runs.claim({ instanceId: INSTANCE_ID, now: T0 + 1_000, maxRunningPerAccount: 10, ...(serves === undefined ? {} : { serves }) });

describeEachEngine('run queue: the models a run was accepted for', (engine) => {
  it('a process claims only the runs whose models it serves, and with the default model they rely on', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const named = await enqueue(store, account.id, { ids: ['openai/gpt-4o-mini'], defaultModel: null });
    const onDefault = await enqueue(store, account.id, { ids: ['openai/gpt-4o-mini'], defaultModel: 'openai/gpt-4o-mini' });
    const onEcho = await enqueue(store, account.id, { ids: ['echo/echo'], defaultModel: null });
    const echoDefault = await enqueue(store, account.id, { ids: ['echo/echo'], defaultModel: 'echo/echo' });
    const noModels = await enqueue(store, account.id, { ids: [], defaultModel: null });
    const unpinned = await enqueue(store, account.id, null);

    // The echo-only process: never the server's model, nor a run relying on the server's default.
    const echoClaims: Array<string | undefined> = [];
    for (let claimed = await claimAs(store, ECHO_ONLY); claimed !== null; claimed = await claimAs(store, ECHO_ONLY)) echoClaims.push(claimed.id);
    expect(echoClaims).toEqual([onEcho, echoDefault, noModels, unpinned]);

    // The server's process: what is left, oldest first (not the echo-default run: it was taken).
    expect((await claimAs(store, SERVER))?.id).toBe(named);
    expect((await claimAs(store, SERVER))?.id).toBe(onDefault);
    expect(await claimAs(store, SERVER)).toBeNull();
  });

  it('leaves a run relying on another default model queued, and a claim without `serves` takes any run', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const echoDefault = await enqueue(store, account.id, { ids: ['echo/echo'], defaultModel: 'echo/echo' });
    expect(await claimAs(store, SERVER), 'the server serves echo/echo, but its default is another model').toBeNull();
    const queued = await store.runs.findOwned({ accountId: account.id, id: echoDefault });
    expect(queued?.status).toBe('queued');
    expect(queued?.payload?.models).toEqual({ ids: ['echo/echo'], defaultModel: 'echo/echo' });
    expect((await claimAs(store, undefined))?.id).toBe(echoDefault);
  });
});
