import type { ContentQuotas, ContextCardRecord, PageRequest, Store } from '../../db/store.js';
import type { Caller } from '../access/caller.js';
import { grantsAny, readScopes, writeScopes } from '../access/scopes.js';
import type { Clock } from '../clock.js';
import { PorchError } from '../errors.js';
import { newId } from '../ids.js';
import { fetchPage, readPages, STREAM_PAGE_ROWS, type Page } from '../pages.js';
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

function isPersona(card: Pick<ContextCardRecord, 'category'>): boolean {
  return card.category === PERSONA_CATEGORY;
}

/** The scopes that grant reading a persona's content, as listing, getting and rendering personas do. */
const PERSONA_READ_SCOPES = readScopes('persona');
/** The scopes that grant creating, changing and deleting a persona, as the persona operations do. */
const PERSONA_WRITE_SCOPES = writeScopes('persona');

/**
 * What a caller may do with the cards that are personas. The context-card scopes grant cards;
 * a persona is a card too, but it is also a resource of its own with its own scopes, which
 * `api:expert` never implies (DECISIONS, "Catalog lifecycle"): the card operations must not be a
 * way around them (regression: a key without write:persona rewrote a persona through
 * PATCH /context-cards/{id}, and one without read:persona read persona prompts in the card list).
 */
interface PersonaRights {
  read: boolean;
  write: boolean;
}

function personaRightsOf(caller: Caller): PersonaRights {
  const { scopes } = caller.credential;
  return { read: grantsAny(scopes, PERSONA_READ_SCOPES), write: grantsAny(scopes, PERSONA_WRITE_SCOPES) };
}

/** The account holder's own rights over their cards, which no scope limits. */
const EVERY_RIGHT: PersonaRights = { read: true, write: true };

function missingScope(what: string, scopes: readonly string[]): PorchError {
  return new PorchError('INSUFFICIENT_PERMISSIONS', `This key lacks the scope for ${what}; it needs one of: ${scopes.join(', ')}.`);
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

  /**
   * The account's cards a page at a time, without the personas when the rights do not cover
   * reading them. A page of a list that leaves some out still holds `limit` cards when there are
   * that many more, and its last card is where the next page starts, so paging works as over
   * every card; the store is read in pages of at least STREAM_PAGE_ROWS rows so that many
   * personas in a row cost few queries.
   */
  async function visibleCards(accountId: string, rights: PersonaRights, page: PageRequest): Promise<ContextCardRecord[]> {
    if (rights.read) return store.contextCards.list({ accountId, page });
    if (page.limit === undefined) return (await store.contextCards.list({ accountId, page })).filter((card) => !isPersona(card));
    const scanRows = Math.max(page.limit, STREAM_PAGE_ROWS);
    const kept: ContextCardRecord[] = [];
    let cursor = page.cursor;
    for (;;) {
      const rows = await store.contextCards.list({ accountId, page: cursor === undefined ? { limit: scanRows } : { cursor, limit: scanRows } });
      kept.push(...rows.filter((card) => !isPersona(card)));
      const last = rows.at(-1);
      if (last === undefined || rows.length < scanRows || kept.length >= page.limit) break;
      cursor = last.id;
    }
    return kept.slice(0, page.limit);
  }

  /** One of the account's cards, for a caller with `rights`: a persona's card only with a persona read scope. */
  async function readable(accountId: string, rights: PersonaRights, id: string): Promise<ContextCardRecord> {
    const card = await store.contextCards.findOwned({ accountId, id });
    if (!card) throw notFound(id);
    if (isPersona(card) && !rights.read) throw missingScope(`reading context card ${id}, which is a persona`, PERSONA_READ_SCOPES);
    return card;
  }

  function list(accountId: string, rights: PersonaRights, page: PageRequest): Promise<Page<ContextCardView>> {
    return fetchPage(page, (request) => visibleCards(accountId, rights, request), contextCardView);
  }

  function pages(accountId: string, rights: PersonaRights, after?: string): AsyncGenerator<ContextCardView[]> {
    return readPages((request) => visibleCards(accountId, rights, request), contextCardView, after);
  }

  async function get(accountId: string, rights: PersonaRights, id: string): Promise<ContextCardView> {
    return contextCardView(await readable(accountId, rights, id));
  }

  async function create(accountId: string, rights: PersonaRights, input: ContextCardWrite): Promise<ContextCardView> {
    if (input.category === PERSONA_CATEGORY && !rights.write)
      throw missingScope(`creating a context card of category "${PERSONA_CATEGORY}", which is a persona`, PERSONA_WRITE_SCOPES);
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
  }

  async function update(
    accountId: string,
    rights: PersonaRights,
    id: string,
    changes: Partial<ContextCardWrite>,
    expectedVersion?: number,
  ): Promise<ContextCardView> {
    for (let attempt = 1; attempt <= MAX_WRITE_ATTEMPTS; attempt++) {
      const current = await store.contextCards.findOwned({ accountId, id });
      if (!current) throw notFound(id);
      const { productionVersion: _production, ...stored } = current;
      const now = clock.now();
      const card: ContextCardRecord = { ...stored, ...definedFields(changes), version: current.version + 1, updatedAt: now };
      // Checked against the version read, which the write lands on or not at all: a card that
      // became a persona meanwhile is checked again on the next attempt. Taking a card's persona
      // category away removes the persona, so it is a persona write too.
      if ((isPersona(current) || isPersona(card)) && !rights.write) {
        const what = isPersona(current) ? `changing context card ${id}, which is a persona` : `making context card ${id} a persona`;
        throw missingScope(what, PERSONA_WRITE_SCOPES);
      }
      checkExpectedVersion({ noun: 'Context card', id }, current.version, expectedVersion);
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
  }

  async function completeIds(accountId: string, rights: PersonaRights, typed: string): Promise<string[]> {
    const needle = typed.trim().toLowerCase();
    const cards = await visibleCards(accountId, rights, {});
    const matching = (test: (text: string) => boolean) => cards.filter((card) => test(card.id.toLowerCase()) || test(card.title.toLowerCase()));
    const starting = matching((text) => text.startsWith(needle));
    const containing = matching((text) => text.includes(needle)).filter((card) => !starting.includes(card));
    return [...starting, ...containing].map((card) => card.id);
  }

  async function remove(accountId: string, rights: PersonaRights, id: string): Promise<void> {
    if (!rights.write) {
      const card = await store.contextCards.findOwned({ accountId, id });
      if (!card) throw notFound(id);
      if (isPersona(card)) throw missingScope(`deleting context card ${id}, which is a persona`, PERSONA_WRITE_SCOPES);
    }
    const outcome = await write(accountId, { creates: [], updates: [], deletes: [{ kind: 'contextCards', id }] }, clock.now());
    if (!outcome.ok) throw notFound(id);
  }

  return {
    /**
     * The card operations as `caller` may use them, which is how every door reaches them: a
     * persona's card is read only with a persona read scope (lists leave it out without one) and
     * created, changed (its category included) or deleted only with write:persona.
     */
    forCaller(caller: Caller) {
      const accountId = caller.account.id;
      const rights = personaRightsOf(caller);
      return {
        list: (page: PageRequest) => list(accountId, rights, page),
        /** Every card (after the cursor `after`, if given), a page at a time, for a door that writes them as they are read. */
        pages: (after?: string) => pages(accountId, rights, after),
        get: (id: string) => get(accountId, rights, id),
        create: (input: ContextCardWrite) => create(accountId, rights, input),
        /** A partial update; with `expectedVersion` it lands only on that version (else 409). */
        update: (id: string, changes: Partial<ContextCardWrite>, expectedVersion?: number) => update(accountId, rights, id, changes, expectedVersion),
        /**
         * The ids of the cards whose id or title starts with `typed` (first) or contains it
         * (then), ignoring case: what a client offers while the user types a card address.
         */
        completeIds: (typed: string) => completeIds(accountId, rights, typed),
        delete: (id: string) => remove(accountId, rights, id),
      };
    },

    // The same operations with every right over the account's cards, as its holder has them: for
    // callers that act for the account itself rather than for a key (seeding an account).
    list: (accountId: string, page: PageRequest) => list(accountId, EVERY_RIGHT, page),
    get: (accountId: string, id: string) => get(accountId, EVERY_RIGHT, id),
    create: (accountId: string, input: ContextCardWrite) => create(accountId, EVERY_RIGHT, input),
    update: (accountId: string, id: string, changes: Partial<ContextCardWrite>, expectedVersion?: number) =>
      update(accountId, EVERY_RIGHT, id, changes, expectedVersion),
    delete: (accountId: string, id: string) => remove(accountId, EVERY_RIGHT, id),
  };
}

export type ContextCardService = ReturnType<typeof createContextCardService>;
