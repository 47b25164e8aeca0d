/** The WHERE of a run list, shared by both engines: the account's runs after the cursor, as filtered. */
import { and, eq, lt, type Column, type SQL } from 'drizzle-orm';
import type { RunListRequest } from './store.js';

type RunColumns = Record<'accountId' | 'id' | 'kind' | 'resourceId' | 'status', Column>;

export function runListWhere(columns: RunColumns, { accountId, page, kind, resourceId, status }: RunListRequest): SQL | undefined {
  return and(
    eq(columns.accountId, accountId),
    page.cursor === undefined ? undefined : lt(columns.id, page.cursor),
    kind === undefined ? undefined : eq(columns.kind, kind),
    resourceId === undefined ? undefined : eq(columns.resourceId, resourceId),
    status === undefined ? undefined : eq(columns.status, status),
  );
}
