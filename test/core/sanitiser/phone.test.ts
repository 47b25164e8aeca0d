import { describe, expect, it } from 'vitest';
import { matchesOf } from './fixtures.js';

describe('phone rule (pii.phone, validated with libphonenumber-js)', () => {
  it('finds international numbers in common notations', () => {
    const text = 'Reach us at +44 20 7946 0958, +1-415-555-2671 or +49 30 901820.';
    expect(matchesOf(text, 'pii.phone')).toEqual(['+44 20 7946 0958', '+1-415-555-2671', '+49 30 901820']);
  });

  it('finds formatted US numbers without any context word', () => {
    expect(matchesOf('Ask for (415) 555-2671 or 212.555.0198 today', 'pii.phone')).toEqual(['(415) 555-2671', '212.555.0198']);
  });

  it('finds national numbers next to a phone word, including extensions', () => {
    const text = 'Mobile: 0490 39 07 81\nFax: 345-899-3560x4587\nCan someone call me on 9472 7916?';
    expect(matchesOf(text, 'pii.phone')).toEqual(['0490 39 07 81', '345-899-3560x4587', '9472 7916']);
  });

  it('does not report a national-looking number without a phone word', () => {
    expect(matchesOf('Order 0490 39 07 81 shipped in batch 9472 7916.', 'pii.phone')).toEqual([]);
    // A label after a number counts on its line only (regression: the next line's "Tel" made a build id a phone number).
    expect(matchesOf('Version 1.2.3.4 build 20240315123456\nTel office ext. 4021', 'pii.phone')).toEqual([]);
    // Nor a bug number or the digits of a message id, beside "messages" (regression).
    expect(matchesOf('* logind: do not emit beep in wall messages (Closes: #1019510)', 'pii.phone')).toEqual([]);
    expect(matchesOf('    Message-ID: <54574397.4060000@DemoRecorder.com>', 'pii.phone')).toEqual([]);
  });

  it('does not report dates, times or ZIP+4 codes as phone numbers', () => {
    const text = 'Call back on 2024-03-15 or 15.03.2024 at 10:30; office ZIP 94103-1234; phone 03/15/2024.';
    expect(matchesOf(text, 'pii.phone')).toEqual([]);
  });

  it('does not report an international prefix with an impossible length', () => {
    expect(matchesOf('Call +44 12', 'pii.phone')).toEqual([]);
  });

  it('does not report numbers glued to words, versions or paths', () => {
    expect(matchesOf('build x4155552671, v415.555.2671, /415-555-2671', 'pii.phone')).toEqual([]);
  });
});
