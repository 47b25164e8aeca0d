/**
 * Pagination of tools/list, prompts/list and resources/list (the MCP specification's
 * `cursor` / `nextCursor`): a client that asks for the next page passes the cursor unchanged.
 * The cursor is opaque to clients; it holds the offset of the page's first item in the full
 * list, which each request rebuilds, so an item added or removed between two requests may shift
 * the next page by one.
 */
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { ProtocolError } from './to-tool-result.js';

/**
 * Items per page: enough that every tool Porch has (about sixty with the catalog lifecycle and
 * self-service) and most accounts' prompts come in one page, since some MCP hosts read only the
 * first page of tools/list; few enough to keep an answer small.
 */
export const LIST_PAGE_SIZE = 100;

/** The decoded cursor: an offset of at most nine digits, far beyond any list Porch serves. */
const DECODED_CURSOR = /^offset:(0|[1-9]\d{0,8})$/;

function encodeCursor(offset: number): string {
  return Buffer.from(`offset:${offset}`, 'utf8').toString('base64url');
}

/**
 * Where the requested page starts: 0 without a cursor. A cursor not of the form Porch issues is
 * the client's mistake, -32602 Invalid params, as the specification asks; checked before any
 * work. (One made by hand with a well-formed offset reads from there: it can reveal nothing a
 * cursor Porch issued would not.)
 */
export function pageStart(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const match = DECODED_CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match?.[1] || encodeCursor(Number(match[1])) !== cursor) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'Invalid cursor: pass the nextCursor of the previous page unchanged, or no cursor for the first page.',
    );
  }
  return Number(match[1]);
}

/** One page of `items` from `start`, with the cursor of the next page when there is one. */
export function pageOf<Item>(items: readonly Item[], start: number, pageSize: number): { page: Item[]; nextCursor?: string } {
  const end = start + pageSize;
  return { page: items.slice(start, end), ...(end < items.length ? { nextCursor: encodeCursor(end) } : {}) };
}
