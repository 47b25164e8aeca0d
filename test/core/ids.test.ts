import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isUuid, newId } from '../../src/core/ids.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The 48-bit millisecond timestamp at the front of a UUIDv7. */
function timestampOf(id: string): number {
  return Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
}

describe('newId', () => {
  it('makes RFC 9562 version 7 UUIDs carrying the current time in milliseconds', () => {
    const before = Date.now();
    const id = newId();
    const after = Date.now();
    expect(id).toMatch(V7);
    expect(timestampOf(id)).toBeGreaterThanOrEqual(before);
    expect(timestampOf(id)).toBeLessThanOrEqual(after + 1);
  });

  it('makes ids that sort in the order they were made, many per millisecond', () => {
    const ids = Array.from({ length: 50_000 }, () => newId());
    expect(new Set(ids).size).toBe(ids.length);
    for (let index = 1; index < ids.length; index += 1) {
      if ((ids[index - 1] ?? '') >= (ids[index] ?? '')) expect.fail(`${ids[index - 1]} >= ${ids[index]} at ${index}`);
    }
    // Ids made within one millisecond differ in their counter, not only in random bits. Any
    // millisecond will do (regression: the test looked only at the first id's, which the first
    // id can have to itself when it is made at the very end of a millisecond).
    const perMillisecond = new Map<number, number>();
    for (const id of ids) perMillisecond.set(timestampOf(id), (perMillisecond.get(timestampOf(id)) ?? 0) + 1);
    expect(Math.max(...perMillisecond.values())).toBeGreaterThan(1);
  });

  it('varies the random part between ids', () => {
    const tails = new Set(Array.from({ length: 1_000 }, () => newId().slice(-12)));
    expect(tails.size).toBe(1_000);
  });
});

describe('isUuid', () => {
  it('accepts UUIDs of every version, upper case, nil and max', () => {
    for (const id of [newId(), randomUUID(), randomUUID().toUpperCase(), '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff']) {
      expect(isUuid(id), id).toBe(true);
    }
  });

  it('refuses a wrong version, variant, length or character', () => {
    const id = newId();
    for (const bad of [
      `${id.slice(0, 14)}0${id.slice(15)}`,
      `${id.slice(0, 14)}9${id.slice(15)}`,
      `${id.slice(0, 19)}c${id.slice(20)}`,
      id.slice(1),
      `${id}0`,
      id.replace(/-/g, ''),
      `${id.slice(0, -1)}g`,
      '',
    ]) {
      expect(isUuid(bad), bad).toBe(false);
    }
  });
});
