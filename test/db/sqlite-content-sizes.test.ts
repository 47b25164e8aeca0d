/**
 * The SQLite migration that added per-row sizes computes, for rows written before it, exactly the
 * size the store computes for new rows (src/db/content-size.ts): a quota counts old and new rows alike.
 */
import { readFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { compositionSizeBytes, contextCardSizeBytes, skillSizeBytes, workflowSizeBytes } from '../../src/db/content-size.js';
import { createSqliteStore, type SqliteStore } from '../../src/db/sqlite/index.js';
import { compositionRecord, contextCardRecord, createAccount, insertRecords, skillRecord, workflowRecord } from './fixtures.js';

const BACKFILL = readFileSync(new URL('../../src/db/sqlite/migrations/0003_content_sizes.sql', import.meta.url), 'utf8')
  .split('--> statement-breakpoint')
  .filter((statement) => statement.includes('UPDATE'));

let store: SqliteStore | null = null;
afterEach(async () => {
  await store?.close();
});

it('backfills the size of rows written before sizes were kept exactly as the store sizes new rows', async () => {
  store = createSqliteStore(':memory:');
  const { account } = await createAccount(store);
  const card = contextCardRecord(account.id, { content: 'ünïcødé ✍️ '.repeat(20), category: 'persona', description: 'd', emoji: '✍️', tags: ['a', 'é'] });
  const plain = contextCardRecord(account.id);
  const composition = compositionRecord(account.id, { defaultModel: 'echo/echo', variables: [{ name: 'x', required: false, default: 'ø' }] });
  const skill = skillRecord(account.id, { model: 'echo/echo' });
  const workflow = workflowRecord(account.id, { definition: { nodes: [{ id: 'n', kind: 'template', template: '→ {{x}}' }] } });
  await insertRecords(store, { contextCards: [card, plain], compositions: [composition], skills: [skill], workflows: [workflow] });
  const { sqlite } = store.database;
  for (const table of ['context_cards', 'compositions', 'skills', 'workflows']) sqlite.prepare(`UPDATE ${table} SET size_bytes = 0`).run();
  expect(BACKFILL).toHaveLength(4);
  for (const statement of BACKFILL) sqlite.exec(statement);
  const size = (table: string, id: string) => (sqlite.prepare(`SELECT size_bytes AS size FROM ${table} WHERE id = ?`).get(id) as { size: number }).size;
  expect(size('context_cards', card.id)).toBe(contextCardSizeBytes(card));
  expect(size('context_cards', plain.id)).toBe(contextCardSizeBytes(plain));
  expect(size('compositions', composition.id)).toBe(compositionSizeBytes(composition));
  expect(size('skills', skill.id)).toBe(skillSizeBytes(skill));
  expect(size('workflows', workflow.id)).toBe(workflowSizeBytes(workflow));
});
