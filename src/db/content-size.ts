/**
 * What a row counts against its account's byte quota: the UTF-8 bytes of its stored text, JSON
 * fields as the JSON text the engines store. Every engine computes it with these functions when
 * it writes a row, so a quota means the same on each; the SQLite migration that added the size
 * column computes the same sums in SQL (`length(CAST(column AS BLOB))`) for rows written before.
 */
import type { ContentAmount } from './quota-excess.js';
import type { BundleRecords, CompositionRecord, ContentKind, ContextCardRecord, SkillRecord, WorkflowRecord } from './store.js';

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

/** Each row of a bundle with its size, grouped by kind. */
export function sizedBundle(records: BundleRecords) {
  return {
    contextCards: records.contextCards.map((row) => ({ ...row, sizeBytes: contextCardSizeBytes(row) })),
    compositions: records.compositions.map((row) => ({ ...row, sizeBytes: compositionSizeBytes(row) })),
    skills: records.skills.map((row) => ({ ...row, sizeBytes: skillSizeBytes(row) })),
    workflows: records.workflows.map((row) => ({ ...row, sizeBytes: workflowSizeBytes(row) })),
  };
}

/** What a bundle adds to each account it writes to, per kind. */
export function bundleAdditions(bundle: ReturnType<typeof sizedBundle>): Array<{ kind: ContentKind; accountId: string; added: ContentAmount }> {
  const additions = new Map<string, { kind: ContentKind; accountId: string; added: ContentAmount }>();
  for (const [kind, rows] of Object.entries(bundle) as Array<[ContentKind, Array<{ accountId: string; sizeBytes: number }>]>) {
    for (const row of rows) {
      const entry = additions.get(`${kind}:${row.accountId}`) ?? { kind, accountId: row.accountId, added: { items: 0, bytes: 0 } };
      entry.added.items += 1;
      entry.added.bytes += row.sizeBytes;
      additions.set(`${kind}:${row.accountId}`, entry);
    }
  }
  return [...additions.values()];
}
