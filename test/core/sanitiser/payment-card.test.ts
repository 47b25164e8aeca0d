import { describe, expect, it } from 'vitest';
import { findingsOf, matchesOf } from './fixtures.js';

describe('payment card rule (pii.payment_card, Luhn-checked)', () => {
  it('finds Luhn-valid numbers of the major networks, grouped or not', () => {
    const text = 'Visa 4111 1111 1111 1111, Amex 3714-628351-90425, MC 5271938462057318, Discover 6011743829156206';
    expect(matchesOf(text, 'pii.payment_card')).toEqual(['4111 1111 1111 1111', '3714-628351-90425', '5271938462057318', '6011743829156206']);
  });

  it('blocks by default', () => {
    expect(findingsOf('card 4111111111111111', 'pii.payment_card')[0]?.severity).toBe('block');
  });

  it('does not report numbers that fail the Luhn check', () => {
    expect(matchesOf('card 4111 1111 1111 1112 and 5555555555554440', 'pii.payment_card')).toEqual([]);
  });

  it('does not report 13-digit millisecond timestamps or numbers of other industries', () => {
    // 1700000000007 passes Luhn but no 13-digit card starts with 1; 7, 8, 9 and 0 are not card industries.
    expect(matchesOf('ts=1700000000007 id 7992739871300000 acct 0000000000000000', 'pii.payment_card')).toEqual([]);
  });

  it('does not report Luhn numbers whose prefix no issuer uses (20, 21, 2721-2999, 31-33)', () => {
    const text = 'order 2040494836694672, ref 2114505452691493, acct 3155491736310002, id 3392908793501846, x 2750373376703673';
    expect(matchesOf(text, 'pii.payment_card')).toEqual([]);
    // Mastercard's 2-series runs from 2221 to 2720, so a 26... number is one.
    expect(matchesOf('card 2692547568345671', 'pii.payment_card')).toEqual(['2692547568345671']);
  });

  it('does not report EAN-13 barcodes after a barcode label or in a cell of a product list', () => {
    // Each passes Luhn and the GS1 check digit.
    expect(matchesOf('Artikel;EAN;Preis\nSpülmittel;4036160433231;1,99\nSchwamm;4070668043226;0,89', 'pii.payment_card')).toEqual([]);
    expect(matchesOf('EAN: 4089908355968, Barcode 5040310027538', 'pii.payment_card')).toEqual([]);
    // In prose, without a barcode label, the 13-digit number may be an old Visa card.
    expect(matchesOf('card 4036160433231', 'pii.payment_card')).toEqual(['4036160433231']);
  });

  it('does not report numbers with mixed separators', () => {
    expect(matchesOf('4111-1111 1111.1111', 'pii.payment_card')).toEqual([]);
  });

  it('finds a grouped card followed or preceded by its expiry and security code (regression: the run as a whole was no card)', () => {
    const texts = [
      'Pay with 4111 1111 1111 1111 12/27 737 please',
      'card 4111 1111 1111 1111 123',
      '4111 1111 1111 1111 (12/27)',
      'Visa 4539 7821 6430 5927 0125',
      'Order 12 card 4111 1111 1111 1111 2 items',
      'exp 12/27 4111 1111 1111 1111',
    ];
    for (const text of texts)
      expect(matchesOf(text, 'pii.payment_card'), text).toEqual([text.includes('4539') ? '4539 7821 6430 5927' : '4111 1111 1111 1111']);
    expect(matchesOf('Amex 3714 628351 90425 12/27', 'pii.payment_card')).toEqual(['3714 628351 90425']);
    // The numbers beside the card are still classified on their own.
    expect(findingsOf('call 555 123 4567 4111 1111 1111 1111', 'pii.payment_card')).toHaveLength(1);
    // A run of four-digit groups with no card at either end stays none.
    expect(matchesOf('ids 1234 5678 9012 3456 7890 1234', 'pii.payment_card')).toEqual([]);
  });

  it('finds every card of grouped cards written one after another with a space (regression: only the first)', () => {
    expect(matchesOf('cards 4539 1488 0343 6467 4716 2895 3521 3348 on file', 'pii.payment_card')).toEqual(['4539 1488 0343 6467', '4716 2895 3521 3348']);
    expect(matchesOf('Visa 4539 1488 0343 6467 4716 2895 3521 3348 12/27 737', 'pii.payment_card')).toEqual(['4539 1488 0343 6467', '4716 2895 3521 3348']);
    expect(matchesOf('Amex 3714 628351 90425 4539 1488 0343 6467', 'pii.payment_card')).toEqual(['3714 628351 90425', '4539 1488 0343 6467']);
  });

  it('finds every card of a line longer than a number can be: three cards, or two with an expiry or a security code between (regression: none was found)', () => {
    // The run of digits was cut at 42 characters, inside a card, and dropped as glued to the next digit.
    const [first, second, third] = ['4539 1488 0343 6467', '4716 2895 3521 3348', '4556 7375 8689 9855'];
    expect(matchesOf(`cards ${first} ${second} ${third} on file`, 'pii.payment_card')).toEqual([first, second, third]);
    expect(matchesOf(`cards ${first} 12/27 ${second}`, 'pii.payment_card')).toEqual([first, second]);
    expect(matchesOf(`cards ${first} 737 ${second}`, 'pii.payment_card')).toEqual([first, second]);
    expect(matchesOf(`cards ${first} 12/27 737 ${second} 01/28 123 ${third}`, 'pii.payment_card')).toEqual([first, second, third]);
    expect(matchesOf(`Amex 3714 628351 90425 12/27 1234 ${first}`, 'pii.payment_card')).toEqual(['3714 628351 90425', first]);
    // A long run of four-digit groups with no card at either end stays none, and four digits
    // after a card of sixteen are no security code that a card may follow.
    expect(matchesOf(`ids ${'1234 5678 9012 3456 7890 '.repeat(3)}1234`, 'pii.payment_card')).toEqual([]);
    expect(matchesOf(`ids ${first} 1234 5678 9012 3456 7890`, 'pii.payment_card')).toEqual([first]);
  });

  it('finds a card written in four dotted groups, but no other dotted number', () => {
    expect(matchesOf('card 4111.1111.1111.1111 on file', 'pii.payment_card')).toEqual(['4111.1111.1111.1111']);
    expect(matchesOf('build 2024.1111.1111.1111 and 4111.1111.1111.1111.1', 'pii.payment_card')).toEqual([]);
  });

  it("does not report the processors' documented test cards, in any grouping (regression: they were block findings)", () => {
    const text =
      'In test mode use 4242 4242 4242 4242, 4000-0000-0000-0002 (declined), 5555555555554444, 3782 822463 10005, ' +
      'Braintree 4012888888881881 or Adyen 5555 4444 3333 1111.';
    expect(matchesOf(text, 'pii.payment_card')).toEqual([]);
  });

  it('still reports 4111 1111 1111 1111 and cards outside the list', () => {
    expect(matchesOf('card 4111 1111 1111 1111 or 4539 7821 6430 5927', 'pii.payment_card')).toEqual(['4111 1111 1111 1111', '4539 7821 6430 5927']);
  });
});
