/**
 * A persona is a context card, and the context-card operations must not get around the persona
 * scopes (regression: a key with api:expert, refused PATCH /personas/{id}, rewrote the persona
 * through PATCH /context-cards/{id}, created one with POST /context-cards, deleted one with
 * DELETE /context-cards/{id}, and read persona prompts in GET /context-cards without read:persona).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { createContextCard } from '../../src/operations/create-context-card.js';
import type { listContextCards } from '../../src/operations/list-context-cards.js';
import type { OperationOutput } from '../../src/operations/operation.js';
import { STREAM_PAGE_ROWS } from '../../src/core/pages.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

type Card = OperationOutput<typeof createContextCard>;
type CardList = OperationOutput<typeof listContextCards>;

let harness: Harness;
/** A key with every scope, which reads the account as its holder would. */
let ownerKey: string;
let accountId: string;

beforeEach(async () => {
  harness = await createHarness();
  ({ key: ownerKey, accountId } = await harness.expertWithKey());
});
afterEach(() => harness.close());

async function keyWith(scopes: string[]): Promise<string> {
  return (await harness.createKey(accountId, { scopes })).key;
}

async function createCard(body: Record<string, unknown>): Promise<string> {
  const created = await harness.api<Card>('POST', '/context-cards', { key: ownerKey, body });
  expect(created.status, describeResponse(created)).toBe(201);
  return created.body.data.id;
}

/** The persona as its holder reads it: version and content, or the status when it is gone. */
async function personaAsOwner(id: string): Promise<{ version: number; content: string } | number> {
  const read = await harness.api<{ version: number; content: string }>('GET', `/personas/${id}`, { key: ownerKey });
  return read.status === 200 ? { version: read.body.data.version, content: read.body.data.content } : read.status;
}

function expectMissingScope(response: Awaited<ReturnType<Harness['api']>>, scopes: string): void {
  expect(response.status, describeResponse(response)).toBe(403);
  expect(response.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
  expect(response.body.error.message).toMatch(new RegExp(`it needs one of: ${scopes}\\.$`));
}

describe('persona cards through the context-card operations', () => {
  for (const scopes of [['api:expert'], ['api:context-cards']]) {
    it(`refuses a key with ${scopes.join(', ')} and without write:persona every persona write, writing nothing`, async () => {
      const key = await keyWith(scopes);
      const persona = await createCard({ title: 'Careful', content: 'You are careful.', category: 'persona' });
      const facts = await createCard({ title: 'Facts', content: 'We ship on Fridays.', category: 'facts' });

      expectMissingScope(await harness.api('PATCH', `/context-cards/${persona}`, { key, body: { content: 'You are EVIL now.' } }), 'write:persona');
      expectMissingScope(await harness.api('PATCH', `/context-cards/${persona}`, { key, body: { category: 'facts' } }), 'write:persona');
      expectMissingScope(await harness.api('DELETE', `/context-cards/${persona}`, { key }), 'write:persona');
      expect(await personaAsOwner(persona)).toEqual({ version: 1, content: 'You are careful.' });

      expectMissingScope(await harness.api('POST', '/context-cards', { key, body: { title: 'Sneaky', content: 'x', category: 'persona' } }), 'write:persona');
      expectMissingScope(await harness.api('PATCH', `/context-cards/${facts}`, { key, body: { category: 'persona' } }), 'write:persona');
      const personas = await harness.api<{ items: Array<{ id: string }> }>('GET', '/personas', { key: ownerKey });
      expect(personas.body.data.items.map((item) => item.id)).toEqual([persona]);
      expect(await personaAsOwner(facts)).toBe(404);
    });
  }

  it('still lets such a key create, change and delete the cards that are not personas', async () => {
    const key = await keyWith(['api:expert']);
    const created = await harness.api<Card>('POST', '/context-cards', { key, body: { title: 'Voice', content: 'Warm.', category: 'style' } });
    expect(created.status, describeResponse(created)).toBe(201);
    const updated = await harness.api<Card>('PATCH', `/context-cards/${created.body.data.id}`, { key, body: { content: 'Warmer.' } });
    expect(updated.body.data, describeResponse(updated)).toMatchObject({ version: 2, content: 'Warmer.' });
    expect((await harness.api('DELETE', `/context-cards/${created.body.data.id}`, { key })).status).toBe(204);
  });

  it('lets a key holding write:persona as well create, change, re-categorise and delete personas through them', async () => {
    const key = await keyWith(['api:context-cards', 'write:persona']);
    const created = await harness.api<Card>('POST', '/context-cards', { key, body: { title: 'Coach', content: 'You coach.', category: 'persona' } });
    expect(created.status, describeResponse(created)).toBe(201);
    const id = created.body.data.id;
    const updated = await harness.api<Card>('PATCH', `/context-cards/${id}`, { key, body: { content: 'You coach kindly.' } });
    expect(updated.status, describeResponse(updated)).toBe(200);
    expect(await personaAsOwner(id)).toEqual({ version: 2, content: 'You coach kindly.' });
    expect((await harness.api('PATCH', `/context-cards/${id}`, { key, body: { category: 'notes' } })).status).toBe(200);
    expect(await personaAsOwner(id)).toBe(404);
    expect((await harness.api('PATCH', `/context-cards/${id}`, { key, body: { category: 'persona' } })).status).toBe(200);
    expect((await harness.api('DELETE', `/context-cards/${id}`, { key })).status).toBe(204);
    expect(await personaAsOwner(id)).toBe(404);
  });

  it('leaves personas out of the card list of a key without read:persona or execute:persona, paging included, and refuses reading one', async () => {
    const titles = ['one', 'persona-a', 'two', 'persona-b', 'persona-c', 'three'];
    const ids = new Map<string, string>();
    for (const title of titles) {
      harness.clock.advance(1_000);
      ids.set(title, await createCard({ title, content: `${title} content`, ...(title.startsWith('persona') ? { category: 'persona' } : {}) }));
    }
    const key = await keyWith(['api:expert']);

    const all = await harness.api<CardList>('GET', '/context-cards', { key });
    expect(all.status, describeResponse(all)).toBe(200);
    expect(all.body.data.items.map((card) => card.title)).toEqual(['three', 'two', 'one']);
    expect(all.body.data.count).toBe(3);

    const first = await harness.api<CardList>('GET', '/context-cards?limit=2', { key });
    expect(
      first.body.data.items.map((card) => card.title),
      describeResponse(first),
    ).toEqual(['three', 'two']);
    const second = await harness.api<CardList>('GET', `/context-cards?limit=2&cursor=${first.body.data.next_cursor}`, { key });
    expect(
      second.body.data.items.map((card) => card.title),
      describeResponse(second),
    ).toEqual(['one']);
    expect(second.body.data.next_cursor).toBeNull();

    const personaId = ids.get('persona-a') ?? '';
    expectMissingScope(await harness.api('GET', `/context-cards/${personaId}`, { key }), 'read:persona, execute:persona');
    expect((await harness.api<Card>('GET', `/context-cards/${ids.get('one')}`, { key })).status).toBe(200);

    // execute:persona lists and reads personas as read:persona does (GET /personas/{id} too).
    for (const personaScope of ['read:persona', 'execute:persona']) {
      const reader = await keyWith(['api:context-cards', personaScope]);
      const listed = await harness.api<CardList>('GET', '/context-cards', { key: reader });
      expect(listed.body.data.count, describeResponse(listed)).toBe(6);
      const read = await harness.api<Card>('GET', `/context-cards/${personaId}`, { key: reader });
      expect(read.body.data.content, describeResponse(read)).toBe('persona-a content');
    }
  });

  it('pages past more personas in a row than the store is read in at a time', async () => {
    const older = await createCard({ title: 'older', content: 'x' });
    for (let index = 0; index < STREAM_PAGE_ROWS + 10; index++) {
      harness.clock.advance(1_000);
      await harness.core.contextCards.create(accountId, { title: `persona ${index}`, content: 'x', category: 'persona' });
    }
    harness.clock.advance(1_000);
    const newer = await createCard({ title: 'newer', content: 'x' });
    const key = await keyWith(['api:context-cards']);

    const first = await harness.api<CardList>('GET', '/context-cards?limit=1', { key });
    expect(first.body.data, describeResponse(first)).toMatchObject({ items: [{ id: newer }], next_cursor: newer });
    const second = await harness.api<CardList>('GET', `/context-cards?limit=1&cursor=${newer}`, { key });
    expect(second.body.data, describeResponse(second)).toMatchObject({ items: [{ id: older }], next_cursor: null });
    const all = await harness.api<CardList>('GET', '/context-cards', { key });
    expect(
      all.body.data.items.map((card) => card.id),
      describeResponse(all),
    ).toEqual([newer, older]);
  });
});
