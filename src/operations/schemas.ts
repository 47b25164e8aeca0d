/** Schemas shared by several operations. Every field is described: the text reaches OpenAPI and MCP. */
import { z } from 'zod';

/**
 * The OpenAPI extension naming the sibling fields a field may not be sent with (an execution's
 * `version` and `label`): set with `.meta({ [EXCLUSIVE_WITH]: [...] })`, it reaches the document,
 * where clients can read it, and the document's examples send only the first of them.
 */
export const EXCLUSIVE_WITH = 'x-porch-exclusive-with';

/**
 * The OpenAPI extension that keeps a field out of the document's examples: one whose only sound
 * value depends on what the caller read (`expected_version`), which an example would get wrong.
 */
export const NOT_IN_EXAMPLES = 'x-porch-not-in-examples';

/** Lists return everything by default; a page can be at most this large. */
export const MAX_PAGE_LIMIT = 500;

/**
 * An id a caller sends. Ids are written in lower case; a uuid's hex digits mean the same in either
 * case (RFC 9562), so one sent in upper case is read in lower case (regression: an upper-case
 * cursor answered an empty page, an upper-case filter no runs).
 */
export function idInput(error = 'must be a uuid') {
  return z.uuid({ error }).transform((id) => id.toLowerCase());
}

export const idParams = z.object({
  id: idInput().describe('Resource id (uuid).'),
});

/** A query-string integer as OpenAPI's `integer` reads it: decimal digits only. */
const DECIMAL_DIGITS = /^[0-9]+$/;

/**
 * A whole number that may arrive as a query string. Only decimal digits are read as a number, so
 * `1e2`, `0x10`, ` 5` or `` are refused as the OpenAPI document's `integer` refuses them
 * (regression: `z.coerce.number` accepted all four, so the server and the document disagreed).
 * MCP sends the same field as a JSON number, which passes unchanged.
 */
export function queryInteger(number: z.ZodNumber) {
  return z.preprocess((value) => (typeof value === 'string' && DECIMAL_DIGITS.test(value) ? Number(value) : value), number);
}

export const pageQuery = z.object({
  limit: queryInteger(
    z
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(MAX_PAGE_LIMIT, `must be at most ${MAX_PAGE_LIMIT}`),
  )
    .optional()
    .describe(`Optional page size (1-${MAX_PAGE_LIMIT}). Without it the list returns every item.`),
  cursor: idInput('must be a uuid (a next_cursor value)').optional().describe('Optional: the next_cursor of the previous page; returns the items after it.'),
});

export const timestampSchema = z.iso.datetime().describe('ISO 8601 UTC timestamp.');

/**
 * The optimistic-concurrency check of a partial update: the version the change was made from.
 * Not a field of the resource, so an update sending only this changes nothing and is refused.
 */
export const expectedVersionSchema = z
  .number({ error: 'must be a whole number' })
  .int('must be a whole number')
  .min(1, 'must be at least 1')
  // An example's version would be refused by every item past it (regression: Try it out answered 409).
  .meta({ [NOT_IN_EXAMPLES]: true })
  .optional()
  .describe(
    'Optional: the `version` this change was made from, as you read it. When the newest version is another, nothing is written and the answer is 409 `CONFLICT`: someone changed it since, and your change would undo theirs unseen. Without it the change applies to the newest version.',
  );

/** A partial update's body changes something: at least one field besides `expected_version`. */
export function changesSomething(body: Record<string, unknown>): boolean {
  return Object.entries(body).some(([name, value]) => name !== 'expected_version' && value !== undefined);
}

/**
 * changesSomething as JSON Schema, for a partial update's body with these fields: one of them
 * present, so the document refuses what the server does, `expected_version` alone included.
 */
export function oneFieldToChange(fields: readonly string[]): { anyOf: Array<{ required: [string] }> } {
  return { anyOf: fields.filter((name) => name !== 'expected_version').map((name) => ({ required: [name] })) };
}

const INSTANT_FORMAT = 'must be an ISO 8601 date and time, such as 2026-12-01T09:00:00Z or 2026-12-01T10:00:00+01:00';

/** A date and time whose offset lost its `+`: how `...T10:00:00+01:00` arrives when sent unencoded in a URL's query. */
const OFFSET_AFTER_SPACE = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)? \d\d:?\d\d$/;

/**
 * A point in time a caller sends: ISO 8601 in UTC (`Z`) or with an offset (`+02:00`); answers
 * give it back in UTC. An offset whose `+` became a space (a bare `+` in a query string means a
 * space) is told how to send it (regression: the message's own example failed when typed into a URL).
 */
export const instantInputSchema = z.iso.datetime({
  offset: true,
  error: (issue) =>
    typeof issue.input === 'string' && OFFSET_AFTER_SPACE.test(issue.input)
      ? `${INSTANT_FORMAT}; in a URL, write the offset's + as %2B (a bare + is read as a space)`
      : INSTANT_FORMAT,
});

/** `{ items, count }`, plus `next_cursor` when the caller paged with `limit`; `order` as the list answers them. */
export function listOf<Item extends z.ZodType>(item: Item, what: string, order: 'newest first' | 'oldest first' = 'newest first') {
  return z.object({
    items: z.array(item).describe(`The ${what}, ${order}.`),
    count: z.number().int().min(0).describe('Number of items in `items`.'),
    next_cursor: z.uuid().nullable().optional().describe('Present when `limit` was sent: the cursor of the next page, or null on the last page.'),
  });
}
