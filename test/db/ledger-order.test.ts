/**
 * The id a ledger entry is written under when the account already has one at or above its own:
 * the next UUID of the same version and variant, carried across the random fields into the time.
 */
import { describe, expect, it } from 'vitest';
import { isUuid, newId } from '../../src/core/ids.js';
import { ledgerEntryId, uuidAfter } from '../../src/db/ledger-order.js';

describe('uuidAfter', () => {
  it('adds one to the random bits, keeping the version and the variant', () => {
    expect(uuidAfter('01935f2e-1a2b-7c3d-8e4f-000000000001')).toBe('01935f2e-1a2b-7c3d-8e4f-000000000002');
  });

  it('carries into the 12 bits before the variant, then into the time', () => {
    expect(uuidAfter('01935f2e-1a2b-7c3d-bfff-ffffffffffff')).toBe('01935f2e-1a2b-7c3e-8000-000000000000');
    expect(uuidAfter('01935f2e-1a2b-7fff-bfff-ffffffffffff')).toBe('01935f2e-1a2c-7000-8000-000000000000');
  });

  it('answers a valid UUID that sorts after the one given, for ids as Porch makes them', () => {
    for (let index = 0; index < 1_000; index += 1) {
      const id = newId();
      const next = uuidAfter(id);
      expect(isUuid(next)).toBe(true);
      expect(next > id).toBe(true);
      expect(next.slice(14, 15)).toBe('7');
    }
  });
});

describe('ledgerEntryId', () => {
  it('keeps the id made for the entry when it is above every entry of the account', () => {
    const [older, newer] = [newId(), newId()];
    expect(ledgerEntryId(newer, older)).toBe(newer);
    expect(ledgerEntryId(newer, undefined)).toBe(newer);
  });

  it('writes above the highest entry when an entry made later was written first', () => {
    const [older, newer] = [newId(), newId()];
    expect(ledgerEntryId(older, newer)).toBe(uuidAfter(newer));
  });
});
