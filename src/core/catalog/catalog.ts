import type { CompositionRecord, ContextCardRecord, PageRequest, SkillRecord, Store, WorkflowRecord } from '../../db/store.js';
import { PERSONA_CATEGORY } from '../context-cards/context-cards.js';
import { fetchPage, readPages, type Page } from '../pages.js';
import { toIsoTimestamp } from '../views.js';
import type { LifecycleService } from './lifecycle.js';
import { LATEST_LABEL } from './versions.js';

/** DECISIONS.md: a persona's preview is the first 160 characters of its system prompt. */
export const PERSONA_PREVIEW_LENGTH = 160;

export interface WorkflowListItem {
  id: string;
  name: string;
  description: string;
  category: string;
  usage_count: number;
  created_at: string;
}

export interface CompositionListItem {
  id: string;
  name: string;
  description: string;
  tags: string[];
  times_used: number;
  created_at: string;
}

export interface SkillListItem {
  id: string;
  name: string;
  description: string;
  category: string;
  created_at: string;
}

export interface PersonaListItem {
  id: string;
  name: string;
  description: string;
  emoji: string;
  content_preview: string;
  created_at: string;
}

export function workflowListItem(row: WorkflowRecord): WorkflowListItem {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    category: row.category,
    usage_count: row.usageCount,
    created_at: toIsoTimestamp(row.createdAt),
  };
}

export function compositionListItem(row: CompositionRecord): CompositionListItem {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    tags: row.tags,
    times_used: row.timesUsed,
    created_at: toIsoTimestamp(row.createdAt),
  };
}

export function skillListItem(row: SkillRecord): SkillListItem {
  return { id: row.id, name: row.name, description: row.description, category: row.category, created_at: toIsoTimestamp(row.createdAt) };
}

/** Cuts at a code-point boundary so a preview never ends in half an emoji. */
function preview(text: string, length: number): string {
  if (text.length <= length) return text;
  const cut = text.slice(0, length);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

export function personaListItem(card: ContextCardRecord): PersonaListItem {
  return {
    id: card.id,
    name: card.title,
    description: card.description ?? '',
    emoji: card.emoji ?? '',
    content_preview: preview(card.content, PERSONA_PREVIEW_LENGTH),
    created_at: toIsoTimestamp(card.createdAt),
  };
}

export function createCatalogService(store: Store, lifecycle: LifecycleService) {
  return {
    /**
     * Owned resources by id, at the version that runs by default (`production` if set, else the
     * newest); another account's answers exactly like a missing one.
     */
    getComposition: async (accountId: string, id: string): Promise<CompositionRecord> => (await lifecycle.resolve('composition', accountId, id)).record,
    getSkill: async (accountId: string, id: string): Promise<SkillRecord> => (await lifecycle.resolve('skill', accountId, id)).record,
    getWorkflow: async (accountId: string, id: string): Promise<WorkflowRecord> => (await lifecycle.resolve('workflow', accountId, id)).record,
    getPersona: async (accountId: string, id: string): Promise<ContextCardRecord> => (await lifecycle.resolve('persona', accountId, id)).record,
    /**
     * An owned skill at its newest version, as `GET /skills/{id}` shows it: what a SKILL.md export
     * holds, so that importing it back never undoes the newest edit (production may be older).
     */
    getNewestSkill: async (accountId: string, id: string): Promise<SkillRecord> =>
      (await lifecycle.resolve('skill', accountId, id, { label: LATEST_LABEL })).record,
    /** Every composition with its template and variables (MCP prompts). */
    allCompositions: (accountId: string): Promise<CompositionRecord[]> => store.catalog.listCompositions({ accountId, page: {} }),
    /** Every persona card with its content (MCP prompts). */
    allPersonas: (accountId: string): Promise<ContextCardRecord[]> => store.contextCards.list({ accountId, page: {}, category: PERSONA_CATEGORY }),

    listWorkflows: (accountId: string, page: PageRequest): Promise<Page<WorkflowListItem>> =>
      fetchPage(page, (request) => store.catalog.listWorkflows({ accountId, page: request }), workflowListItem),
    listCompositions: (accountId: string, page: PageRequest): Promise<Page<CompositionListItem>> =>
      fetchPage(page, (request) => store.catalog.listCompositions({ accountId, page: request }), compositionListItem),
    listSkills: (accountId: string, page: PageRequest): Promise<Page<SkillListItem>> =>
      fetchPage(page, (request) => store.catalog.listSkills({ accountId, page: request }), skillListItem),
    listPersonas: (accountId: string, page: PageRequest): Promise<Page<PersonaListItem>> =>
      fetchPage(page, (request) => store.contextCards.list({ accountId, page: request, category: PERSONA_CATEGORY }), personaListItem),

    // The same lists a page at a time (after a cursor, if given), for a door that writes them as they are read.
    workflowPages: (accountId: string, after?: string): AsyncGenerator<WorkflowListItem[]> =>
      readPages((request) => store.catalog.listWorkflows({ accountId, page: request }), workflowListItem, after),
    compositionPages: (accountId: string, after?: string): AsyncGenerator<CompositionListItem[]> =>
      readPages((request) => store.catalog.listCompositions({ accountId, page: request }), compositionListItem, after),
    skillPages: (accountId: string, after?: string): AsyncGenerator<SkillListItem[]> =>
      readPages((request) => store.catalog.listSkills({ accountId, page: request }), skillListItem, after),
    personaPages: (accountId: string, after?: string): AsyncGenerator<PersonaListItem[]> =>
      readPages((request) => store.contextCards.list({ accountId, page: request, category: PERSONA_CATEGORY }), personaListItem, after),
  };
}

export type CatalogService = ReturnType<typeof createCatalogService>;
