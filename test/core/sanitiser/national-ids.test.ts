import { describe, expect, it } from 'vitest';
import { findingsOf, matchesOf } from './fixtures.js';

describe('US SSN rule (pii.us_ssn)', () => {
  it('finds dashed SSNs, and spaced or plain ones after an SSN label', () => {
    expect(matchesOf("Here's my SSN: 023-01-0866", 'pii.us_ssn')).toEqual(['023-01-0866']);
    expect(matchesOf('SSN 123 45 6789, social security 234567890', 'pii.us_ssn')).toEqual(['123 45 6789', '234567890']);
  });

  it('accepts areas 7xx and 8xx, assignable since 2011', () => {
    expect(matchesOf('853-37-1694 and 731-83-4418', 'pii.us_ssn')).toEqual(['853-37-1694', '731-83-4418']);
  });

  it('does not report areas 000, 666 and 9xx, group 00 or serial 0000', () => {
    expect(matchesOf('000-12-3456 666-12-3456 912-34-5678 123-00-4567 123-45-0000', 'pii.us_ssn')).toEqual([]);
  });

  it('does not report plain nine-digit numbers without an SSN label', () => {
    expect(matchesOf('order 234567890 shipped', 'pii.us_ssn')).toEqual([]);
  });

  it('blocks by default', () => {
    expect(findingsOf('SSN 123-45-6789', 'pii.us_ssn')[0]?.severity).toBe('block');
  });
});

describe('national ids with checksums', () => {
  it('finds a Spanish DNI and NIE with the right control letter, and rejects a wrong one', () => {
    expect(matchesOf('DNI 12345678Z, NIE X1234567L, bad 12345678A', 'pii.es_dni')).toEqual(['12345678Z', 'X1234567L']);
  });

  it('finds a formatted Brazilian CPF and rejects a wrong check digit or repeated digits', () => {
    expect(matchesOf('CPF 529.982.247-25, 529.982.247-26, 111.111.111-11', 'pii.br_cpf')).toEqual(['529.982.247-25']);
  });

  it('finds an Italian codice fiscale with the right check letter', () => {
    expect(matchesOf('CF RSSMRA85T10A562S, wrong RSSMRA85T10A562T', 'pii.it_fiscal_code')).toEqual(['RSSMRA85T10A562S']);
  });

  it('finds a codice fiscale at the start of the text or right after another id, not glued to a word', () => {
    expect(matchesOf('RSSMRA85T10A562S', 'pii.it_fiscal_code')).toEqual(['RSSMRA85T10A562S']);
    // The DNI's match ends with the space before the code (regression: the code was not found).
    expect(matchesOf('DNI 12345678Z RSSMRA85T10A562S', 'pii.it_fiscal_code')).toEqual(['RSSMRA85T10A562S']);
    expect(matchesOf('xRSSMRA85T10A562S SMRA85T10A562S', 'pii.it_fiscal_code')).toEqual([]);
  });

  it('finds an IBAN or a DNI right after a code-shaped run (triggers do not consume the boundary)', () => {
    expect(matchesOf('ref 12a34b567c IT60X0542811101000000123456', 'pii.iban')).toEqual(['IT60X0542811101000000123456']);
    expect(matchesOf('ref 12a34b567c 12345678Z', 'pii.es_dni')).toEqual(['12345678Z']);
    expect(matchesOf('RSSMRA85T10A562S RSSMRA85T10A562S', 'pii.it_fiscal_code')).toEqual(['RSSMRA85T10A562S', 'RSSMRA85T10A562S']);
  });

  it('finds an Aadhaar number in 4-4-4 groups that passes Verhoeff', () => {
    expect(matchesOf('Aadhaar 2345 6789 0124 and 2345 6789 0123', 'pii.in_aadhaar')).toEqual(['2345 6789 0124']);
  });

  it('finds a Canadian SIN only next to its label, and only when it passes Luhn', () => {
    expect(matchesOf('SIN: 130 692 544', 'pii.ca_sin')).toEqual(['130 692 544']);
    expect(matchesOf('ref 130 692 544 and SIN: 130 692 545', 'pii.ca_sin')).toEqual([]);
  });
});

describe('id labels in the tail of a longer word', () => {
  it('does not read "sin" in "Wisconsin" as a SIN label when the context window cuts the word', () => {
    // The 40-character window before the number starts at the "sin" of "Wisconsin".
    expect(matchesOf('Shipped from Madison, Wisconsin; warehouse bins and pallets, lot no 123456782', 'pii.ca_sin')).toEqual([]);
    expect(matchesOf('SIN 123456782', 'pii.ca_sin')).toEqual(['123456782']);
  });
});

describe('Chinese and Turkish ids as people write them', () => {
  it('finds a Chinese resident id whose check character is a lower-case x (regression: only X was read alone)', () => {
    expect(matchesOf('身份证：44030619850417100x', 'pii.cn_resident_id')).toEqual(['44030619850417100x']);
    expect(matchesOf('身份证号码: 44030619850417100X。', 'pii.cn_resident_id')).toEqual(['44030619850417100X']);
  });

  it('reads "TC No" and "T.C. No" as labels of a T.C. Kimlik number (regression: nothing found)', () => {
    expect(matchesOf('TC No: 48201937510', 'pii.tr_tc_kimlik')).toEqual(['48201937510']);
    expect(matchesOf('Sigorta başvurusu: T.C. No: 35710468284', 'pii.tr_tc_kimlik')).toEqual(['35710468284']);
    expect(matchesOf('etc no 48201937510', 'pii.tr_tc_kimlik')).toEqual([]);
  });
});
