import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PERSONA_PREVIEW_LENGTH } from '../../src/core/catalog/catalog.js';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import type { OperationOutput } from '../../src/operations/operation.js';
import type { listCompositions } from '../../src/operations/list-compositions.js';
import type { listPersonas } from '../../src/operations/list-personas.js';
import type { listSkills } from '../../src/operations/list-skills.js';
import type { listWorkflows } from '../../src/operations/list-workflows.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

let harness: Harness;
let key: string;
let accountId: string;
beforeEach(async () => {
  harness = await createHarness();
  ({ key, accountId } = await harness.expertWithKey());
  await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE);
});
afterEach(() => harness.close());

describe('list endpoints', () => {
  it('lists workflows with the spec item shape', async () => {
    const response = await harness.api<OperationOutput<typeof listWorkflows>>('GET', '/workflows', { key });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: {
        count: 1,
        items: [
          {
            id: expect.any(String),
            name: 'Release announcement',
            description: expect.any(String),
            category: 'writing',
            usage_count: 0,
            created_at: expect.stringMatching(/Z$/),
          },
        ],
      },
    });
  });

  it('lists compositions, skills and personas with their spec item shapes', async () => {
    const compositions = await harness.api<OperationOutput<typeof listCompositions>>('GET', '/compositions', { key });
    expect(compositions.body.data.items[0]).toEqual({
      id: expect.any(String),
      name: 'Release notes',
      description: expect.any(String),
      tags: ['writing', 'product'],
      times_used: 0,
      created_at: expect.any(String),
    });
    const skills = await harness.api<OperationOutput<typeof listSkills>>('GET', '/skills', { key });
    expect(Object.keys(skills.body.data.items[0] ?? {}).sort()).toEqual(['category', 'created_at', 'description', 'id', 'name']);
    const personas = await harness.api<OperationOutput<typeof listPersonas>>('GET', '/personas', { key });
    expect(personas.body.data.items[0]).toMatchObject({ name: 'Plain-English editor', emoji: '✍️' });
    expect(personas.body.data.items[0]?.content_preview.length).toBeLessThanOrEqual(PERSONA_PREVIEW_LENGTH);
  });

  it('lists only personas under /personas, and every card under /context-cards', async () => {
    const personas = await harness.api<{ count: number }>('GET', '/personas', { key });
    const cards = await harness.api<{ count: number }>('GET', '/context-cards', { key });
    expect(personas.body.data.count).toBe(1);
    expect(cards.body.data.count).toBe(3);
  });

  it("never lists another account's items", async () => {
    const other = await harness.expertWithKey();
    for (const path of ['/workflows', '/compositions', '/skills', '/personas', '/context-cards']) {
      const response = await harness.api<{ count: number }>('GET', path, { key: other.key });
      expect(response.body.data.count, path).toBe(0);
    }
  });

  it('cuts a persona preview on a character boundary, never inside an emoji', async () => {
    const content = `${'a'.repeat(PERSONA_PREVIEW_LENGTH - 1)}😀 and more`;
    await harness.core.contextCards.create(accountId, { title: 'Emoji', content, category: 'persona' });
    const response = await harness.api<OperationOutput<typeof listPersonas>>('GET', '/personas', { key });
    const preview = response.body.data.items[0]?.content_preview ?? '';
    expect(preview).toBe('a'.repeat(PERSONA_PREVIEW_LENGTH - 1));
    expect(preview).not.toMatch(/[\uD800-\uDBFF]$/);
  });
});
