/**
 * Storage contract for webhooks, on every engine: the outbox rows are written with the run (one
 * per enabled endpoint subscribed to the event's type, none otherwise), credits.low only in the
 * settlement that crosses the threshold, claims are atomic and expire, attempts are logged and
 * outlive the pruned payload, endpoints are their owner's only.
 */
import { expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import type {
  RecordedRun,
  Store,
  WebhookClaimRequest,
  WebhookClaimShares,
  WebhookEndpointBusy,
  WebhookEndpointRecord,
  WebhookEventRecord,
  WebhookEventType,
} from '../../src/db/store.js';
import { describeEachEngine } from './engines.js';
import { createAccount, INSTANCE_ID, MINUTE_MS, T0 } from './fixtures.js';

function endpointRecord(accountId: string, overrides: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord {
  return {
    id: newId(),
    accountId,
    url: 'https://hooks.example.com/porch',
    description: null,
    events: ['run.completed', 'run.failed'],
    enabled: true,
    encryptedSecret: 'v1.secret-now',
    previousEncryptedSecret: null,
    previousSecretExpiresAt: null,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

function eventRecord(accountId: string, type: WebhookEventType = 'run.completed', at = T0): WebhookEventRecord {
  return { id: newId(), accountId, type, payload: JSON.stringify({ type, timestamp: new Date(at).toISOString(), data: {} }), createdAt: at };
}

function runRecord(accountId: string): RecordedRun {
  return {
    id: newId(),
    accountId,
    keyId: null,
    kind: 'composition',
    resourceId: newId(),
    version: 1,
    status: 'completed',
    model: 'echo/echo',
    inputTokens: 1,
    outputTokens: 1,
    totalTokens: 2,
    chargedTokens: 2,
    durationMs: 1,
    createdAt: T0,
    payload: null,
  };
}

async function addEndpoint(store: Store, endpoint: WebhookEndpointRecord): Promise<WebhookEndpointRecord> {
  expect(await store.webhooks.insertEndpointIfBelowLimit({ endpoint, maxPerAccount: 10 })).toBe(true);
  return endpoint;
}

/** A claim at `now` by a process with nothing in flight and no bound that binds, as `overrides` change it. */
function claimRequest(
  now: number,
  limit: number,
  {
    shares = {},
    busy = new Map(),
    failing = new Map(),
  }: { shares?: Partial<WebhookClaimShares>; busy?: WebhookClaimRequest['busy']; failing?: WebhookClaimRequest['failing'] } = {},
): WebhookClaimRequest {
  return {
    now,
    limit,
    claimUntil: now + MINUTE_MS,
    shares: { perEndpoint: 100, perAccount: 100, failingPerAccount: 100, failing: 100, ...shares },
    busy,
    failing,
  };
}

/** `count` attempts in flight at `endpoint`. */
const busyAt = (endpoint: WebhookEndpointRecord, count: number): [string, WebhookEndpointBusy] => [endpoint.id, { accountId: endpoint.accountId, count }];
const claimAll = (store: Store, now = T0) => store.webhooks.claimDue(claimRequest(now, 100));

describeEachEngine('webhook storage', (engine, definition) => {
  it('a run insert writes one delivery per enabled endpoint of its account subscribed to the event, in its transaction', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const { account: other } = await createAccount(store);
    const subscribed = await addEndpoint(store, endpointRecord(account.id));
    const secondSubscribed = await addEndpoint(store, endpointRecord(account.id, { events: ['run.completed'] }));
    await addEndpoint(store, endpointRecord(account.id, { events: ['credits.low'] }));
    await addEndpoint(store, endpointRecord(account.id, { enabled: false }));
    await addEndpoint(store, endpointRecord(other.id));
    const run = runRecord(account.id);
    const event = eventRecord(account.id);
    await store.runs.insert(run, [event]);
    expect(await store.runs.findOwned({ accountId: account.id, id: run.id })).not.toBeNull();
    const claimed = await claimAll(store);
    expect(claimed.map((delivery) => delivery.endpointId).sort()).toEqual([subscribed.id, secondSubscribed.id].sort());
    expect(claimed.every((delivery) => delivery.eventId === event.id && delivery.payload === event.payload && delivery.status === 'pending')).toBe(true);
  });

  it('a run whose insert fails leaves no delivery behind', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    await addEndpoint(store, endpointRecord(account.id));
    const run = runRecord(account.id);
    await store.runs.insert(run, [eventRecord(account.id)]);
    // The same run id again: the run insert fails, and its event must not be queued.
    await expect(store.runs.insert(run, [eventRecord(account.id)])).rejects.toThrow();
    expect(await claimAll(store)).toHaveLength(1);
  });

  it('a claim is exclusive until it expires, and a crashed claim is retried after', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    await addEndpoint(store, endpointRecord(account.id));
    await store.webhooks.enqueue(eventRecord(account.id));
    expect(await claimAll(store)).toHaveLength(1);
    expect(await claimAll(store, T0 + 1_000)).toHaveLength(0);
    expect(await claimAll(store, T0 + MINUTE_MS)).toHaveLength(1);
  });

  it('a delivery is not due before its next attempt time, and an attempt moves it on', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const endpoint = await addEndpoint(store, endpointRecord(account.id));
    const event = eventRecord(account.id);
    await store.webhooks.enqueue(event);
    expect(await claimAll(store, T0 - 1)).toHaveLength(0);
    const [claimed] = await claimAll(store);
    expect(claimed?.url).toBe(endpoint.url);
    await store.webhooks.recordAttempt({
      attempt: { id: newId(), endpointId: endpoint.id, eventId: event.id, attemptedAt: T0, statusCode: 500, durationMs: 12, error: 'http_status' },
      status: 'pending',
      nextAttemptAt: T0 + 5_000,
    });
    expect(await claimAll(store, T0 + 4_999)).toHaveLength(0);
    const [again] = await claimAll(store, T0 + 5_000);
    expect(again).toMatchObject({ attempts: 1, lastStatusCode: 500, lastError: 'http_status' });
    await store.webhooks.recordAttempt({
      attempt: { id: newId(), endpointId: endpoint.id, eventId: event.id, attemptedAt: T0 + 5_000, statusCode: 204, durationMs: 3, error: null },
      status: 'succeeded',
      nextAttemptAt: null,
    });
    expect(await claimAll(store, T0 + 99 * MINUTE_MS)).toHaveLength(0);
    const [delivery] = await store.webhooks.listDeliveries({ accountId: account.id, id: endpoint.id, page: {} });
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 2, lastStatusCode: 204, nextAttemptAt: null });
    const attempts = await store.webhooks.listAttempts({ endpointId: endpoint.id, eventIds: [event.id] });
    expect(attempts.map((attempt) => [attempt.statusCode, attempt.durationMs, attempt.error])).toEqual([
      [500, 12, 'http_status'],
      [204, 3, null],
    ]);
  });

  it.runIf(definition.shared)('two processes claiming at once never claim the same delivery', async () => {
    const { store, openAnother } = engine();
    const { account } = await createAccount(store);
    const other = await openAnother();
    await addEndpoint(store, endpointRecord(account.id));
    for (let index = 0; index < 20; index++) await store.webhooks.enqueue(eventRecord(account.id));
    const claims = await Promise.all([store, other, store, other].map((each) => each.webhooks.claimDue(claimRequest(T0, 7))));
    // SKIP LOCKED lets a claimer pass over rows another holds for the moment, so the parallel
    // claims may leave some for the next poll; what they take is never taken twice.
    const ids = claims.flat().map((delivery) => delivery.eventId);
    for (let poll = 0; poll < 10 && ids.length < 20; poll++) {
      const next = await store.webhooks.claimDue(claimRequest(T0, 7));
      ids.push(...next.map((delivery) => delivery.eventId));
    }
    expect(new Set(ids).size, 'no delivery is claimed twice').toBe(ids.length);
    expect(ids).toHaveLength(20);
  });

  it('a claim takes at most the per-endpoint bound, counting what is busy, so other endpoints get slots', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const crowded = await addEndpoint(store, endpointRecord(account.id));
    const quiet = await addEndpoint(store, endpointRecord(account.id, { events: ['credits.low'] }));
    for (let index = 0; index < 10; index++) await store.webhooks.enqueue(eventRecord(account.id));
    await store.webhooks.enqueue(eventRecord(account.id, 'credits.low', T0 + 1));
    const claimed = await store.webhooks.claimDue(claimRequest(T0 + 1, 4, { shares: { perEndpoint: 2 }, busy: new Map([busyAt(crowded, 1)]) }));
    expect(claimed.filter((delivery) => delivery.endpointId === crowded.id)).toHaveLength(1);
    expect(claimed.filter((delivery) => delivery.endpointId === quiet.id)).toHaveLength(1);
  });

  it("a backlog at an endpoint the claimer has saturated never keeps another endpoint's deliveries from being claimed (regression: a hung receiver starved every account)", async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const hung = await addEndpoint(store, endpointRecord(account.id));
    const healthy = await addEndpoint(store, endpointRecord(account.id, { events: ['credits.low'] }));
    for (let index = 0; index < 30; index++) await store.webhooks.enqueue(eventRecord(account.id));
    await store.webhooks.enqueue(eventRecord(account.id, 'credits.low', T0 + 1));
    // Far more of the hung endpoint's deliveries are due, earlier, than the claim reads candidates.
    const claimed = await store.webhooks.claimDue(claimRequest(T0 + 1, 2, { shares: { perEndpoint: 4 }, busy: new Map([busyAt(hung, 4)]) }));
    expect(claimed.map((delivery) => delivery.endpointId)).toEqual([healthy.id]);
  });

  it("a claim takes at most the account's share across all its endpoints, counting what is busy, so another account's later delivery is claimed (regression: five hanging endpoints of one account filled every slot)", async () => {
    const { store } = engine();
    const { account: crowded } = await createAccount(store);
    const { account: other } = await createAccount(store);
    const crowdedEndpoints: WebhookEndpointRecord[] = [];
    for (let index = 0; index < 5; index++) crowdedEndpoints.push(await addEndpoint(store, endpointRecord(crowded.id)));
    const healthy = await addEndpoint(store, endpointRecord(other.id));
    for (let index = 0; index < 4; index++) await store.webhooks.enqueue(eventRecord(crowded.id));
    await store.webhooks.enqueue(eventRecord(other.id, 'run.completed', T0 + 1));
    const [busyEndpoint] = crowdedEndpoints;
    if (!busyEndpoint) throw new Error('no endpoint');
    const claimed = await store.webhooks.claimDue(
      claimRequest(T0 + 1, 8, { shares: { perEndpoint: 4, perAccount: 2 }, busy: new Map([busyAt(busyEndpoint, 1)]) }),
    );
    expect(claimed.filter((delivery) => delivery.accountId === crowded.id)).toHaveLength(1);
    expect(claimed.filter((delivery) => delivery.endpointId === healthy.id)).toHaveLength(1);

    // An account at its share is left out of the candidates: its backlog, however long, cannot hide another account's delivery.
    const atShare = await store.webhooks.claimDue(claimRequest(T0 + 1, 1, { shares: { perAccount: 2 }, busy: new Map([busyAt(busyEndpoint, 2)]) }));
    expect(atShare).toEqual([]);
    await store.webhooks.enqueue(eventRecord(other.id, 'run.completed', T0 + 2));
    const behindBacklog = await store.webhooks.claimDue(claimRequest(T0 + 2, 1, { shares: { perAccount: 2 }, busy: new Map([busyAt(busyEndpoint, 2)]) }));
    expect(behindBacklog.map((delivery) => delivery.endpointId)).toEqual([healthy.id]);
  });

  it('an endpoint whose last attempt failed gets one attempt at most, and failing endpoints together at most their share, so a healthy endpoint still gets a slot', async () => {
    const { store } = engine();
    const accounts = [(await createAccount(store)).account, (await createAccount(store)).account, (await createAccount(store)).account];
    const failing: WebhookEndpointRecord[] = [];
    for (const account of accounts) failing.push(await addEndpoint(store, endpointRecord(account.id)));
    const { account: healthyAccount } = await createAccount(store);
    const healthy = await addEndpoint(store, endpointRecord(healthyAccount.id));
    for (let index = 0; index < 3; index++) for (const account of accounts) await store.webhooks.enqueue(eventRecord(account.id));
    await store.webhooks.enqueue(eventRecord(healthyAccount.id, 'run.completed', T0 + 1));
    const failingIds = new Map(failing.map((endpoint) => [endpoint.id, endpoint.accountId]));
    const [first, second, third] = failing;
    if (!first || !second || !third) throw new Error('three endpoints expected');

    // The first failing endpoint has its one attempt in flight: one of the two others takes the last place of the share.
    const claimed = await store.webhooks.claimDue(
      claimRequest(T0 + 1, 8, { shares: { perEndpoint: 4, failing: 2 }, busy: new Map([busyAt(first, 1)]), failing: failingIds }),
    );
    const byEndpoint = (id: string) => claimed.filter((delivery) => delivery.endpointId === id).length;
    expect([byEndpoint(first.id), byEndpoint(second.id) + byEndpoint(third.id), byEndpoint(healthy.id)]).toEqual([0, 1, 1]);

    // With the share full, failing endpoints are left out of the candidates: their backlog cannot hide a healthy delivery.
    await store.webhooks.enqueue(eventRecord(healthyAccount.id, 'run.completed', T0 + 2));
    const shareFull = await store.webhooks.claimDue(
      claimRequest(T0 + 2, 1, { shares: { failing: 1 }, busy: new Map([busyAt(first, 1)]), failing: failingIds }),
    );
    expect(shareFull.map((delivery) => delivery.endpointId)).toEqual([healthy.id]);
  });

  it("an account's failing endpoints hold at most their part of its share, so its endpoint that answers still gets a slot", async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const failing: WebhookEndpointRecord[] = [];
    for (let index = 0; index < 3; index++) failing.push(await addEndpoint(store, endpointRecord(account.id)));
    const answering = await addEndpoint(store, endpointRecord(account.id, { events: ['credits.low'] }));
    for (let index = 0; index < 10; index++) await store.webhooks.enqueue(eventRecord(account.id));
    await store.webhooks.enqueue(eventRecord(account.id, 'credits.low', T0 + 1));
    const [first] = failing;
    if (!first) throw new Error('no endpoint');
    // The account may have three attempts in flight, one of them to a failing endpoint, which it has.
    const claimed = await store.webhooks.claimDue(
      claimRequest(T0 + 1, 1, {
        shares: { perEndpoint: 4, perAccount: 3, failingPerAccount: 1 },
        busy: new Map([busyAt(first, 1)]),
        failing: new Map(failing.map((endpoint) => [endpoint.id, endpoint.accountId])),
      }),
    );
    expect(claimed.map((delivery) => delivery.endpointId)).toEqual([answering.id]);
  });

  it('a claim leaving out more failing endpoints than a statement takes parameters still claims the others (regression: past 65,535 ids PostgreSQL refused the claim and no webhook was delivered)', async () => {
    const { store } = engine();
    const { account: failingAccount } = await createAccount(store);
    const failingEndpoint = await addEndpoint(store, endpointRecord(failingAccount.id));
    const { account: healthyAccount } = await createAccount(store);
    const healthy = await addEndpoint(store, endpointRecord(healthyAccount.id));
    await store.webhooks.enqueue(eventRecord(failingAccount.id));
    await store.webhooks.enqueue(eventRecord(healthyAccount.id, 'run.completed', T0 + 1));
    // The failing share is full (one attempt in flight), so every endpoint remembered as failing is
    // left out: more of them than SQLite (32,766) or PostgreSQL (65,535) take parameters.
    const busyFailing: [string, WebhookEndpointBusy] = [newId(), { accountId: newId(), count: 1 }];
    const failing = new Map([
      [failingEndpoint.id, failingAccount.id],
      [busyFailing[0], busyFailing[1].accountId],
    ]);
    for (let index = 0; index < 70_000; index++) failing.set(newId(), newId());
    const claimed = await store.webhooks.claimDue(claimRequest(T0 + 1, 4, { shares: { failing: 1 }, busy: new Map([busyFailing]), failing }));
    expect(claimed.map((delivery) => delivery.endpointId)).toEqual([healthy.id]);
  });

  it('credits.low is written only by the settlement that takes the balance across the threshold', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 10_000);
    await addEndpoint(store, endpointRecord(account.id, { events: ['credits.low'] }));
    await store.credits.setLowBalanceThreshold({ accountId: account.id, thresholdTokens: 5_000, at: T0 });
    expect(await store.credits.lowBalanceThreshold(account.id)).toBe(5_000);
    const crossings: number[] = [];
    const charge = async (tokens: number) => {
      const reservationId = newId();
      await store.credits.reserve({
        accountId: account.id,
        tokens,
        minimumAvailableTokens: 0,
        at: T0,
        expiresAt: T0 + MINUTE_MS,
        reservationId,
        instanceId: INSTANCE_ID,
      });
      await store.credits.settle({
        reservationId,
        chargeTokens: tokens,
        reference: null,
        at: T0,
        entryId: newId(),
        lowBalanceEvent: (crossing) => {
          crossings.push(crossing.balanceTokens);
          return eventRecord(crossing.accountId, 'credits.low');
        },
      });
    };
    await charge(4_000); // 10,000 → 6,000: above
    await charge(1_000); // 6,000 → 5,000: at the threshold, not below
    await charge(1); // 5,000 → 4,999: crosses
    await charge(1_000); // already below: quiet
    expect(crossings).toEqual([4_999]);
    expect(await claimAll(store)).toHaveLength(1);
    await store.credits.setLowBalanceThreshold({ accountId: account.id, thresholdTokens: null, at: T0 });
    expect(await store.credits.lowBalanceThreshold(account.id)).toBeNull();
  });

  it('endpoints are their owner’s only; deleting one removes its deliveries and attempts', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const { account: other } = await createAccount(store);
    const endpoint = await addEndpoint(store, endpointRecord(account.id));
    expect(await store.webhooks.findEndpoint({ accountId: other.id, id: endpoint.id })).toBeNull();
    expect(await store.webhooks.updateEndpoint({ accountId: other.id, id: endpoint.id, changes: { enabled: false }, at: T0 })).toBeNull();
    expect(await store.webhooks.deleteEndpoint({ accountId: other.id, id: endpoint.id })).toBe(false);
    expect(await store.webhooks.listDeliveries({ accountId: other.id, id: endpoint.id, page: {} })).toEqual([]);
    expect(await store.webhooks.findEndpoint({ accountId: account.id, id: endpoint.id })).toEqual(endpoint);
    const updated = await store.webhooks.updateEndpoint({
      accountId: account.id,
      id: endpoint.id,
      changes: { events: ['credits.low'], description: 'ops' },
      at: T0 + 1,
    });
    expect(updated).toMatchObject({ events: ['credits.low'], description: 'ops', updatedAt: T0 + 1 });
    const event = eventRecord(account.id, 'credits.low');
    await store.webhooks.enqueue(event);
    expect(await claimAll(store)).toHaveLength(1);
    expect(await store.webhooks.deleteEndpoint({ accountId: account.id, id: endpoint.id })).toBe(true);
    expect(await store.webhooks.listEndpoints(account.id)).toEqual([]);
    expect(await claimAll(store, T0 + 60 * MINUTE_MS)).toEqual([]);
    // An attempt that was running when the endpoint went logs nothing (regression: an orphaned attempt row).
    await store.webhooks.recordAttempt({
      attempt: { id: newId(), endpointId: endpoint.id, eventId: event.id, attemptedAt: T0, statusCode: 204, durationMs: 5, error: null },
      status: 'succeeded',
      nextAttemptAt: null,
    });
    expect(await store.webhooks.listAttempts({ endpointId: endpoint.id, eventIds: [event.id] })).toEqual([]);
  });

  it('at most the limit of endpoints per account', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    for (let index = 0; index < 2; index++)
      expect(await store.webhooks.insertEndpointIfBelowLimit({ endpoint: endpointRecord(account.id), maxPerAccount: 2 })).toBe(true);
    expect(await store.webhooks.insertEndpointIfBelowLimit({ endpoint: endpointRecord(account.id), maxPerAccount: 2 })).toBe(false);
  });

  it('rotation keeps the previous secret with its expiry, or drops it without grace', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const endpoint = await addEndpoint(store, endpointRecord(account.id));
    const rotated = await store.webhooks.rotateSecret({
      accountId: account.id,
      id: endpoint.id,
      encryptedSecret: 'v1.secret-next',
      previousExpiresAt: T0 + MINUTE_MS,
      at: T0,
    });
    expect(rotated).toMatchObject({ encryptedSecret: 'v1.secret-next', previousEncryptedSecret: 'v1.secret-now', previousSecretExpiresAt: T0 + MINUTE_MS });
    const duringGrace = { accountId: account.id, id: endpoint.id, encryptedSecret: 'v1.secret-cut', previousExpiresAt: T0 + 2 * MINUTE_MS };
    expect(await store.webhooks.rotateSecret({ ...duringGrace, at: T0 + 1 }), 'a graceful rotation would cut the running grace short').toBeNull();
    expect(await store.webhooks.findEndpoint({ accountId: account.id, id: endpoint.id })).toMatchObject({ encryptedSecret: 'v1.secret-next' });
    const again = await store.webhooks.rotateSecret({
      accountId: account.id,
      id: endpoint.id,
      encryptedSecret: 'v1.secret-last',
      previousExpiresAt: null,
      at: T0,
    });
    expect(again).toMatchObject({ encryptedSecret: 'v1.secret-last', previousEncryptedSecret: null, previousSecretExpiresAt: null });
  });

  it('redelivery requeues a finished delivery only, and pruning keeps the attempts but not the payload', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const endpoint = await addEndpoint(store, endpointRecord(account.id));
    const event = eventRecord(account.id);
    await store.webhooks.enqueue(event);
    const key = { accountId: account.id, id: endpoint.id, eventId: event.id, now: T0 + 10 };
    expect(await store.webhooks.redeliver(key)).toBe('pending');
    expect(await store.webhooks.redeliver({ ...key, eventId: newId() })).toBe('not_found');
    await store.webhooks.recordAttempt({
      attempt: { id: newId(), endpointId: endpoint.id, eventId: event.id, attemptedAt: T0, statusCode: null, durationMs: 10_000, error: 'timeout' },
      status: 'failed',
      nextAttemptAt: null,
    });
    const { account: other } = await createAccount(store);
    expect(await store.webhooks.redeliver({ ...key, accountId: other.id })).toBe('not_found');
    expect(await store.webhooks.redeliver(key)).toBe('queued');
    expect(await store.webhooks.findDelivery({ accountId: account.id, id: endpoint.id, eventId: event.id })).toMatchObject({
      status: 'pending',
      attempts: 0,
      nextAttemptAt: T0 + 10,
    });
    await store.webhooks.recordAttempt({
      attempt: { id: newId(), endpointId: endpoint.id, eventId: event.id, attemptedAt: T0 + 10, statusCode: 200, durationMs: 5, error: null },
      status: 'succeeded',
      nextAttemptAt: null,
    });
    expect(await store.webhooks.prunePayloads({ before: T0 + 1 })).toBe(1);
    expect(await store.webhooks.findDelivery({ accountId: account.id, id: endpoint.id, eventId: event.id })).toMatchObject({
      payload: null,
      lastStatusCode: 200,
    });
    expect(await store.webhooks.listAttempts({ endpointId: endpoint.id, eventIds: [event.id] })).toHaveLength(2);
    expect(await store.webhooks.redeliver(key)).toBe('pruned');
  });

  it('lists deliveries newest first, by status, in pages', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const endpoint = await addEndpoint(store, endpointRecord(account.id));
    const events = [eventRecord(account.id), eventRecord(account.id), eventRecord(account.id)];
    for (const event of events) await store.webhooks.enqueue(event);
    const [first] = events;
    if (!first) throw new Error('no event');
    await store.webhooks.recordAttempt({
      attempt: { id: newId(), endpointId: endpoint.id, eventId: first.id, attemptedAt: T0, statusCode: 200, durationMs: 1, error: null },
      status: 'succeeded',
      nextAttemptAt: null,
    });
    const all = await store.webhooks.listDeliveries({ accountId: account.id, id: endpoint.id, page: {} });
    expect(all.map((delivery) => delivery.eventId)).toEqual(events.map((event) => event.id).reverse());
    const pending = await store.webhooks.listDeliveries({ accountId: account.id, id: endpoint.id, status: 'pending', page: { limit: 1 } });
    expect(pending.map((delivery) => delivery.eventId)).toEqual([events[2]?.id]);
    const next = await store.webhooks.listDeliveries({
      accountId: account.id,
      id: endpoint.id,
      status: 'pending',
      page: { limit: 5, cursor: pending[0]?.eventId },
    });
    expect(next.map((delivery) => delivery.eventId)).toEqual([events[1]?.id]);
  });
});
