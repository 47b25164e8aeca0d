/**
 * A valid request for every operation, built against a real account. The security suite and the
 * contract tests run over this table, and a test fails when an operation has no sample, so a new
 * operation cannot skip them.
 */
import type { Harness } from './harness.js';

export interface SampleRequest {
  /** Path under the API base, with ids filled in. */
  path: string;
  body?: unknown;
  /** The id in the path, when the operation reads an owned resource (for the another-account test). */
  ownedId?: string;
}

export type SampleBuilder = (harness: Harness, accountId: string) => Promise<SampleRequest>;

async function ownedCard(harness: Harness, accountId: string): Promise<string> {
  const card = await harness.core.contextCards.create(accountId, { title: 'Sample', content: 'Sample content' });
  return card.id;
}

export const OPERATION_SAMPLES: Record<string, SampleBuilder> = {
  list_workflows: async () => ({ path: '/workflows' }),
  list_compositions: async () => ({ path: '/compositions' }),
  list_skills: async () => ({ path: '/skills' }),
  list_personas: async () => ({ path: '/personas' }),
  list_context_cards: async () => ({ path: '/context-cards' }),
  get_context_card: async (harness, accountId) => {
    const id = await ownedCard(harness, accountId);
    return { path: `/context-cards/${id}`, ownedId: id };
  },
  create_context_card: async () => ({ path: '/context-cards', body: { title: 'New', content: 'New content' } }),
  update_context_card: async (harness, accountId) => {
    const id = await ownedCard(harness, accountId);
    return { path: `/context-cards/${id}`, body: { title: 'Renamed' }, ownedId: id };
  },
  delete_context_card: async (harness, accountId) => {
    const id = await ownedCard(harness, accountId);
    return { path: `/context-cards/${id}`, ownedId: id };
  },
  get_health: async () => ({ path: '/health' }),
};
