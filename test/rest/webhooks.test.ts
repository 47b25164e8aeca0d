/**
 * Webhooks end to end over real HTTP: executions emit run.completed / run.failed, a crossing of
 * the credits.low threshold emits it once, and a real receiver on 127.0.0.1 (allow-listed in
 * webhooks.allow_hosts) verifies every signature with the `standardwebhooks` library. Retries
 * follow the schedule on the manual clock (`drain()` after moving it, no sleeping); a receiver
 * that hangs, fails, redirects or closes the socket costs only its own deliveries.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { RETRY_SCHEDULE_MS } from '../../src/core/webhooks/delivery-worker.js';
import type { WebhookDeliveryView, WebhookEndpointView } from '../../src/core/webhooks/webhooks.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { type ReceivedRequest, startWebhookReceiver, verifyReceived, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/** Long enough for a loopback answer on a loaded machine; short enough that the hanging receiver's test stays quick. */
const ATTEMPT_TIMEOUT_MS = 1_000;

let harness: Harness;
let directory: string;
let receivers: WebhookReceiver[];

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-webhooks-'));
  const configPath = join(directory, 'porch.config.yaml');
  // The worker's own poll is slowed to a minute so the tests drive every attempt with drain().
  await writeFile(configPath, JSON.stringify({ webhooks: { allow_hosts: ['127.0.0.1'], timeout_ms: ATTEMPT_TIMEOUT_MS, poll_interval_ms: 60_000 } }), 'utf8');
  harness = await createHarness({ env: { PORCH_CONFIG: configPath } });
  // Signatures carry the clock's time and receivers check it against theirs: start at the real time.
  harness.clock.set(Date.now());
  receivers = [];
});

afterEach(async () => {
  await harness.close();
  for (const receiver of receivers) await receiver.close();
  await rm(directory, { recursive: true, force: true });
});

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  receivers.push(started);
  return started;
}

interface Holder {
  accountId: string;
  organisationId: string;
  key: string;
  compositionId: string;
}

async function holder(credits = 1_000): Promise<Holder> {
  const { accountId, organisationId, key } = await harness.expertWithKey({ credits, scopes: ['manage:webhooks', 'execute:composition', 'read:usage'] });
  const compositionId = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids['composition:release-notes'] ?? '';
  return { accountId, organisationId, key, compositionId };
}

async function createEndpoint(
  owner: Holder,
  url: string,
  events = ['run.completed', 'run.failed'],
): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
  const response = await harness.api<{ endpoint: WebhookEndpointView; secret: string }>('POST', '/webhooks', { key: owner.key, body: { url, events } });
  expect(response.status, describeResponse(response)).toBe(201);
  return response.body.data;
}

async function execute(owner: Holder, body: Record<string, unknown> = { variables: RELEASE_VARIABLES }) {
  return harness.api<{ content: string }>('POST', `/compositions/${owner.compositionId}/execute`, { key: owner.key, body });
}

async function deliveries(owner: Holder, endpointId: string): Promise<WebhookDeliveryView[]> {
  const response = await harness.api<{ items: WebhookDeliveryView[] }>('GET', `/webhooks/${endpointId}/deliveries`, { key: owner.key });
  expect(response.status, describeResponse(response)).toBe(200);
  return response.body.data.items;
}

/** Verifies as a receiver would at the time the server's clock says (the library reads the system clock). */
function verifyAt(request: ReceivedRequest, secret: string, nowMs: number): unknown {
  vi.useFakeTimers({ toFake: ['Date'], now: nowMs });
  try {
    return verifyReceived(request, secret);
  } finally {
    vi.useRealTimers();
  }
}

const drain = () => harness.core.webhookWorker.drain();

describe('events', () => {
  it('a sync execution fires run.completed, signed, with the run as get_run shows it (no inputs or result)', async () => {
    const owner = await holder();
    const hooks = await receiver();
    const { endpoint, secret } = await createEndpoint(owner, `${hooks.url}/porch`);
    const executed = await execute(owner);
    expect(executed.status, describeResponse(executed)).toBe(200);
    await drain();
    const request = await hooks.nextRequest();
    expect(request.path).toBe('/porch');
    const body = verifyReceived(request, secret) as { type: string; timestamp: string; data: Record<string, unknown> };
    expect(body.type).toBe('run.completed');
    const runs = await harness.api<{ items: Array<Record<string, unknown>> }>('GET', '/runs', { key: owner.key });
    expect(body.data).toEqual(runs.body.data.items[0]);
    expect(body.data).not.toHaveProperty('inputs');
    expect(body.data).not.toHaveProperty('result');
    // A run executed in its request never went through the queue (docs/runs.md).
    expect(body.data.attempts).toBe(0);
    expect(request.headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/);
    const [delivery] = await deliveries(owner, endpoint.id);
    expect(delivery).toMatchObject({ id: request.headers['webhook-id'], event_type: 'run.completed', status: 'succeeded', attempts: 1, last_status_code: 204 });
    expect(delivery?.attempt_log).toMatchObject([{ status_code: 204, error: null }]);
  });

  it('an asynchronous run: 202, polled until completed, then run.completed arrives signed with the run as polled', async () => {
    const owner = await holder();
    const hooks = await receiver();
    const { secret } = await createEndpoint(owner, hooks.url);
    const queued = await harness.api<{ run_id: string; status: string }>('POST', `/compositions/${owner.compositionId}/execute`, {
      key: owner.key,
      body: { variables: RELEASE_VARIABLES },
      headers: { prefer: 'respond-async' },
    });
    expect(queued.status, describeResponse(queued)).toBe(202);
    await harness.core.runQueue.idle();
    const polled = await harness.api<Record<string, unknown>>('GET', `/runs/${queued.body.data.run_id}`, { key: owner.key });
    expect(polled.body.data).toMatchObject({ status: 'completed', attempts: 1 });
    await drain();
    const body = verifyReceived(await hooks.nextRequest(), secret) as { type: string; data: Record<string, unknown> };
    expect(body.type).toBe('run.completed');
    const { inputs: _inputs, result: _result, ...summary } = polled.body.data;
    expect(body.data).toEqual(summary);
  });

  it('a cancelled asynchronous run fires nothing; one that fails when it starts fires run.failed', async () => {
    const owner = await holder();
    const hooks = await receiver();
    const { secret } = await createEndpoint(owner, hooks.url);
    // This server's queue is stopped, so the run stays queued until it is cancelled.
    await harness.core.runQueue.stop(0);
    const queued = await harness.api<{ run_id: string }>('POST', `/compositions/${owner.compositionId}/execute`, {
      key: owner.key,
      body: { variables: RELEASE_VARIABLES },
      headers: { prefer: 'respond-async' },
    });
    const cancelled = await harness.api('POST', `/runs/${queued.body.data.run_id}/cancel`, { key: owner.key });
    expect(cancelled.status, describeResponse(cancelled)).toBe(200);
    await drain();
    expect(hooks.received).toHaveLength(0);

    const missingVariables = await harness.api<{ run_id: string }>('POST', `/compositions/${owner.compositionId}/execute`, {
      key: owner.key,
      body: { variables: {} },
      headers: { prefer: 'respond-async' },
    });
    harness.server.application.startRunQueue();
    await harness.core.runQueue.idle();
    await drain();
    const body = verifyReceived(await hooks.nextRequest(), secret) as { type: string; data: { id: string; status: string } };
    expect(body).toMatchObject({ type: 'run.failed', data: { id: missingVariables.body.data.run_id, status: 'failed' } });
  });

  it('a failing execution fires run.failed with the error code', async () => {
    const owner = await holder();
    const hooks = await receiver();
    const { secret } = await createEndpoint(owner, hooks.url);
    // The echo model answers the prompt, secret included, which the output guardrail blocks: the run fails.
    await harness.core.accounts.setOrganisationPolicy(owner.organisationId, { guardrailOutputs: 'block' });
    const executed = await execute(owner, { variables: { ...RELEASE_VARIABLES, changes: `token ghp_${'A1b2C3d4E5'.repeat(3)}123456` } });
    expect(executed.status, describeResponse(executed)).toBe(422);
    await drain();
    const body = verifyReceived(await hooks.nextRequest(), secret) as { type: string; data: { status: string } };
    expect(body).toMatchObject({ type: 'run.failed', data: { status: 'failed' } });
  });

  it('credits.low fires once, in the charge that crosses the threshold', async () => {
    const owner = await holder();
    const hooks = await receiver();
    const { secret } = await createEndpoint(owner, hooks.url, ['credits.low']);
    const balance = (await harness.store.credits.balance(owner.accountId)).balanceTokens;
    const threshold = (balance - 1) / 1_000;
    const set = await harness.api('PATCH', '/account/credits-low-threshold', { key: owner.key, body: { threshold_credits: threshold } });
    expect(set.status, describeResponse(set)).toBe(200);
    expect(set.body.data).toEqual({ threshold_credits: threshold });
    for (let index = 0; index < 3; index++) expect((await execute(owner)).status).toBe(200);
    await drain();
    expect(hooks.received).toHaveLength(1);
    const [request] = hooks.received;
    if (!request) throw new Error('nothing received');
    const body = verifyReceived(request, secret) as { type: string; data: { credits_remaining: number; threshold_credits: number } };
    expect(body.type).toBe('credits.low');
    expect(body.data.threshold_credits).toBe(threshold);
    expect(body.data.credits_remaining).toBeLessThan(threshold);
  });

  it('an endpoint that is disabled or not subscribed gets nothing', async () => {
    const owner = await holder();
    const hooks = await receiver();
    const { endpoint } = await createEndpoint(owner, hooks.url);
    await createEndpoint(owner, hooks.url, ['credits.low']);
    const disabled = await harness.api('PATCH', `/webhooks/${endpoint.id}`, { key: owner.key, body: { enabled: false } });
    expect(disabled.body.data).toMatchObject({ enabled: false });
    expect((await execute(owner)).status).toBe(200);
    await drain();
    expect(hooks.received).toEqual([]);
  });
});

describe('retries and faults', () => {
  it('a receiver that answers 500 and then 200 is retried on the schedule', async () => {
    const owner = await holder();
    const hooks = await receiver();
    hooks.respondWith({ kind: 'status', status: 500 }, { kind: 'status', status: 200 });
    const { endpoint, secret } = await createEndpoint(owner, hooks.url);
    await execute(owner);
    await drain();
    const [pending] = await deliveries(owner, endpoint.id);
    expect(pending).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500, last_error: 'http_status' });
    expect(Date.parse(pending?.next_attempt_at ?? '')).toBe(harness.clock.now() + (RETRY_SCHEDULE_MS[1] ?? 0));

    harness.clock.advance((RETRY_SCHEDULE_MS[1] ?? 0) - 1);
    await drain();
    expect(hooks.received).toHaveLength(1);
    harness.clock.advance(1);
    await drain();
    expect(hooks.received).toHaveLength(2);
    const [first, second] = hooks.received;
    if (!first || !second) throw new Error('two requests expected');
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    verifyReceived(second, secret);
    const [done] = await deliveries(owner, endpoint.id);
    expect(done).toMatchObject({ status: 'succeeded', attempts: 2, next_attempt_at: null });
    expect(done?.attempt_log.map((attempt) => attempt.status_code)).toEqual([500, 200]);
  });

  it('after the last attempt of the schedule the delivery is failed, and redeliver sends it again', async () => {
    const owner = await holder();
    const hooks = await receiver();
    hooks.respondWith({ kind: 'status', status: 503 });
    const { endpoint } = await createEndpoint(owner, hooks.url);
    await execute(owner);
    for (const delay of RETRY_SCHEDULE_MS) {
      harness.clock.advance(delay);
      await drain();
    }
    expect(hooks.received).toHaveLength(RETRY_SCHEDULE_MS.length);
    const totalHours = RETRY_SCHEDULE_MS.reduce((sum, delay) => sum + delay, 0) / 3_600_000;
    expect(totalHours).toBeGreaterThan(24);
    const [failed] = await deliveries(owner, endpoint.id);
    expect(failed).toMatchObject({ status: 'failed', attempts: RETRY_SCHEDULE_MS.length, next_attempt_at: null, last_status_code: 503 });
    harness.clock.advance(100 * 3_600_000);
    await drain();
    expect(hooks.received).toHaveLength(RETRY_SCHEDULE_MS.length);

    hooks.respondWith({ kind: 'status', status: 200 });
    const redelivered = await harness.api<WebhookDeliveryView>('POST', `/webhooks/${endpoint.id}/deliveries/${failed?.id}/redeliver`, { key: owner.key });
    expect(redelivered.status, describeResponse(redelivered)).toBe(200);
    expect(redelivered.body.data).toMatchObject({ status: 'pending', attempts: 0 });
    const again = await harness.api('POST', `/webhooks/${endpoint.id}/deliveries/${failed?.id}/redeliver`, { key: owner.key });
    expect(again.status, describeResponse(again)).toBe(409);
    await drain();
    expect(hooks.received.at(-1)?.headers['webhook-id']).toBe(failed?.id);
    const [succeeded] = await deliveries(owner, endpoint.id);
    expect(succeeded).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(succeeded?.attempt_log).toHaveLength(RETRY_SCHEDULE_MS.length + 1);
    const filtered = await harness.api<{ items: unknown[] }>('GET', `/webhooks/${endpoint.id}/deliveries?status=failed`, { key: owner.key });
    expect(filtered.body.data.items).toEqual([]);
  });

  it('a hanging receiver times out and does not hold up another endpoint', async () => {
    const owner = await holder();
    const slow = await receiver();
    const fast = await receiver();
    slow.respondWith({ kind: 'hang' });
    const hanging = await createEndpoint(owner, slow.url);
    const working = await createEndpoint(owner, fast.url);
    await execute(owner);
    const drained = drain();
    await slow.nextRequest();
    await fast.nextRequest();
    // The fast endpoint was answered while the slow one still holds its attempt open.
    expect(harness.core.webhookWorker.inFlight()).toBeGreaterThanOrEqual(1);
    await drained;
    const [timedOut] = await deliveries(owner, hanging.endpoint.id);
    expect(timedOut).toMatchObject({ status: 'pending', last_status_code: null, last_error: 'timeout' });
    expect(timedOut?.attempt_log[0]?.duration_ms).toBeGreaterThanOrEqual(ATTEMPT_TIMEOUT_MS - 50);
    const [delivered] = await deliveries(owner, working.endpoint.id);
    expect(delivered).toMatchObject({ status: 'succeeded' });
  });

  it("an account's hanging endpoints hold a quarter of the slots, so another account's healthy endpoint is delivered at once (regression: five hanging endpoints of one account filled all 16)", async () => {
    const crowded = await holder();
    const other = await holder();
    const slow = await receiver();
    const fast = await receiver();
    slow.respondWith({ kind: 'hang' });
    for (let index = 0; index < 5; index++) await createEndpoint(crowded, `${slow.url}/endpoint-${index}`);
    const { endpoint: healthy } = await createEndpoint(other, fast.url);
    // Twenty deliveries to hanging endpoints, queued before the other account's one: more than the 16 slots.
    for (let index = 0; index < 4; index++) expect((await execute(crowded)).status).toBe(200);
    harness.clock.advance(1);
    expect((await execute(other)).status).toBe(200);
    const drained = drain();
    await fast.nextRequest();
    expect(slow.received.length, 'the crowded account had at most its quarter of the slots when the other was delivered').toBeLessThanOrEqual(4);
    expect(harness.core.webhookWorker.inFlight()).toBeGreaterThanOrEqual(1);
    slow.respondWith({ kind: 'status', status: 204 });
    await drained;
    expect((await deliveries(other, healthy.id))[0]).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('a redirect is not followed: the attempt fails with the 3xx status', async () => {
    const owner = await holder();
    const redirecting = await receiver();
    const target = await receiver();
    redirecting.respondWith({ kind: 'redirect', location: `${target.url}/elsewhere` });
    const { endpoint } = await createEndpoint(owner, redirecting.url);
    await execute(owner);
    await drain();
    expect(redirecting.received).toHaveLength(1);
    expect(target.received).toEqual([]);
    const [delivery] = await deliveries(owner, endpoint.id);
    expect(delivery).toMatchObject({ status: 'pending', last_status_code: 302, last_error: 'redirect' });
  });

  it('a receiver that closes the socket is a failed attempt, retried later', async () => {
    const owner = await holder();
    const closing = await receiver();
    closing.respondWith({ kind: 'close' }, { kind: 'status', status: 204 });
    const { endpoint } = await createEndpoint(owner, closing.url);
    await execute(owner);
    await drain();
    const [delivery] = await deliveries(owner, endpoint.id);
    expect(delivery).toMatchObject({ status: 'pending', last_status_code: null, last_error: 'connection' });
    harness.clock.advance(RETRY_SCHEDULE_MS[1] ?? 0);
    await drain();
    expect((await deliveries(owner, endpoint.id))[0]).toMatchObject({ status: 'succeeded', attempts: 2 });
  });
});

describe('retention', () => {
  it('drops delivery payloads after retention.run_days, keeping status codes and timings; a pruned delivery cannot be redelivered', async () => {
    const owner = await holder();
    const hooks = await receiver();
    const { endpoint } = await createEndpoint(owner, hooks.url);
    await execute(owner);
    await drain();
    harness.clock.advance((harness.config.runRetentionDays + 1) * 86_400_000);
    expect((await harness.core.maintenance.sweep()).prunedWebhookPayloads).toBe(1);
    const [pruned] = await deliveries(owner, endpoint.id);
    expect(pruned).toMatchObject({ status: 'succeeded', payload_available: false, last_status_code: 204 });
    expect(pruned?.attempt_log).toMatchObject([{ status_code: 204, error: null }]);
    const redelivered = await harness.api('POST', `/webhooks/${endpoint.id}/deliveries/${pruned?.id}/redeliver`, { key: owner.key });
    expect(redelivered.status, describeResponse(redelivered)).toBe(409);
    expect(redelivered.body.error.message).toContain('retention.run_days');
  });
});

describe('secrets', () => {
  it('rotation signs with both secrets during the grace period, then with the new one only', async () => {
    const owner = await holder();
    const hooks = await receiver();
    const { endpoint, secret: oldSecret } = await createEndpoint(owner, hooks.url);
    const rotated = await harness.api<{ endpoint: WebhookEndpointView; secret: string }>('POST', `/webhooks/${endpoint.id}/rotate-secret`, {
      key: owner.key,
      body: { grace_seconds: 3_600 },
    });
    expect(rotated.status, describeResponse(rotated)).toBe(201);
    const newSecret = rotated.body.data.secret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(Date.parse(rotated.body.data.endpoint.previous_secret_expires_at ?? '')).toBe(harness.clock.now() + 3_600_000);
    const cut = await harness.api('POST', `/webhooks/${endpoint.id}/rotate-secret`, { key: owner.key, body: { grace_seconds: 60 } });
    expect(cut.status, 'a second rotation in the grace period would end it early (regression: the first old secret stopped at once)').toBe(409);
    expect(cut.body.error.message).toContain("rotation's grace period until");

    await execute(owner);
    await drain();
    const during = await hooks.nextRequest();
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    verifyAt(during, oldSecret, harness.clock.now());
    verifyAt(during, newSecret, harness.clock.now());

    harness.clock.advance(3_601_000);
    await execute(owner);
    await drain();
    const after = await hooks.nextRequest();
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    verifyAt(after, newSecret, harness.clock.now());
    expect(() => verifyAt(after, oldSecret, harness.clock.now())).toThrow(/signature/i);
    const listed = await harness.api<{ items: WebhookEndpointView[] }>('GET', '/webhooks', { key: owner.key });
    expect(listed.body.data.items[0]?.previous_secret_expires_at).toBeNull();
    expect(listed.text).not.toContain('whsec_');
  });
});

describe('the SSRF guard', () => {
  it('refuses http, loopback, private, link-local, CGNAT and metadata addresses, naming the rule', async () => {
    const owner = await holder();
    const refusals: Array<[string, RegExp]> = [
      ['http://93.184.215.14/hook', /must use https/],
      ['ftp://93.184.215.14/hook', /must use https/],
      ['not a url', /must be an absolute URL/],
      ['https://user:pass@93.184.215.14/hook', /credentials/],
      ['https://localhost/hook', /resolves to a loopback address/],
      ['https://127.0.0.2/hook', /resolves to a loopback address/],
      ['https://[::1]/hook', /resolves to a loopback address/],
      ['https://[::ffff:127.0.0.1]/hook', /resolves to a loopback address/],
      ['https://10.1.2.3/hook', /resolves to a private address/],
      ['https://192.168.0.10/hook', /resolves to a private address/],
      ['https://[fd12::1]/hook', /resolves to a private address/],
      ['https://169.254.169.254/latest/meta-data', /resolves to a cloud metadata address/],
      ['https://[fd00:ec2::254]/hook', /resolves to a cloud metadata address/],
      ['https://[::ffff:169.254.169.254]/hook', /resolves to a cloud metadata address/],
      ['https://169.254.10.10/hook', /resolves to a link-local address/],
      ['https://100.64.1.1/hook', /resolves to a carrier-grade NAT address/],
      ['https://0.0.0.0/hook', /resolves to an unspecified address/],
    ];
    for (const [url, rule] of refusals) {
      const response = await harness.api('POST', '/webhooks', { key: owner.key, body: { url, events: ['run.completed'] } });
      expect(response.status, `${url}: ${describeResponse(response)}`).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.message, url).toMatch(rule);
    }
    const listed = await harness.api<{ count: number }>('GET', '/webhooks', { key: owner.key });
    expect(listed.body.data.count).toBe(0);
  });

  it('refuses control characters, whitespace and port 0, and stores the URL as parsed, so what is shown is what is called (regression: an escape sequence and a newline were stored raw)', async () => {
    const owner = await holder();
    const refusals: Array<[string, RegExp]> = [
      ['https://1.1.1.1/\u001b[31mRED\u001b[0m', /url: must not hold control characters/],
      ['https://1.1.1.1\n/x', /url: must not hold control characters/],
      ['https://1.1.1.1/a\tb', /url: must not hold control characters/],
      ['https://1.1.1.1/a\u007fb', /url: must not hold control characters/],
      ['https://1.1.1.1/a\u0085b', /url: must not hold control characters/],
      ['https://1.1.1.1/a b', /url: must not hold spaces or other whitespace/],
      ['https://1.1.1.1/a\u00a0b', /url: must not hold spaces or other whitespace/],
      ['https://1.1.1.1:0/x', /url: must not use port 0/],
    ];
    for (const [url, rule] of refusals) {
      const response = await harness.api('POST', '/webhooks', { key: owner.key, body: { url, events: ['run.completed'] } });
      expect(response.status, `${JSON.stringify(url)}: ${describeResponse(response)}`).toBe(400);
      expect(response.body.error.message, JSON.stringify(url)).toMatch(rule);
    }
    const stored: Array<[string, string]> = [
      ['https://%31.1.1.1/x', 'https://1.1.1.1/x'],
      // 0x7f000001 is 127.0.0.1, which this server's webhooks.allow_hosts lists.
      ['https://0x7f000001/x', 'https://127.0.0.1/x'],
      ['HTTPS://1.1.1.1:443/a/../b?q=é', 'https://1.1.1.1/b?q=%C3%A9'],
    ];
    for (const [url, expected] of stored) {
      const { endpoint } = await createEndpoint(owner, url);
      expect(endpoint.url, url).toBe(expected);
      expect((await harness.api<WebhookEndpointView>('GET', `/webhooks/${endpoint.id}`, { key: owner.key })).body.data.url).toBe(expected);
    }
    const listed = await harness.api<{ items: WebhookEndpointView[] }>('GET', '/webhooks', { key: owner.key });
    const [first] = listed.body.data.items;
    if (!first) throw new Error('no endpoint listed');
    const changed = await harness.api<WebhookEndpointView>('PATCH', `/webhooks/${first.id}`, { key: owner.key, body: { url: 'https://%31.1.1.1/y' } });
    expect(changed.body.data.url, describeResponse(changed)).toBe('https://1.1.1.1/y');
    const refused = await harness.api('PATCH', `/webhooks/${first.id}`, { key: owner.key, body: { url: 'https://1.1.1.1/\u001b]0;title\u0007' } });
    expect(refused.status, describeResponse(refused)).toBe(400);
  });

  it('an endpoint stored with a control character before the rule is still delivered to, and shown as it is called', async () => {
    const owner = await holder();
    const hooks = await receiver();
    const { endpoint } = await createEndpoint(owner, hooks.url);
    await harness.store.webhooks.updateEndpoint({
      accountId: owner.accountId,
      id: endpoint.id,
      changes: { url: `${hooks.url}/legacy\u001b[0m` },
      at: harness.clock.now(),
    });
    const shown = await harness.api<WebhookEndpointView>('GET', `/webhooks/${endpoint.id}`, { key: owner.key });
    expect(shown.body.data.url).toBe(`${hooks.url}/legacy%1B[0m`);
    await execute(owner);
    await drain();
    expect((await hooks.nextRequest()).path).toBe('/legacy%1B[0m');
  });

  it('allows an allow-listed host over http, and checks a changed URL again', async () => {
    const owner = await holder();
    const { endpoint } = await createEndpoint(owner, 'http://127.0.0.1:9/hook');
    const moved = await harness.api('PATCH', `/webhooks/${endpoint.id}`, { key: owner.key, body: { url: 'https://10.0.0.1/hook' } });
    expect(moved.status, describeResponse(moved)).toBe(400);
    expect(moved.body.error.message).toMatch(/url: resolves to a private address/);
    expect((await harness.api<WebhookEndpointView>('GET', `/webhooks/${endpoint.id}`, { key: owner.key })).body.data.url).toBe('http://127.0.0.1:9/hook');
  });

  it('refuses at delivery time an endpoint whose address is no longer allowed, without connecting', async () => {
    const owner = await holder();
    const hooks = await receiver();
    const { endpoint } = await createEndpoint(owner, hooks.url);
    // As if the operator removed the host from webhooks.allow_hosts after the endpoint was made.
    await harness.store.webhooks.updateEndpoint({
      accountId: owner.accountId,
      id: endpoint.id,
      changes: { url: hooks.url.replace('http://127.0.0.1', 'https://localhost') },
      at: harness.clock.now(),
    });
    await execute(owner);
    await drain();
    expect(hooks.received).toEqual([]);
    expect((await deliveries(owner, endpoint.id))[0]).toMatchObject({ status: 'pending', last_error: 'blocked_address', last_status_code: null });
  });
});

describe('endpoints', () => {
  it('another account’s endpoint answers 404, and a deleted endpoint is gone', async () => {
    const owner = await holder();
    const intruder = await holder();
    const { endpoint } = await createEndpoint(owner, 'http://127.0.0.1:9/hook');
    for (const [method, path] of [
      ['GET', `/webhooks/${endpoint.id}`],
      ['DELETE', `/webhooks/${endpoint.id}`],
      ['GET', `/webhooks/${endpoint.id}/deliveries`],
    ] as const) {
      const response = await harness.api(method, path, { key: intruder.key });
      expect(response.status, describeResponse(response)).toBe(404);
    }
    expect((await harness.api('DELETE', `/webhooks/${endpoint.id}`, { key: owner.key })).status).toBe(204);
    expect((await harness.api('GET', `/webhooks/${endpoint.id}`, { key: owner.key })).status).toBe(404);
  });

  it('the credits.low threshold refuses a negative or non-numeric value and turns off with null', async () => {
    const owner = await holder();
    for (const threshold_credits of [-1, 'ten', 1.0001]) {
      const refused = await harness.api('PATCH', '/account/credits-low-threshold', { key: owner.key, body: { threshold_credits } });
      expect(refused.status, describeResponse(refused)).toBe(400);
      expect(refused.body.error.message).toContain('threshold_credits');
    }
    const off = await harness.api('PATCH', '/account/credits-low-threshold', { key: owner.key, body: { threshold_credits: null } });
    expect(off.body.data).toEqual({ threshold_credits: null });
    expect(await harness.core.webhooks.lowBalanceThreshold(owner.accountId)).toBeNull();
  });

  it('the endpoint list pages with limit and cursor, oldest first, as every list does (regression: limit was ignored)', async () => {
    const owner = await holder();
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) ids.push((await createEndpoint(owner, `http://127.0.0.1:9/hook-${index}`)).endpoint.id);
    type EndpointPage = { items: WebhookEndpointView[]; count: number; next_cursor?: string | null };
    const first = await harness.api<EndpointPage>('GET', '/webhooks?limit=2', { key: owner.key });
    expect(first.status, describeResponse(first)).toBe(200);
    expect(first.body.data.items.map((item) => item.id)).toEqual(ids.slice(0, 2));
    expect(first.body.data).toMatchObject({ count: 2, next_cursor: ids[1] });
    const second = await harness.api<EndpointPage>('GET', `/webhooks?limit=2&cursor=${first.body.data.next_cursor}`, { key: owner.key });
    expect(second.body.data.items.map((item) => item.id)).toEqual(ids.slice(2));
    expect(second.body.data.next_cursor).toBeNull();
    const all = await harness.api<EndpointPage>('GET', '/webhooks', { key: owner.key });
    expect(all.body.data.items.map((item) => item.id)).toEqual(ids);
    expect(all.body.data).not.toHaveProperty('next_cursor');
    const refused = await harness.api('GET', '/webhooks?limit=0', { key: owner.key });
    expect(refused.status, describeResponse(refused)).toBe(400);
    expect(refused.body.error.message).toContain('limit');
  });

  it('an eleventh endpoint is refused with 400 VALIDATION_ERROR, like a sixth active key: a fixed bound, not one of limits.quotas', async () => {
    const owner = await holder();
    for (let index = 0; index < 10; index++) await createEndpoint(owner, `http://127.0.0.1:9/hook-${index}`);
    const eleventh = await harness.api('POST', '/webhooks', { key: owner.key, body: { url: 'http://127.0.0.1:9/hook-10', events: ['run.completed'] } });
    expect(eleventh.status, describeResponse(eleventh)).toBe(400);
    expect(eleventh.body.error).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(eleventh.body.error.message).toMatch(/already has 10 webhook endpoints.*delete one first/);
  });

  it('refuses unknown events and an empty update', async () => {
    const owner = await holder();
    const unknown = await harness.api('POST', '/webhooks', { key: owner.key, body: { url: 'http://127.0.0.1:9/hook', events: ['run.started'] } });
    expect(unknown.status, describeResponse(unknown)).toBe(400);
    expect(unknown.body.error.message).toContain('events');
    const { endpoint } = await createEndpoint(owner, 'http://127.0.0.1:9/hook');
    const empty = await harness.api('PATCH', `/webhooks/${endpoint.id}`, { key: owner.key, body: {} });
    expect(empty.status, describeResponse(empty)).toBe(400);
  });
});
