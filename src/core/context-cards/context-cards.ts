import type { ContentQuotas, ContextCardRecord, PageRequest, Store } from '../../db/store.js';
import type { Clock } from '../clock.js';
import { PorchError } from '../errors.js';
import { newId } from '../ids.js';
import { fetchPage, readPages, type Page } from '../pages.js';
import { quotaExceededError } from '../quotas/quotas.js';
import { definedFields } from '../validation.js';
import { toIsoTimestamp } from '../views.js';
import { MAX_WRITE_ATTEMPTS, pauseBeforeRetry } from '../catalog/write-retry.js';
import { checkExpectedVersion } from '../catalog/versions.js';

/** Cards are prompt context: generous, but bounded so one card cannot fill the database. */
export const CARD_LIMITS = {
  titleLength: 200,
  contentLength: 100_000,
  categoryLength: 64,
  tags: 32,
  tagLength: 64,
  // A persona is a card: one limit for both (a persona's description may be 2,000 characters,
  // and a card that was a persona keeps it, so a bundle exporting it must import again).
  descriptionLength: 2_000,
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
  /** Every write numbers a new version (1, 2, 3...); cards have no labels. */
  version: number;
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
    version: card.version,
    created_at: toIsoTimestamp(card.createdAt),
    updated_at: toIsoTimestamp(card.updatedAt),
  };
}

function notFound(id: string): PorchError {
  return new PorchError('RESOURCE_NOT_FOUND', `Context card ${id} was not found.`);
}

/**
 * Cards are versioned like every catalog resource (a persona is a card), so each write goes
 * through the catalog's write, which records the version; the quotas bound the account's cards,
 * personas included.
 */
export function createContextCardService(store: Store, clock: Clock, quotas: ContentQuotas) {
  /**
   * `at` is the instant the card's view already shows (its updated_at, and created_at on a
   * create): the store writes the row and the version at it, so the answer and a later read agree
   * (regression: a create answered .354Z and the card was stored at .355Z).
   */
  const write = (accountId: string, changes: Pick<Parameters<Store['catalog']['write']>[0], 'creates' | 'updates' | 'deletes'>, at: number) =>
    store.catalog.write({ accountId, ...changes, at, authorKeyId: null, quotas });

  return {
    list(accountId: string, page: PageRequest): Promise<Page<ContextCardView>> {
      return fetchPage(page, (request) => store.contextCards.list({ accountId, page: request }), contextCardView);
    },

    /** Every card (after the cursor `after`, if given), a page at a time, for a door that writes them as they are read. */
    pages(accountId: string, after?: string): AsyncGenerator<ContextCardView[]> {
      return readPages((request) => store.contextCards.list({ accountId, page: request }), contextCardView, after);
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
        version: 1,
        bundleKey: null,
      };
      const outcome = await write(accountId, { creates: [{ kind: 'contextCards', record: card }], updates: [], deletes: [] }, now);
      if (!outcome.ok && 'excess' in outcome) throw quotaExceededError(outcome.excess);
      return contextCardView(card);
    },

    /** A partial update; with `expectedVersion` it lands only on that version (else 409). */
    async update(accountId: string, id: string, changes: Partial<ContextCardWrite>, expectedVersion?: number): Promise<ContextCardView> {
      for (let attempt = 1; attempt <= MAX_WRITE_ATTEMPTS; attempt++) {
        const current = await store.contextCards.findOwned({ accountId, id });
        if (!current) throw notFound(id);
        checkExpectedVersion({ noun: 'Context card', id }, current.version, expectedVersion);
        const { productionVersion: _production, ...stored } = current;
        const now = clock.now();
        const card: ContextCardRecord = { ...stored, ...definedFields(changes), version: current.version + 1, updatedAt: now };
        const outcome = await write(
          accountId,
          { creates: [], updates: [{ kind: 'contextCards', record: card, baseVersion: current.version }], deletes: [] },
          now,
        );
        if (outcome.ok) return contextCardView(card);
        if ('excess' in outcome) throw quotaExceededError(outcome.excess);
        if ('stale' in outcome && outcome.stale.version === null) throw notFound(id);
        if (attempt < MAX_WRITE_ATTEMPTS) await pauseBeforeRetry(attempt);
      }
      throw new PorchError('CONFLICT', `Context card ${id} is being changed by other writers; read it again and retry.`);
    },

    /**
     * The ids of the caller's cards whose id or title starts with `typed` (first) or contains it
     * (then), ignoring case: what a client offers while the user types a card address.
     */
    async completeIds(accountId: string, typed: string): Promise<string[]> {
      const needle = typed.trim().toLowerCase();
      const cards = await store.contextCards.list({ accountId, page: {} });
      const matching = (test: (text: string) => boolean) => cards.filter((card) => test(card.id.toLowerCase()) || test(card.title.toLowerCase()));
      const starting = matching((text) => text.startsWith(needle));
      const containing = matching((text) => text.includes(needle)).filter((card) => !starting.includes(card));
      return [...starting, ...containing].map((card) => card.id);
    },

    async delete(accountId: string, id: string): Promise<void> {
      const outcome = await write(accountId, { creates: [], updates: [], deletes: [{ kind: 'contextCards', id }] }, clock.now());
      if (!outcome.ok) throw notFound(id);
    },
  };
}

export type ContextCardService = ReturnType<typeof createContextCardService>;
