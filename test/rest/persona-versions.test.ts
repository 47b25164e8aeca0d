/**
 * A persona is a context card of category persona, and a card can change category: the versions
 * the card wrote as another category are not the persona's. They are neither listed, labelled,
 * read nor executed as persona versions (regression: a persona ran its old "facts" content).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeResponse } from '../helpers/harness.js';
import { createProviderHarness, type ProviderHarness } from '../helpers/provider-harness.js';

let harness: ProviderHarness;
let key: string;
let accountId: string;

beforeEach(async () => {
  harness = await createProviderHarness();
  ({ key, accountId } = await harness.expertWithKey());
});
afterEach(() => harness.close());

/** A card written as facts (version 1), then made a persona (version 2). */
async function cardTurnedPersona(): Promise<string> {
  const created = await harness.api<{ id: string }>('POST', '/context-cards', { key, body: { title: 't', content: 'FACTS v1', category: 'facts' } });
  expect(created.status, describeResponse(created)).toBe(201);
  const id = created.body.data.id;
  const updated = await harness.api<{ version: number }>('PATCH', `/context-cards/${id}`, { key, body: { category: 'persona', content: 'PERSONA v2' } });
  expect(updated.body.data.version, describeResponse(updated)).toBe(2);
  return id;
}

/** The system message of the upstream request at `index`. */
function systemMessageOf(index: number): unknown {
  const body = harness.fake.requests[index]?.body as { messages?: Array<{ role: string; content: string }> } | undefined;
  return body?.messages?.find((message) => message.role === 'system')?.content;
}

describe('persona versions written as another category', () => {
  it('lists only the versions the card wrote as a persona', async () => {
    const id = await cardTurnedPersona();
    const versions = await harness.api<{ items: Array<{ version: number }> }>('GET', `/personas/${id}/versions`, { key });
    expect(versions.status, describeResponse(versions)).toBe(200);
    expect(versions.body.data.items.map((item) => item.version)).toEqual([2]);
    const paged = await harness.api<{ items: Array<{ version: number }>; next_cursor: string | null }>('GET', `/personas/${id}/versions?limit=1`, { key });
    expect(paged.body.data, describeResponse(paged)).toMatchObject({ items: [{ version: 2 }], next_cursor: null });

    const read = await harness.api('GET', `/personas/${id}/versions/1`, { key });
    expect(read.status, describeResponse(read)).toBe(404);
    expect(read.body.error.message).toContain('its only version as a persona is 2');
  });

  it('refuses to label such a version, naming the persona versions there are', async () => {
    const id = await cardTurnedPersona();
    const labelled = await harness.api('POST', `/personas/${id}/labels`, { key, body: { label: 'production', version: 1 } });
    expect(labelled.status, describeResponse(labelled)).toBe(400);
    expect(labelled.body.error.code).toBe('VALIDATION_ERROR');
    expect(labelled.body.error.message).toContain('its only version as a persona is 2');

    const executed = await harness.api<{ version: number }>('POST', `/personas/${id}/execute`, { key, body: { input: 'hi' } });
    expect(executed.status, describeResponse(executed)).toBe(200);
    expect(executed.body.data.version).toBe(2);
    expect(systemMessageOf(0)).toBe('PERSONA v2');
  });

  it('refuses to execute such a version, naming the persona versions there are, before calling the model', async () => {
    const id = await cardTurnedPersona();
    const executed = await harness.api('POST', `/personas/${id}/execute`, { key, body: { input: 'hi', version: 1 } });
    expect(executed.status, describeResponse(executed)).toBe(400);
    expect(executed.body.error.code).toBe('VALIDATION_ERROR');
    expect(executed.body.error.message).toMatch(/^version: .*its only version as a persona is 2\.$/);
    expect(harness.fake.requests).toHaveLength(0);
  });

  it('refuses a production label set on such a version before the fix, rather than running its content', async () => {
    const id = await cardTurnedPersona();
    // A label the store already holds (set by an earlier release), pointing at the facts version.
    expect(await harness.store.catalog.setLabel({ accountId, id, kind: 'contextCards', label: 'production', version: 1, at: harness.clock.now() })).toBe('set');
    const executed = await harness.api('POST', `/personas/${id}/execute`, { key, body: { input: 'hi' } });
    expect(executed.status, describeResponse(executed)).toBe(400);
    expect(executed.body.error.message).toContain('label "production" names version 1');
    expect(harness.fake.requests).toHaveLength(0);
  });

  it('still answers 404 for a card that was a persona and is another category now', async () => {
    const created = await harness.api<{ id: string }>('POST', '/personas', { key, body: { name: 'P', content: 'PERSONA v1' } });
    const id = created.body.data.id;
    await harness.api('PATCH', `/context-cards/${id}`, { key, body: { category: 'facts' } });
    expect((await harness.api('GET', `/personas/${id}`, { key })).status).toBe(404);
    expect((await harness.api('POST', `/personas/${id}/execute`, { key, body: { input: 'hi', version: 1 } })).status).toBe(404);
  });
});
