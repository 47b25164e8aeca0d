/**
 * A name (or title) must hold something visible: one of only zero-width, format or control
 * characters is refused as a whitespace-only one is (regression: `{"name":"\u200b"}` made an item
 * that looked blank in lists and the console). A name with a visible character among invisible
 * ones is kept as sent.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compositionRecord, insertRecords } from '../db/fixtures.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

const INVISIBLE_MESSAGE = 'must hold a visible character (it holds only invisible ones, such as zero-width spaces)';

/**
 * Zero-width space, joiners, word joiner, byte order mark, bidi controls, a Hangul filler, a soft
 * hyphen: each shows nothing. (A byte order mark alone is whitespace to JavaScript: trimmed, it
 * is empty.)
 */
const INVISIBLE_NAMES = ['\u200b', '\u200c\u200d', ' \u2060 ', '\ufeff\u200b', '\u200e\u200f\u202a\u202e\u2066\u2069', '\u3164', '\u00ad', '\u200b\t\u200b'];

let harness: Harness;
let key: string;
let accountId: string;

beforeEach(async () => {
  harness = await createHarness();
  ({ key, accountId } = await harness.expertWithKey());
});
afterEach(() => harness.close());

/** Each kind's create: the field the name goes in, the rest of a valid body, and where the answer holds the name. */
interface Create {
  kind: string;
  path: string;
  field: string;
  body: Record<string, unknown>;
  named?: (data: Record<string, unknown>) => unknown;
}
const CREATES: readonly Create[] = [
  { kind: 'composition', path: '/compositions', field: 'name', body: { template: 'Hello' } },
  { kind: 'skill', path: '/skills', field: 'name', body: { instructions: 'x' } },
  { kind: 'persona', path: '/personas', field: 'name', body: { content: 'You are terse.' } },
  { kind: 'workflow', path: '/workflows', field: 'name', body: { nodes: [{ id: 'a', kind: 'template', template: 'x' }] } },
  { kind: 'context card', path: '/context-cards', field: 'title', body: { content: 'c' } },
  { kind: 'key', path: '/keys', field: 'name', body: {}, named: (data) => (data.key as Record<string, unknown>).name },
];

describe('a name of only invisible characters', () => {
  for (const { kind, path, field, body, named = (data: Record<string, unknown>) => data[field] } of CREATES) {
    it(`is refused when a ${kind} is created, as a whitespace-only one is, and one with a visible character is kept as sent`, async () => {
      for (const name of INVISIBLE_NAMES) {
        const response = await harness.api('POST', path, { key, body: { ...body, [field]: name } });
        expect(response.status, `${JSON.stringify(name)}: ${describeResponse(response)}`).toBe(400);
        expect(response.body.error.message).toBe(`Invalid request: body.${field}: ${INVISIBLE_MESSAGE}.`);
      }
      for (const name of ['   ', '\ufeff']) {
        const blank = await harness.api('POST', path, { key, body: { ...body, [field]: name } });
        expect(blank.status, describeResponse(blank)).toBe(400);
        expect(blank.body.error.message).toBe(`Invalid request: body.${field}: must not be empty.`);
      }

      const visible = await harness.api<Record<string, unknown>>('POST', path, { key, body: { ...body, [field]: '\u200bA\u200d' } });
      expect(visible.status, describeResponse(visible)).toBe(201);
      expect(named(visible.body.data)).toBe('\u200bA\u200d');
    });
  }

  it('is refused by an update of a composition and of a context card', async () => {
    const composition = await harness.api<{ id: string }>('POST', '/compositions', { key, body: { name: 'Visible', template: 'Hello' } });
    const renamed = await harness.api('PATCH', `/compositions/${composition.body.data.id}`, { key, body: { name: '\u2060' } });
    expect(renamed.status, describeResponse(renamed)).toBe(400);
    expect(renamed.body.error.message).toBe(`Invalid request: body.name: ${INVISIBLE_MESSAGE}.`);

    const card = await harness.api<{ id: string }>('POST', '/context-cards', { key, body: { title: 'Visible', content: 'c' } });
    const retitled = await harness.api('PATCH', `/context-cards/${card.body.data.id}`, { key, body: { title: '\ufeff\u200b' } });
    expect(retitled.status, describeResponse(retitled)).toBe(400);
    expect(retitled.body.error.message).toBe(`Invalid request: body.title: ${INVISIBLE_MESSAGE}.`);
  });

  it('is refused in an imported bundle, naming its path', async () => {
    const imported = harness.core.bundles.importBundle(accountId, { skills: [{ key: 'blank', name: '\u200b', instructions: 'x' }] });
    await expect(imported).rejects.toThrow(`Invalid bundle: skills[0].name: ${INVISIBLE_MESSAGE}`);
  });

  it('already stored is left as it is: an update that does not send the name keeps it', async () => {
    const record = compositionRecord(accountId, { name: '\u200b' });
    await insertRecords(harness.store, { compositions: [record] });
    const updated = await harness.core.lifecycle.update(null, 'composition', accountId, record.id, { description: 'Now described' });
    expect(updated).toMatchObject({ name: '\u200b', description: 'Now described', version: 2 });
  });
});
