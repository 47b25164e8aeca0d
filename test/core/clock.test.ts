import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toIsoTimestamp } from '../../src/core/clock.js';

describe('toIsoTimestamp', () => {
  it('formats every instant exactly as Date.prototype.toISOString does', () => {
    // The whole Date range: four-digit years take the arithmetic path, the rest fall back.
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }), fc.integer({ min: -8.64e15, max: 8.64e15 })), (epochMs) => {
        expect(toIsoTimestamp(epochMs)).toBe(new Date(epochMs).toISOString());
      }),
      { numRuns: 20_000 },
    );
  });

  it('is exact at the edges: epoch, leap days, century rules and the four-digit year limits', () => {
    const instants = [
      0,
      -1,
      1,
      Date.UTC(2000, 1, 29),
      Date.UTC(1900, 1, 28, 23, 59, 59, 999),
      Date.UTC(2100, 2, 1),
      Date.UTC(2024, 11, 31, 23, 59, 59, 999),
      Date.UTC(0, 0, 1) - 1,
      -62_167_219_200_000,
      253_402_300_799_999,
      253_402_300_800_000,
    ];
    for (const epochMs of instants) expect(toIsoTimestamp(epochMs)).toBe(new Date(epochMs).toISOString());
  });
});
