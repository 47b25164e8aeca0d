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

  it.each([
    ['"Helpdesk" cut to "desk"', 'Escalated by Helpdesk on the import of the nightly ledger, batch 0301234567'],
    ['"Intel" cut to "tel"', 'Supplier: Intel Corp; purchase orders for the servers, refs 0301234567'],
    ['"recall" cut to "call"', 'Product recall for the affected lots of kettles, batch no 0301234567'],
    ['"during" cut to "ring"', 'during the reindex, the nightly import, batch no. 0301234567'],
    ['"Spülmittel" cut to "tel"', 'Spülmittel,8.34,427,Haushalt und Drogeriebedarf, Regal\n4006381333931'],
  ])('does not read a phone word in the tail of a longer word the context window cuts: %s', (_word, text) => {
    // Each text puts the 48-character window's start inside the word, where only its tail is left.
    expect(matchesOf(text, 'pii.phone')).toEqual([]);
  });

  it('reads a phone word the context window cuts whole', () => {
    expect(matchesOf('Telephone, if the portal and the mail are all down: 0301234567', 'pii.phone')).toEqual(['0301234567']);
  });

  it.each([
    ['German', 'Handy: 0152 28817634', '0152 28817634'],
    ['German, a compound label', 'Telefonnummer: 089 21093876', '089 21093876'],
    ['French', 'Portable : 07 81 44 26 90', '07 81 44 26 90'],
    ['French, abbreviated', 'Tél : 04 72 18 65 30', '04 72 18 65 30'],
    ['Polish', 'komórka: 604 218 937', '604 218 937'],
    ['Polish, two words', 'nr telefonu: 604 218 937', '604 218 937'],
    ['Swedish', 'Mobil: 073-618 24 95', '073-618 24 95'],
    ['Turkish', 'Cep: 0542 318 76 20', '0542 318 76 20'],
    ['Turkish, two words', 'Cep telefonu: 0542 318 76 20', '0542 318 76 20'],
    ['Chinese, full-width colon', '手机：13971628405', '13971628405'],
    ['Chinese, landline', '电话：021-64873190', '021-64873190'],
    ['Spanish', 'Móvil: 655 82 19 37', '655 82 19 37'],
  ])('finds a national number after a phone label: %s', (_language, text, number) => {
    expect(matchesOf(text, 'pii.phone')).toEqual([number]);
  });

  it('does not read "tél" at the start of a longer French word as a label', () => {
    expect(matchesOf('Télévision: forfait 04 72 18 65 30', 'pii.phone')).toEqual([]);
  });

  it("does not read Brazil's CEP postal code as a Turkish mobile label", () => {
    expect(matchesOf('Endereço: Av. Paulista, 1578 - CEP: 01310-200', 'pii.phone')).toEqual([]);
    expect(matchesOf('CEP 01310200', 'pii.phone')).toEqual([]);
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
