import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OperationOutput } from '../../src/operations/operation.js';
import type { createContextCard } from '../../src/operations/create-context-card.js';
import type { listContextCards } from '../../src/operations/list-context-cards.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

type Card = OperationOutput<typeof createContextCard>;
type CardList = OperationOutput<typeof listContextCards>;

let harness: Harness;
let key: string;

beforeEach(async () => {
  harness = await createHarness();
  ({ key } = await harness.expertWithKey());
});
afterEach(() => harness.close());

describe('context cards', () => {
  it('creates a card and answers 201 with the full card shape', async () => {
    const response = await harness.api<Card>('POST', '/context-cards', {
      key,
      body: { title: 'Brand voice', content: 'Warm, concise, no jargon.', category: 'style', tags: ['voice'] },
    });
    expect(response.status, describeResponse(response)).toBe(201);
    expect(response.body.success).toBe(true);
    expect(response.body.data).toMatchObject({
      title: 'Brand voice',
      content: 'Warm, concise, no jargon.',
      category: 'style',
      tags: ['voice'],
      description: null,
      emoji: null,
    });
    expect(response.body.data.created_at).toMatch(/Z$/);
  });

  it('reads, updates partially and deletes a card', async () => {
    const created = await harness.api<Card>('POST', '/context-cards', { key, body: { title: 'A', content: 'alpha' } });
    const id = created.body.data.id;

    const read = await harness.api<Card>('GET', `/context-cards/${id}`, { key });
    expect(read.status).toBe(200);
    expect(read.body.data.content).toBe('alpha');

    harness.clock.advance(1_000);
    const updated = await harness.api<Card>('PATCH', `/context-cards/${id}`, { key, body: { content: 'beta' } });
    expect(updated.status, describeResponse(updated)).toBe(200);
    expect(updated.body.data).toMatchObject({ title: 'A', content: 'beta' });
    expect(updated.body.data.updated_at).not.toBe(updated.body.data.created_at);

    const deleted = await harness.api('DELETE', `/context-cards/${id}`, { key });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');

    const gone = await harness.api('GET', `/context-cards/${id}`, { key });
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('RESOURCE_NOT_FOUND');
  });

  it('lands an update sent with expected_version only on that version, else 409 with nothing written', async () => {
    const created = await harness.api<Card>('POST', '/context-cards', { key, body: { title: 'A', content: 'alpha' } });
    const id = created.body.data.id;
    expect(created.body.data.version).toBe(1);
    const updated = await harness.api<Card>('PATCH', `/context-cards/${id}`, { key, body: { content: 'beta', expected_version: 1 } });
    expect(updated.body.data).toMatchObject({ version: 2, content: 'beta' });
    const stale = await harness.api('PATCH', `/context-cards/${id}`, { key, body: { content: 'gamma', expected_version: 1 } });
    expect(stale.status).toBe(409);
    expect(stale.body.error.message).toBe(
      `Context card ${id} is at version 2, not 1 (expected_version): it was changed since you read it. Read it again and apply your change to version 2.`,
    );
    expect((await harness.api<Card>('GET', `/context-cards/${id}`, { key })).body.data).toMatchObject({ version: 2, content: 'beta' });
    const alone = await harness.api('PATCH', `/context-cards/${id}`, { key, body: { expected_version: 2 } });
    expect(alone.status).toBe(400);
  });

  it('lists every card newest first and pages with limit and cursor', async () => {
    for (const title of ['one', 'two', 'three']) {
      await harness.api('POST', '/context-cards', { key, body: { title, content: title } });
    }
    const all = await harness.api<CardList>('GET', '/context-cards', { key });
    expect(all.body.data.count).toBe(3);
    expect(all.body.data.items.map((card) => card.title)).toEqual(['three', 'two', 'one']);
    expect(all.body.data).not.toHaveProperty('next_cursor');

    const first = await harness.api<CardList>('GET', '/context-cards?limit=2', { key });
    expect(first.body.data.items.map((card) => card.title)).toEqual(['three', 'two']);
    expect(first.body.data.next_cursor).toBe(first.body.data.items[1]?.id);
    const second = await harness.api<CardList>('GET', `/context-cards?limit=2&cursor=${first.body.data.next_cursor}`, { key });
    expect(second.body.data.items.map((card) => card.title)).toEqual(['one']);
    expect(second.body.data.next_cursor).toBeNull();
  });

  it('answers 404 for PATCH and DELETE of a missing card', async () => {
    const missing = '0190a4b0-0000-7000-8000-000000000000';
    expect((await harness.api('PATCH', `/context-cards/${missing}`, { key, body: { title: 'x' } })).status).toBe(404);
    expect((await harness.api('DELETE', `/context-cards/${missing}`, { key })).status).toBe(404);
  });

  it('rejects bad input with a 400 naming the field', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ content: 'no title' }, /body\.title/],
      [{ title: '', content: 'x' }, /body\.title: must not be empty/],
      [{ title: 'x', content: 42 }, /body\.content/],
      [{ title: 'x', content: 'y', tags: 'not-a-list' }, /body\.tags/],
      [{ title: 'x', content: 'y', titel: 'typo' }, /titel/],
    ];
    for (const [body, message] of cases) {
      const response = await harness.api('POST', '/context-cards', { key, body });
      expect(response.status, describeResponse(response)).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.message).toMatch(message);
    }
    const empty = await harness.api('PATCH', '/context-cards/0190a4b0-0000-7000-8000-000000000000', { key, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toMatch(/at least one field/);
  });
});
