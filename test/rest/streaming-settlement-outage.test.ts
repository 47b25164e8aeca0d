/**
 * A call whose settlement meets the store out of reach (a SQLite file another process holds
 * locked past the wait, PostgreSQL gone), streamed or not: nothing is charged, the call's one
 * reservation stays held until it expires (docs/deployment.md), and no second one is made beside
 * it. Regression: a stream was charged from a second reservation while its first stayed held for
 * 15 minutes, so an account with a tight balance was refused (402) after a call that succeeded.
 * The outage is the store's own error for it, thrown by the settlement before it changed anything.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { RESERVATION_TTL_MS } from '../../src/core/credits/credits.js';
import { type CreditReservationRequest, StoreUnavailableError } from '../../src/db/store.js';
import { collectEvents, postEventStream } from '../helpers/event-stream.js';
import { describeResponse } from '../helpers/harness.js';
import { createProviderHarness, type ProviderHarness } from '../helpers/provider-harness.js';

const GRANTED_TOKENS = 1_000_000;

let harness: ProviderHarness;
let key: string;
let accountId: string;
let personaPath: string;
/** Every reservation the account asked the store for during the test. */
let reservations: CreditReservationRequest[];

beforeEach(async () => {
  harness = await createProviderHarness();
  ({ key, accountId } = await harness.expertWithKey());
  const ids = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids;
  personaPath = `/personas/${ids['persona:plain-editor']}/execute`;
  harness.fake.setBehaviour({ content: 'Plainly put, it works.', usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });

  const credits = harness.store.credits;
  const reserve = credits.reserve.bind(credits);
  reservations = [];
  credits.reserve = async (request) => {
    reservations.push(request);
    return reserve(request);
  };
  // The next settlement fails as an unreachable database does, before it changed anything.
  const settle = credits.settle.bind(credits);
  credits.settle = async () => {
    credits.settle = settle;
    throw new StoreUnavailableError('The SQLite database is locked by another process.');
  };
});
afterEach(() => harness.close());

/** The ledger holds the grant only, and the balance its tokens, with the call's one reservation held until it expires. */
async function expectUnchargedWithOneReservationHeld(): Promise<void> {
  expect(reservations, 'one reservation, never a second beside it').toHaveLength(1);
  const [reservation] = reservations;
  expect((await harness.store.credits.ledger(accountId)).map((entry) => entry.kind)).toEqual(['grant']);
  expect(await harness.store.credits.balance(accountId)).toEqual({ balanceTokens: GRANTED_TOKENS, reservedTokens: reservation?.tokens });
  const rows = await harness.store.usage.listByAccount(accountId);
  expect(rows.map((row) => ({ status: row.status, chargedTokens: row.chargedTokens }))).toEqual([{ status: 'billing_failed', chargedTokens: 0 }]);

  harness.clock.advance(RESERVATION_TTL_MS + 1);
  await harness.core.credits.releaseExpired();
  expect(await harness.store.credits.balance(accountId), 'once expired, nothing is held and nothing was charged').toEqual({
    balanceTokens: GRANTED_TOKENS,
    reservedTokens: 0,
  });
  expect((await harness.store.credits.ledger(accountId)).map((entry) => entry.kind)).toEqual(['grant']);
}

describe('a settlement that meets the store out of reach', () => {
  it('ends a stream with an error event after its text, uncharged and holding only its one reservation (regression: charged from a second reservation while the first stayed held)', async () => {
    const events = await collectEvents(await postEventStream(harness.url, personaPath, { key, body: { input: 'Fix this.' } }));
    const text = events.filter((event) => event.event === 'delta').map((event) => (event.data as { text: string }).text);
    expect(text.join(''), JSON.stringify(events)).toBe('Plainly put, it works.');
    expect(
      events.map((event) => event.event),
      JSON.stringify(events),
    ).not.toContain('done');
    expect(events.at(-1), JSON.stringify(events)).toMatchObject({ event: 'error', data: { success: false, error: { code: 'SERVICE_UNAVAILABLE' } } });
    await expectUnchargedWithOneReservationHeld();
  });

  it('answers a JSON call 503 and withholds its answer, as the stream ends', async () => {
    const response = await harness.api('POST', personaPath, { key, body: { input: 'Fix this.' } });
    expect(response.status, describeResponse(response)).toBe(503);
    expect(response.body.error.code).toBe('SERVICE_UNAVAILABLE');
    await expectUnchargedWithOneReservationHeld();
  });
});
