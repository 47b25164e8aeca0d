/**
 * What a row counts against its account's byte quota: the UTF-8 bytes of its stored text, JSON
 * fields as the JSON text the engines store. Every engine computes it with these functions when
 * it writes a row, so a quota means the same on each; the SQLite migration that added the size
 * column computes the same sums in SQL (`length(CAST(column AS BLOB))`) for rows written before.
 */
import type { CompositionRecord, ContextCardRecord, SkillRecord, WorkflowRecord } from './store.js';

function textBytes(...values: ReadonlyArray<string | null>): number {
  let total = 0;
  for (const value of values) if (value !== null) total += Buffer.byteLength(value, 'utf8');
  return total;
}

const json = (value: unknown): string => JSON.stringify(value);

export function contextCardSizeBytes(card: Pick<ContextCardRecord, 'title' | 'content' | 'category' | 'tags' | 'description' | 'emoji'>): number {
  return textBytes(card.title, card.content, card.category, json(card.tags), card.description, card.emoji);
}

export function compositionSizeBytes(composition: CompositionRecord): number {
  return textBytes(
    composition.name,
    composition.description,
    json(composition.tags),
    composition.template,
    json(composition.variables),
    composition.defaultModel,
  );
}

export function skillSizeBytes(skill: SkillRecord): number {
  return textBytes(skill.name, skill.description, skill.category, skill.instructions, skill.model);
}

export function workflowSizeBytes(workflow: WorkflowRecord): number {
  return textBytes(workflow.name, workflow.description, workflow.category, json(workflow.definition));
}
