import type { ContextCardRecord, KindQuota, PageRequest, Store } from '../../db/store.js';
import type { Clock } from '../clock.js';
import { PorchError } from '../errors.js';
import { newId } from '../ids.js';
import { fetchPage, readPages, type Page } from '../pages.js';
import { quotaExceededError } from '../quotas/quotas.js';
import { toIsoTimestamp } from '../views.js';

/** Cards are prompt context: generous, but bounded so one card cannot fill the database. */
export const CARD_LIMITS = {
  titleLength: 200,
  contentLength: 100_000,
  categoryLength: 64,
  tags: 32,
  tagLength: 64,
  descriptionLength: 1_000,
  emojiLength: 16,
} as const;

/** The category that makes a card a persona (spec §1). */
export const PERSONA_CATEGORY = 'persona';

export interface ContextCardView {
  id: string;
  title: string;
  content: string;
  category: string | null;
  tags: string[];
  description: string | null;
  emoji: string | null;
  created_at: string;
  updated_at: string;
}

export interface ContextCardWrite {
  title: string;
  content: string;
  category?: string | null;
  tags?: string[];
  description?: string | null;
  emoji?: string | null;
}

export function contextCardView(card: ContextCardRecord): ContextCardView {
  return {
    id: card.id,
    title: card.title,
    content: card.content,
    category: card.category,
    tags: card.tags,
    description: card.description,
    emoji: card.emoji,
    created_at: toIsoTimestamp(card.createdAt),
    updated_at: toIsoTimestamp(card.updatedAt),
  };
}

function notFound(id: string): PorchError {
  return new PorchError('RESOURCE_NOT_FOUND', `Context card ${id} was not found.`);
}

/** `quota` bounds the account's cards, personas included. */
export function createContextCardService(store: Store, clock: Clock, quota: KindQuota) {
  return {
    list(accountId: string, page: PageRequest): Promise<Page<ContextCardView>> {
      return fetchPage(page, (request) => store.contextCards.list({ accountId, page: request }), contextCardView);
    },

    /** Every card, a page at a time, for a door that writes them as they are read. */
    pages(accountId: string): AsyncGenerator<ContextCardView[]> {
      return readPages((request) => store.contextCards.list({ accountId, page: request }), contextCardView);
    },

    async get(accountId: string, id: string): Promise<ContextCardView> {
      const card = await store.contextCards.findOwned({ accountId, id });
      if (!card) throw notFound(id);
      return contextCardView(card);
    },

    async create(accountId: string, input: ContextCardWrite): Promise<ContextCardView> {
      const now = clock.now();
      const card: ContextCardRecord = {
        id: newId(),
        accountId,
        title: input.title,
        content: input.content,
        category: input.category ?? null,
        tags: input.tags ?? [],
        description: input.description ?? null,
        emoji: input.emoji ?? null,
        createdAt: now,
        updatedAt: now,
      };
      const outcome = await store.contextCards.insert({ card, quota });
      if (!outcome.ok) throw quotaExceededError(outcome.excess);
      return contextCardView(card);
    },

    async update(accountId: string, id: string, changes: Partial<ContextCardWrite>): Promise<ContextCardView> {
      const outcome = await store.contextCards.update({ accountId, id, changes: { ...changes, updatedAt: clock.now() }, quota });
      if (!outcome) throw notFound(id);
      if (!outcome.ok) throw quotaExceededError(outcome.excess);
      return contextCardView(outcome.card);
    },

    async delete(accountId: string, id: string): Promise<void> {
      if (!(await store.contextCards.delete({ accountId, id }))) throw notFound(id);
    },
  };
}

export type ContextCardService = ReturnType<typeof createContextCardService>;
