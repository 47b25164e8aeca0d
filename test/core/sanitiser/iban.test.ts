import { describe, expect, it } from 'vitest';
import { matchesOf } from './fixtures.js';

describe('IBAN rule (pii.iban, mod-97 checked)', () => {
  it('finds IBANs compact, grouped and in lower case', () => {
    const text = 'Pay GB82WEST12345698765432, DE89 3704 0044 0532 0130 00 or gb29nwbk60161331926819.';
    expect(matchesOf(text, 'pii.iban')).toEqual(['GB82WEST12345698765432', 'DE89 3704 0044 0532 0130 00', 'gb29nwbk60161331926819']);
  });

  it('stops at the country length even when a word follows', () => {
    expect(matchesOf('FR1420041010050500013M02606 is ours', 'pii.iban')).toEqual(['FR1420041010050500013M02606']);
  });

  it('does not report an IBAN with a wrong check digit', () => {
    expect(matchesOf('GB83WEST12345698765432 and DE88 3704 0044 0532 0130 00', 'pii.iban')).toEqual([]);
  });

  it('does not report a valid checksum with the wrong length for its country', () => {
    expect(matchesOf('GB82WEST1234569876543', 'pii.iban')).toEqual([]);
  });

  it('finds a Slovak IBAN although SK also starts a vendor key prefix', () => {
    expect(matchesOf('SK3112000000198742637541', 'pii.iban')).toEqual(['SK3112000000198742637541']);
  });
});
