/**
 * Self-service over REST: the account, its own keys (create within the caller's scopes, rotate
 * with a grace period, revoke, last use), usage aggregates equal to the usage rows' sums, the
 * credits ledger, runs of every kind, and the retention of run payloads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { USAGE_GROUPINGS } from '../../src/db/store.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { expectedAggregate } from '../helpers/usage-sums.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness();
});
afterAll(() => harness.close());

interface OwnKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  limits: { requests_per_minute: number; requests_per_day: number };
  status: string;
  last_used_at: string | null;
  expires_at: string | null;
  replaced_by: string | null;
}

/** An Expert account with a key holding `scopes`. */
async function holder(scopes: string[], credits = 1000) {
  return harness.expertWithKey({ scopes, credits });
}

/** Imports the demo catalog and runs one execution of each kind with the echo model; answers the resource ids and the workflow's run id. */
async function executeEveryKind(key: string, accountId: string) {
  const { ids } = await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE);
  const id = (qualified: string) => ids[qualified] ?? '';
  const resources = {
    workflow: id('workflow:release-announcement'),
    composition: id('composition:release-notes'),
    skill: id('skill:summarise'),
    persona: id('persona:plain-editor'),
  };
  const workflow = await harness.api<{ run_id: string; status: string }>('POST', `/workflows/${resources.workflow}/execute`, {
    key,
    body: { variables: RELEASE_VARIABLES, include_trace: true },
  });
  expect(workflow.status, describeResponse(workflow)).toBe(200);
  for (const [path, body] of [
    [`/compositions/${resources.composition}/execute`, { variables: RELEASE_VARIABLES }],
    [`/skills/${resources.skill}/execute`, { input: 'Porch runs workflows.', variables: { bullets: 2 } }],
    [`/personas/${resources.persona}/execute`, { input: 'Utilise synergies going forward.' }],
  ] as const) {
    const response = await harness.api('POST', path, { key, body });
    expect(response.status, describeResponse(response)).toBe(200);
  }
  return { resources, workflowRunId: workflow.body.data.run_id };
}

describe('GET /account', () => {
  it("shows the plan, credits, organisation and the calling key's scopes and limits, to any key", async () => {
    const { accountId, organisationId, keyId, key } = await harness.expertWithKey({ scopes: ['api:sanitiser'], credits: 12.5 });
    const response = await harness.api<Record<string, Record<string, unknown>>>('GET', '/account', { key });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body.data).toMatchObject({
      account: { id: accountId, plan: 'expert' },
      organisation: {
        id: organisationId,
        policies: { eu_only_models: false, strict_byok: false, guardrails: { inputs: 'off', outputs: 'off', min_severity: 'warn' } },
      },
      credits: { balance_tokens: 12_500, reserved_tokens: 0, available_tokens: 12_500, available_credits: 12 },
      key: {
        id: keyId,
        kind: 'api_key',
        connected_app: false,
        name: 'API key',
        scopes: ['api:sanitiser'],
        limits: { requests_per_minute: 120, requests_per_day: 20_000, max_in_flight: 8 },
      },
    });
  });
});

describe('own keys', () => {
  it('creates a key within the caller’s scopes, answers it once, and the new key works', async () => {
    const { key } = await holder(['manage:keys', 'api:sanitiser']);
    const created = await harness.api<{ key: OwnKey; api_key: string }>('POST', '/keys', {
      key,
      body: { name: 'CI', scopes: ['api:sanitiser'], requests_per_minute: 30 },
    });
    expect(created.status, describeResponse(created)).toBe(201);
    expect(created.body.data.api_key).toMatch(/^mdi_/);
    expect(created.body.data.key).toMatchObject({
      name: 'CI',
      scopes: ['api:sanitiser'],
      limits: { requests_per_minute: 30, requests_per_day: 20_000 },
      status: 'active',
    });
    const scan = await harness.api('POST', '/sanitiser/scan', { key: created.body.data.api_key, body: { text: 'hello' } });
    expect(scan.status, describeResponse(scan)).toBe(200);
    expect(scan.headers.get('x-ratelimit-limit')).toBe('30');
    const listed = await harness.api<{ items: OwnKey[] }>('GET', '/keys', { key });
    expect(listed.text).not.toContain(created.body.data.api_key);
    expect(listed.body.data.items.map((item) => item.name)).toEqual(['API key', 'CI']);
  });

  it('pages the keys with limit and cursor, oldest first (regression: both were ignored)', async () => {
    const { key } = await holder(['manage:keys', 'api:sanitiser']);
    for (const name of ['one', 'two', 'three']) {
      expect((await harness.api('POST', '/keys', { key, body: { name, scopes: ['api:sanitiser'] } })).status).toBe(201);
    }
    type KeyPage = { items: OwnKey[]; count: number; next_cursor?: string | null };
    const first = await harness.api<KeyPage>('GET', '/keys?limit=2', { key });
    expect(first.status, describeResponse(first)).toBe(200);
    expect(first.body.data.items.map((item) => item.name)).toEqual(['API key', 'one']);
    const second = await harness.api<KeyPage>('GET', `/keys?limit=2&cursor=${first.body.data.next_cursor}`, { key });
    expect(second.body.data).toMatchObject({ count: 2, next_cursor: null });
    expect(second.body.data.items.map((item) => item.name)).toEqual(['two', 'three']);
    const whole = await harness.api<KeyPage>('GET', '/keys', { key });
    expect(whole.body.data.count).toBe(4);
    expect(whole.body.data).not.toHaveProperty('next_cursor');
    expect((await harness.api('GET', '/keys?limit=0', { key })).status).toBe(400);
  });

  it('never creates a key with a scope the calling key lacks, naming it', async () => {
    const { key } = await holder(['manage:keys', 'api:sanitiser']);
    const response = await harness.api('POST', '/keys', { key, body: { scopes: ['api:sanitiser', 'api:judge', 'read:usage'] } });
    expect(response.status, describeResponse(response)).toBe(403);
    expect(response.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
    expect(response.body.error.message).toContain('api:judge, read:usage');
    expect(response.body.error.message).not.toContain('api:sanitiser,');
  });

  it('never creates a key that outlives the calling key (regression: an expiring key minted permanent ones)', async () => {
    const { key } = await holder(['manage:keys', 'api:sanitiser']);
    const expiry = new Date(harness.clock.now() + 7 * 86_400_000);
    // Sent with an offset, as ISO 8601 allows (regression: "Invalid ISO datetime"); answered in UTC.
    const withOffset = `${expiry.toISOString().slice(0, 19)}+00:00`;
    const weekly = await harness.api<{ key: OwnKey; api_key: string }>('POST', '/keys', {
      key,
      body: { name: 'weekly', scopes: ['manage:keys', 'api:sanitiser'], expires_at: withOffset },
    });
    expect(weekly.status, describeResponse(weekly)).toBe(201);
    const weeklyExpiry = weekly.body.data.key.expires_at;
    expect(weeklyExpiry).toBe(`${expiry.toISOString().slice(0, 19)}.000Z`);
    const child = await harness.api<{ key: OwnKey }>('POST', '/keys', { key: weekly.body.data.api_key, body: { name: 'child' } });
    expect(child.status, describeResponse(child)).toBe(201);
    expect(child.body.data.key.expires_at).toBe(weeklyExpiry);
    const later = new Date(harness.clock.now() + 30 * 86_400_000).toISOString();
    const refused = await harness.api('POST', '/keys', { key: weekly.body.data.api_key, body: { name: 'forever', expires_at: later } });
    expect(refused.status, describeResponse(refused)).toBe(400);
    expect(refused.body.error.message).toContain('when the calling key expires');
  });

  it('never rotates a key that outlives the calling key (regression: a ten-minute key rotated a permanent one and held its successor)', async () => {
    const { key } = await holder(['manage:keys', 'api:sanitiser']);
    const permanent = await harness.api<{ key: OwnKey }>('POST', '/keys', { key, body: { name: 'permanent' } });
    const inTen = new Date(harness.clock.now() + 600_000).toISOString();
    const brief = await harness.api<{ key: OwnKey; api_key: string }>('POST', '/keys', {
      key,
      body: { name: 'brief', scopes: ['manage:keys', 'api:sanitiser'], expires_at: inTen },
    });
    const refused = await harness.api('POST', `/keys/${permanent.body.data.key.id}/rotate`, { key: brief.body.data.api_key });
    expect(refused.status, describeResponse(refused)).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'INSUFFICIENT_PERMISSIONS',
      message: `A key can only rotate keys that expire no later than it does (${brief.body.data.key.expires_at}); key ${permanent.body.data.key.id} never expires. Use a key that expires later, or none.`,
    });
    expect((await harness.api<{ items: OwnKey[] }>('GET', '/keys', { key })).body.data.items.filter((item) => item.status === 'active')).toHaveLength(3);
    // A key expiring no later than the caller's, itself included, it rotates.
    const sooner = await harness.api<{ key: OwnKey }>('POST', '/keys', { key: brief.body.data.api_key, body: { name: 'sooner' } });
    expect((await harness.api('POST', `/keys/${sooner.body.data.key.id}/rotate`, { key: brief.body.data.api_key })).status).toBe(201);
    expect((await harness.api('POST', `/keys/${brief.body.data.key.id}/rotate`, { key: brief.body.data.api_key })).status).toBe(201);
  });

  it('never rotates a key holding more scopes or higher limits than the calling key (regression: rotating answered the broader key)', async () => {
    const { key: broad, accountId } = await holder(['manage:keys', 'api:sanitiser', 'api:judge', 'read:usage']);
    const narrow = await harness.api<{ api_key: string }>('POST', '/keys', { key: broad, body: { scopes: ['manage:keys', 'api:sanitiser'] } });
    const keys = await harness.api<{ items: OwnKey[] }>('GET', '/keys', { key: broad });
    const broadId = keys.body.data.items.find((item) => item.scopes.includes('api:judge'))?.id ?? '';
    const refused = await harness.api('POST', `/keys/${broadId}/rotate`, { key: narrow.body.data.api_key, body: { grace_seconds: 3600 } });
    expect(refused.status, describeResponse(refused)).toBe(403);
    expect(refused.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
    expect(refused.body.error.message).toContain('api:judge, read:usage');
    const unchanged = await harness.api<{ items: OwnKey[] }>('GET', '/keys', { key: broad });
    expect(unchanged.body.data.items.map((item) => [item.id, item.status, item.expires_at])).toEqual(
      keys.body.data.items.map((item) => [item.id, item.status, item.expires_at]),
    );

    const fast = await harness.createKey(accountId, { scopes: ['manage:keys', 'api:sanitiser'], rpm: 1000 });
    const slower = await harness.createKey(accountId, { scopes: ['manage:keys', 'api:sanitiser'], rpm: 60 });
    const tooFast = await harness.api('POST', `/keys/${fast.id}/rotate`, { key: slower.key });
    expect(tooFast.status, describeResponse(tooFast)).toBe(403);
    expect(tooFast.body.error.message).toContain('limits are at most its own');
    expect((await harness.api('POST', `/keys/${slower.id}/rotate`, { key: fast.key })).status).toBe(201);
  });

  it('refuses an unknown scope, limits above the caller’s, a past expiry and bad fields with 400 naming the field', async () => {
    const { key } = await holder(['manage:keys', 'api:sanitiser']);
    const cases: Array<[unknown, RegExp]> = [
      [{ scopes: ['manage:keys', 'write:everything'] }, /Unknown scope: write:everything/],
      [{ requests_per_minute: 121 }, /requests_per_minute: must be at most 120/],
      [{ expires_at: new Date(harness.clock.now() - 1000).toISOString() }, /expires_at: must be in the future/],
      [{ expires_at: 'tomorrow' }, /body\.expires_at/],
      [{ scopes: [] }, /body\.scopes: must name at least one scope/],
      [{ requests_per_day: 1.5 }, /body\.requests_per_day: must be a whole number/],
      [{ admin: true }, /body/],
    ];
    for (const [body, message] of cases) {
      const response = await harness.api('POST', '/keys', { key, body });
      expect(response.status, describeResponse(response)).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.message).toMatch(message);
    }
  });

  it('refuses a sixth active key with a clear message', async () => {
    const { key } = await holder(['manage:keys', 'api:sanitiser']);
    for (let count = 2; count <= 5; count += 1) expect((await harness.api('POST', '/keys', { key, body: {} })).status).toBe(201);
    const sixth = await harness.api('POST', '/keys', { key, body: {} });
    expect(sixth.status, describeResponse(sixth)).toBe(400);
    expect(sixth.body.error.message).toMatch(/already has 5 active keys.*revoke one first/);
  });

  it('rotates its own key with a one-hour grace: both keys work until it ends, then the old one is refused', async () => {
    const { keyId, key } = await holder(['manage:keys', 'api:sanitiser']);
    const rotated = await harness.api<{ key: OwnKey; api_key: string; previous: OwnKey }>('POST', `/keys/${keyId}/rotate`, {
      key,
      body: { grace_seconds: 3600 },
    });
    expect(rotated.status, describeResponse(rotated)).toBe(201);
    const graceEnd = new Date(harness.clock.now() + HOUR_MS).toISOString();
    expect(rotated.body.data.previous).toMatchObject({ id: keyId, status: 'active', expires_at: graceEnd });
    expect(rotated.body.data.key).toMatchObject({ scopes: ['manage:keys', 'api:sanitiser'], status: 'active', expires_at: null, replaced_by: null });
    expect(rotated.body.data.previous.replaced_by).toBe(rotated.body.data.key.id);
    const fresh = rotated.body.data.api_key;

    // A key is rotated once (regression: rotating it again during its grace made a second successor).
    const again = await harness.api('POST', `/keys/${keyId}/rotate`, { key, body: { grace_seconds: 60 } });
    expect(again.status, describeResponse(again)).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'CONFLICT' });
    expect(again.body.error.message).toBe(`Key ${keyId} was already rotated; its successor is key ${rotated.body.data.key.id}. Rotate that key instead.`);
    expect((await harness.api<{ items: OwnKey[] }>('GET', '/keys', { key })).body.data.items).toHaveLength(2);

    harness.clock.advance(HOUR_MS - 1_000);
    for (const candidate of [key, fresh]) {
      const response = await harness.api('GET', '/keys', { key: candidate });
      expect(response.status, describeResponse(response)).toBe(200);
    }
    harness.clock.advance(1_000);
    const old = await harness.api('GET', '/keys', { key });
    expect(old.status, describeResponse(old)).toBe(401);
    expect(old.body.error.code).toBe('INVALID_API_KEY');
    const current = await harness.api<{ items: OwnKey[] }>('GET', '/keys', { key: fresh });
    expect(current.status, describeResponse(current)).toBe(200);
    expect(current.body.data.items.map((item) => [item.id, item.status])).toEqual([
      [keyId, 'expired'],
      [rotated.body.data.key.id, 'active'],
    ]);
  });

  it('keeps at most six keys working while grace periods run (regression: chained graceful rotations gave any number)', async () => {
    const { key } = await holder(['manage:keys', 'api:sanitiser']);
    for (let count = 2; count <= 5; count += 1) expect((await harness.api('POST', '/keys', { key, body: {} })).status).toBe(201);
    const rotate = (id: string, body: object, caller: string) =>
      harness.api<{ key: OwnKey; api_key: string }>('POST', `/keys/${id}/rotate`, { key: caller, body });
    const listed = await harness.api<{ items: OwnKey[] }>('GET', '/keys', { key });
    const target = listed.body.data.items.at(-1)?.id ?? '';
    const first = await rotate(target, { grace_seconds: 3600 }, key);
    expect(first.status, describeResponse(first)).toBe(201);
    const chained = await rotate(first.body.data.key.id, { grace_seconds: 3600 }, key);
    expect(chained.status, describeResponse(chained)).toBe(400);
    expect(chained.body.error.message).toMatch(/already has 6 working keys, counting those still in a rotation's grace period/);
    const revoking = await rotate(first.body.data.key.id, {}, key);
    expect(revoking.status, 'a rotation without grace adds no key').toBe(201);
    harness.clock.advance(HOUR_MS);
    const later = await rotate(revoking.body.data.key.id, { grace_seconds: 60 }, key);
    expect(later.status, 'once the grace period has ended').toBe(201);
  });

  it('rotates without grace by revoking the old key at once, and refuses a grace over 24 hours', async () => {
    const { keyId, key } = await holder(['manage:keys']);
    const tooLong = await harness.api('POST', `/keys/${keyId}/rotate`, { key, body: { grace_seconds: 86_401 } });
    expect(tooLong.status, describeResponse(tooLong)).toBe(400);
    expect(tooLong.body.error.message).toContain('body.grace_seconds: must be at most 86400');
    const rotated = await harness.api<{ api_key: string; previous: OwnKey }>('POST', `/keys/${keyId}/rotate`, { key });
    expect(rotated.status, describeResponse(rotated)).toBe(201);
    expect(rotated.body.data.previous.status).toBe('revoked');
    expect((await harness.api('GET', '/keys', { key })).status).toBe(401);
    expect((await harness.api('GET', '/keys', { key: rotated.body.data.api_key })).status).toBe(200);
  });

  it('revokes the calling key itself: this request completes, the next one is refused', async () => {
    const { keyId, key } = await holder(['manage:keys']);
    const revoked = await harness.api<OwnKey>('POST', `/keys/${keyId}/revoke`, { key });
    expect(revoked.status, describeResponse(revoked)).toBe(200);
    expect(revoked.body.data).toMatchObject({ id: keyId, status: 'revoked' });
    const next = await harness.api('GET', '/keys', { key });
    expect(next.status).toBe(401);
    expect(next.body.error.code).toBe('INVALID_API_KEY');
  });

  it('shows when each key was last used, to the minute, without counting anything but the requests', async () => {
    const { accountId, key } = await holder(['manage:keys']);
    const other = await harness.createKey(accountId, { scopes: ['api:sanitiser'] });
    const before = await harness.api<{ items: OwnKey[] }>('GET', '/keys', { key });
    expect(before.body.data.items.find((item) => item.id === other.id)?.last_used_at).toBeNull();
    harness.clock.advance(90_000);
    await harness.api('POST', '/sanitiser/scan', { key: other.key, body: { text: 'x' } });
    const now = harness.clock.now();
    const after = await harness.api<{ items: OwnKey[] }>('GET', '/keys', { key });
    expect(after.body.data.items.find((item) => item.id === other.id)?.last_used_at).toBe(new Date(now - (now % 60_000)).toISOString());
  });

  it("answers another account's key id exactly like a missing one", async () => {
    const owner = await harness.expertWithKey();
    const { key } = await holder(['manage:keys']);
    for (const action of ['rotate', 'revoke']) {
      const foreign = await harness.api('POST', `/keys/${owner.keyId}/${action}`, { key });
      expect(foreign.status, describeResponse(foreign)).toBe(404);
      expect(foreign.body.error.message).toBe(`No API key with id ${owner.keyId}.`);
    }
    expect((await harness.api('GET', '/context-cards', { key: owner.key })).status, 'the other key still works').toBe(200);
  });
});

describe('usage, ledger and runs', () => {
  it('aggregates usage by every grouping to exactly the sums of the usage rows', async () => {
    const { accountId, key } = await holder(['read:usage', 'execute:workflow', 'execute:composition', 'execute:skill', 'execute:persona', 'api:judge']);
    await executeEveryKind(key, accountId);
    harness.clock.advance(DAY_MS);
    await executeEveryKind(key, accountId);
    expect((await harness.api('POST', '/judge/run', { key, body: { prompt: 'Write a haiku about autumn.' } })).status).toBe(200);
    const rows = await harness.store.usage.listByAccount(accountId);
    expect(rows.length).toBeGreaterThan(8);
    for (const groupBy of USAGE_GROUPINGS) {
      const response = await harness.api<{ rows: Array<Record<string, number | string | null>>; totals: Record<string, number> }>(
        'GET',
        `/usage?group_by=${groupBy}`,
        { key },
      );
      expect(response.status, describeResponse(response)).toBe(200);
      const expected = expectedAggregate(rows, groupBy, 0, harness.clock.now() + 1).map(
        ({ modelCalls, inputTokens, outputTokens, totalTokens, chargedTokens, ...row }) => ({
          ...row,
          model_calls: modelCalls,
          input_tokens: inputTokens,
          output_tokens: outputTokens,
          total_tokens: totalTokens,
          credits_charged: chargedTokens / 1000,
        }),
      );
      expect(response.body.data.rows, groupBy).toEqual(expected);
      expect(response.body.data.totals.requests).toBe(9);
      expect(response.body.data.totals.total_tokens).toBe(
        rows.filter((row) => !(row.operation === 'execute_workflow' && row.nodeId === null)).reduce((total, row) => total + row.totalTokens, 0),
      );
    }
    const days = await harness.api<{ rows: Array<{ group: string }> }>('GET', '/usage?group_by=day', { key });
    expect(days.body.data.rows, 'the executions span two UTC days').toHaveLength(2);
  });

  it('limits usage to the range asked and validates it with field paths', async () => {
    const { key } = await holder(['read:usage']);
    const empty = await harness.api<{ rows: unknown[]; from: string; to: string }>(
      'GET',
      '/usage?from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z&group_by=key',
      { key },
    );
    expect(empty.status, describeResponse(empty)).toBe(200);
    expect(empty.body.data).toMatchObject({ rows: [], from: '2020-01-01T00:00:00.000Z', to: '2020-02-01T00:00:00.000Z' });
    // An offset is ISO 8601 too (regression: "Invalid ISO datetime"); the answer is in UTC.
    const offset = await harness.api<{ from: string; to: string }>(
      'GET',
      `/usage?from=${encodeURIComponent('2020-01-01T05:00:00+05:00')}&to=2020-02-01T00:00:00Z`,
      {
        key,
      },
    );
    expect(offset.status, describeResponse(offset)).toBe(200);
    expect(offset.body.data).toMatchObject({ from: '2020-01-01T00:00:00.000Z' });
    const cases: Array<[string, RegExp]> = [
      ['/usage?group_by=week', /query\.group_by/],
      ['/usage?from=yesterday', /query\.from: must be an ISO 8601 date and time, such as .*\+01:00\.$/],
      // An offset's + sent unencoded arrives as a space: the message says how to send it (regression: its example failed in a URL).
      ['/usage?from=2020-01-01T05:00:00+05:00', /query\.from: must be .*; in a URL, write the offset's \+ as %2B \(a bare \+ is read as a space\)\.$/],
      ['/usage?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z', /query\.from: must be before to/],
      ['/usage?from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z', /query\.from: must be at most 366 days before to/],
      ['/usage?from=2020-01-01T00:00:00Z', /from: the range .* at most 366 days/],
      ['/usage?to=2020-01-01T00:00:00Z&from=2020-01-01T00:00:00Z', /must be before to/],
    ];
    for (const [path, message] of cases) {
      const response = await harness.api('GET', path, { key });
      expect(response.status, `${path}: ${describeResponse(response)}`).toBe(400);
      expect(response.body.error.message).toMatch(message);
    }
  });

  it('lists the ledger newest first with balances after each entry, in pages', async () => {
    const { accountId, key } = await holder(['read:usage', 'execute:composition', 'execute:skill', 'execute:persona', 'execute:workflow']);
    await harness.core.credits.grant(accountId, 2, 'top-up');
    await executeEveryKind(key, accountId);
    type Ledger = {
      balance: { balance_tokens: number };
      items: Array<{ id: string; kind: string; delta_tokens: number; balance_after_tokens: number }>;
      next_cursor?: string | null;
    };
    const ledger = await harness.api<Ledger>('GET', '/credits/ledger', { key });
    expect(ledger.status, describeResponse(ledger)).toBe(200);
    const { items, balance } = ledger.body.data;
    expect(ledger.body.data.next_cursor, 'one default page holds them all').toBeNull();
    expect(items.at(-1)).toMatchObject({ kind: 'grant', delta_tokens: 1_000_000, balance_after_tokens: 1_000_000 });
    expect(items.at(-2)).toMatchObject({ kind: 'grant', delta_tokens: 2_000 });
    expect(items.slice(0, -2).every((entry) => entry.kind === 'charge' && entry.delta_tokens < 0)).toBe(true);
    expect(items[0]?.balance_after_tokens).toBe(balance.balance_tokens);
    for (const [index, entry] of items.slice(0, -1).entries())
      expect(entry.balance_after_tokens).toBe((items[index + 1]?.balance_after_tokens ?? 0) + entry.delta_tokens);
    const first = await harness.api<Ledger>('GET', '/credits/ledger?limit=2', { key });
    const rest = await harness.api<Ledger>('GET', `/credits/ledger?limit=100&cursor=${first.body.data.next_cursor}`, { key });
    expect([...first.body.data.items, ...rest.body.data.items].map((entry) => entry.id)).toEqual(items.map((entry) => entry.id));
    expect(rest.body.data.next_cursor).toBeNull();
  });

  it('records a run for every execution of each kind, newest first, with its trace, and 404s another account’s run', async () => {
    const { accountId, key } = await holder(['read:usage', 'execute:composition', 'execute:skill', 'execute:persona', 'execute:workflow']);
    const { resources, workflowRunId } = await executeEveryKind(key, accountId);
    type Run = {
      id: string;
      kind: string;
      resource_id: string;
      version: number | null;
      status: string;
      model: string | null;
      token_usage: { total_tokens: number };
      credits_charged: number;
      payload_available: boolean;
    };
    const listed = await harness.api<{ items: Run[] }>('GET', '/runs', { key });
    expect(listed.status, describeResponse(listed)).toBe(200);
    expect(listed.body.data.items.map((run) => [run.kind, run.resource_id, run.status])).toEqual([
      ['persona', resources.persona, 'completed'],
      ['skill', resources.skill, 'completed'],
      ['composition', resources.composition, 'completed'],
      ['workflow', resources.workflow, 'completed'],
    ]);
    expect(listed.body.data.items.every((run) => run.version === 1 && run.payload_available)).toBe(true);
    const rows = await harness.store.usage.listByAccount(accountId);
    const composition = listed.body.data.items[2];
    const compositionUsage = rows.find((row) => row.operation === 'execute_composition');
    expect(composition).toMatchObject({
      model: 'echo/echo',
      token_usage: { total_tokens: compositionUsage?.totalTokens },
      credits_charged: (compositionUsage?.chargedTokens ?? 0) / 1000,
    });

    const workflow = await harness.api<Run & { inputs: { variables: unknown }; result: { run_id: string; node_results: unknown[] } }>(
      'GET',
      `/runs/${workflowRunId}`,
      { key },
    );
    expect(workflow.status, describeResponse(workflow)).toBe(200);
    expect(workflow.body.data).toMatchObject({
      id: workflowRunId,
      kind: 'workflow',
      model: null,
      inputs: { variables: RELEASE_VARIABLES },
      result: { run_id: workflowRunId },
    });
    expect(workflow.body.data.result.node_results.length).toBeGreaterThan(0);
    const workflowCharge = rows.filter((row) => row.runId === workflowRunId && row.nodeId !== null).reduce((total, row) => total + row.chargedTokens, 0);
    expect(workflow.body.data.credits_charged).toBe(workflowCharge / 1000);

    const firstPage = await harness.api<{ items: Run[]; next_cursor: string }>('GET', '/runs?limit=3', { key });
    const lastPage = await harness.api<{ items: Run[]; next_cursor: string | null }>('GET', `/runs?limit=3&cursor=${firstPage.body.data.next_cursor}`, { key });
    expect([...firstPage.body.data.items, ...lastPage.body.data.items].map((run) => run.id)).toEqual(listed.body.data.items.map((run) => run.id));
    expect(lastPage.body.data.next_cursor).toBeNull();
    const onlySkills = await harness.api<{ items: Run[] }>('GET', `/runs?kind=skill&status=completed`, { key });
    expect(onlySkills.body.data.items.map((run) => run.resource_id)).toEqual([resources.skill]);
    const byResource = await harness.api<{ items: Run[] }>('GET', `/runs?resource_id=${resources.composition}`, { key });
    expect(byResource.body.data.items.map((run) => run.kind)).toEqual(['composition']);
    const badKind = await harness.api('GET', '/runs?kind=judge', { key });
    expect(badKind.status).toBe(400);
    expect(badKind.body.error.message).toContain('query.kind');

    const intruder = await holder(['read:usage']);
    const foreign = await harness.api('GET', `/runs/${workflowRunId}`, { key: intruder.key });
    expect(foreign.status, describeResponse(foreign)).toBe(404);
    expect(foreign.body.error.message).toBe(`No run with id ${workflowRunId}.`);
    expect((await harness.api<{ count: number }>('GET', '/runs', { key: intruder.key })).body.data.count).toBe(0);
  });

  it('records an execution that failed after its model call as a failed run with its error', async () => {
    const { accountId, organisationId, key } = await holder(['read:usage', 'execute:composition']);
    const { ids } = await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE);
    const compositionId = ids['composition:release-notes'] ?? '';
    // The echo model answers the prompt, secret included, which the output guardrail blocks: charged, and failed.
    await harness.core.accounts.setOrganisationPolicy(organisationId, { guardrailOutputs: 'block' });
    const response = await harness.api('POST', `/compositions/${compositionId}/execute`, {
      key,
      body: { variables: { ...RELEASE_VARIABLES, changes: `token ghp_${'A1b2C3d4E5'.repeat(3)}123456` } },
    });
    expect(response.status, describeResponse(response)).toBe(422);
    const runs = await harness.api<{ items: Array<{ id: string; status: string; credits_charged: number }> }>('GET', '/runs', { key });
    expect(runs.body.data.items).toMatchObject([{ status: 'failed' }]);
    expect(runs.body.data.items[0]?.credits_charged).toBeGreaterThan(0);
    const run = await harness.api<{ result: { error: { code: string } } }>('GET', `/runs/${runs.body.data.items[0]?.id}`, { key });
    expect(run.body.data.result.error.code).toBe(response.body.error.code);
  });

  it('prunes run payloads after retention.run_days in the housekeeping sweep, keeping the runs, usage and ledger', async () => {
    const { accountId, key } = await holder(['read:usage', 'execute:composition', 'execute:skill', 'execute:persona', 'execute:workflow']);
    const { workflowRunId } = await executeEveryKind(key, accountId);
    const usageBefore = await harness.store.usage.listByAccount(accountId);
    const ledgerBefore = await harness.store.credits.ledger(accountId);
    harness.clock.advance(30 * DAY_MS - 1);
    await harness.core.maintenance.sweep();
    expect((await harness.api<{ payload_available: boolean }>('GET', `/runs/${workflowRunId}`, { key })).body.data.payload_available).toBe(true);
    harness.clock.advance(2);
    const report = await harness.core.maintenance.sweep();
    expect(report.prunedRunPayloads).toBeGreaterThanOrEqual(4);
    const pruned = await harness.api<{ payload_available: boolean; inputs: unknown; result: unknown; status: string; kind: string }>(
      'GET',
      `/runs/${workflowRunId}`,
      { key },
    );
    expect(pruned.status, describeResponse(pruned)).toBe(200);
    expect(pruned.body.data).toMatchObject({ kind: 'workflow', status: 'completed', payload_available: false, inputs: null, result: null });
    const listed = await harness.api<{ items: Array<{ payload_available: boolean }> }>('GET', '/runs', { key });
    expect(listed.body.data.items.map((run) => run.payload_available)).toEqual([false, false, false, false]);
    expect(await harness.store.usage.listByAccount(accountId)).toEqual(usageBefore);
    expect(await harness.store.credits.ledger(accountId)).toEqual(ledgerBefore);
  });
});
