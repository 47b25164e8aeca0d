import { describe, expect, it } from 'vitest';
import { createSanitiser } from '../../../src/core/sanitiser/index.js';
import { isValidSingaporeNric } from '../../../src/core/sanitiser/detectors/national-ids.js';

const sanitiser = createSanitiser();
const found = (text: string) => sanitiser.scan(text).findings.map((finding) => [finding.rule_id, finding.match]);

describe('national identifiers (stdnum checksums)', () => {
  it.each([
    ['pii.uk_nino', 'NI number: JX570400A', 'JX570400A'],
    ['pii.uk_nino', 'payroll ref JX 57 04 00 A attached', 'JX 57 04 00 A'],
    ['pii.de_tax_id', 'Steuer-ID 10015070848', '10015070848'],
    ['pii.fr_nir', 'N° sécurité sociale : 179051041002554', '179051041002554'],
    ['pii.pl_pesel', 'PESEL: 98092129440', '98092129440'],
    ['pii.se_personnummer', 'personnummer 630121-8704', '630121-8704'],
    ['pii.cn_resident_id', 'ID 440305199405019561 verified', '440305199405019561'],
    ['pii.sg_nric', 'pass F2287140N issued', 'F2287140N'],
    ['pii.tr_tc_kimlik', 'TCKN 18328742656', '18328742656'],
    ['pii.za_id', 'RSA ID: 8409055360080', '8409055360080'],
    ['pii.be_national_number', 'Rijksregisternummer 89010570848', '89010570848'],
    ['pii.ch_ahv', 'insured 756.6358.6611.24 since 2019', '756.6358.6611.24'],
    ['pii.fi_hetu', 'asiakas 210963-760K soitti', '210963-760K'],
    ['pii.no_fodselsnummer', 'Fødselsnummer: 25058118888', '25058118888'],
    ['pii.pl_pesel', 'national id: 98092129440', '98092129440'],
  ])('finds %s in %j', (ruleId, text, match) => {
    expect(found(text)).toContainEqual([ruleId, match]);
  });

  it.each([
    ['a bare 11-digit number without a label', 'Order 98092129440 shipped'],
    ['a labelled number whose check digit is wrong', 'PESEL: 98092129441'],
    ['a NINO-shaped word in lower case without a label', 'ref jx570400a'],
    ['an 18-digit number with an impossible birth date', 'txn 440305199413019561'],
    ['an AHV-shaped number with a wrong check digit', 'ref 756.6358.6611.25'],
  ])('does not report %s', (_why, text) => {
    expect(found(text).filter(([ruleId]) => ruleId?.startsWith('pii.') && ruleId !== 'pii.phone')).toEqual([]);
  });

  it.each([
    ['pii.fr_nir', 'dossier 1 79 05 2A 410 025 05 ok', '1 79 05 2A 410 025 05'],
    ['pii.fr_nir', 'ref 12 1 79 05 10 410 025 54', '1 79 05 10 410 025 54'],
    ['pii.uk_nino', '203.0.113.7 JX570400A', 'JX570400A'],
    ['pii.sg_nric', 'F2287140N 210963-760K', 'F2287140N'],
    ['pii.fi_hetu', 'F2287140N 210963-760K', '210963-760K'],
    ['pii.cn_resident_id', '440305199405019561 ok', '440305199405019561'],
    ['pii.ch_ahv', 'ahv 756.6358.6611.24', '756.6358.6611.24'],
    ['pii.be_national_number', 'BE 89.01.05-708.48', '89.01.05-708.48'],
    ['pii.fi_hetu', 'asiakas 210963+760K soitti', '210963+760K'],
    ['pii.fi_hetu', 'asiakas 010101A123N soitti', '010101A123N'],
    ['pii.uk_nino', 'payroll JX 5704 00 A', 'JX 5704 00 A'],
    ['pii.uk_nino', 'payroll JX5704 00A ok', 'JX5704 00A'],
    ['pii.sg_nric', '10.0.0.1 - - "GET /a/4821 200 183ms" F2287140N', 'F2287140N'],
  ])('finds the standalone %s in %j: at the edges, after other numbers, next to another id', (ruleId, text, match) => {
    // The standalone formats are tried only near cheap hints (digit-shapes.ts: six digits in a
    // row, a NINO's digit pairs before its letter, a NIR's `79 05 `, `dd.dd.dd-`, `ddd.dddd`):
    // a Corsican NIR (`2A`) has only the NIR hint, a HETU with `+` or `A` only its six digits,
    // and an access log's `4821 200 18` is no hint at all.
    expect(found(text)).toContainEqual([ruleId, match]);
  });

  it('does not read a standalone id glued to a letter', () => {
    expect(found('x440305199405019561')).toEqual([]);
  });

  it('checks the Singapore NRIC letter (weights 2765432, +4 for T and G)', () => {
    expect(isValidSingaporeNric('S8814275F')).toBe(true);
    expect(isValidSingaporeNric('T0259311J')).toBe(true);
    expect(isValidSingaporeNric('S8814275G')).toBe(false);
    expect(isValidSingaporeNric('X8814275F')).toBe(false);
  });
});

describe('values named by a column header', () => {
  it('reports the cells of an ssn column in a CSV export, and nothing in the other columns', () => {
    const text = 'id,name,ssn,score\n1,Ann,616399411,87\n2,Bo,340985103,1234567\n';
    expect(found(text)).toEqual([
      ['pii.us_ssn', '616399411'],
      ['pii.us_ssn', '340985103'],
    ]);
  });

  it('reads SQL INSERT values by position, strings and bare values alike, with escaped quotes', () => {
    const text = "INSERT INTO people (name, phone, tax_id) VALUES ('O''Neil', '030 2218 4471', 10015070848), ('Li', NULL, 'AB-99')";
    expect(found(text)).toEqual([
      ['pii.phone', '030 2218 4471'],
      ['pii.de_tax_id', '10015070848'],
    ]);
  });

  it('reads COPY ... FROM stdin rows until the end marker', () => {
    const text = 'COPY staff (id, fnr) FROM stdin;\n1\t25058118888\n\\.\n2\t17018050064\n';
    expect(found(text)).toEqual([['pii.no_fodselsnummer', '25058118888']]);
  });

  it('does not take a sentence with commas for a header', () => {
    const text = 'Bring the tin, foil, tape\n46-0271014, 12, 3\n';
    expect(found(text)).toEqual([]);
  });

  it('reads the first column of a CSV that starts with a byte order mark (regression: U+FEFF hid its header)', () => {
    expect(found('\ufeffssn,name\n616399411,Ann\n340985103,Bo\n')).toEqual([
      ['pii.us_ssn', '616399411'],
      ['pii.us_ssn', '340985103'],
    ]);
    expect(found('\ufefftax_id,name\nPT501234567,Ann\n')).toEqual([['pii.national_id', 'PT501234567']]);
  });

  /** A table whose rows are long enough that no row's number has the header within the prose phone window. */
  const table = (header: string, delimiter: string, numbers: readonly string[]) =>
    [
      `name${delimiter}${header}${delimiter}note`,
      ...numbers.map((number, index) => `Person ${index + 1}${delimiter}${number}${delimiter}customer since 2019 who prefers e-mail`),
    ].join('\n');

  it.each([
    ['German Handy', 'Handy', ',', ['0151 48213377', '0172 9034418', '0160 98765432']],
    ['German Telefonnummer', 'Telefonnummer', ';', ['030 66281904', '089 33192270', '040 87654321']],
    ['Polish telefon_komorkowy', 'telefon_komorkowy', ',', ['512 884 203', '694 120 587', '601 234 567']],
    ['Polish nr telefonu', 'nr telefonu', ',', ['512 884 203', '694 120 587', '601 234 567']],
    ['French portable', 'portable', ';', ['06 71 28 44 90', '07 62 19 83 05', '06 12 34 56 78']],
    ['Swedish Mobilnummer, in a Markdown table', 'Mobilnummer', '|', ['070-123 45 67', '073-987 65 43', '076-555 12 34']],
    ['Spanish Móvil', 'Móvil', ',', ['612 345 678', '699 876 543', '655 443 322']],
    ['Turkish Cep telefonu', 'Cep telefonu', ',', ['0532 123 45 67', '0533 765 43 21', '0542 111 22 33']],
    ['Chinese 手机号码', '手机号码', ',', ['13912345678', '15087654321', '13701234567']],
  ])('reads every row of a phone column named in another language: %s (regression: only the first row)', (_language, header, delimiter, numbers) => {
    expect(found(table(header, delimiter, numbers))).toEqual(numbers.map((number) => ['pii.phone', number]));
  });

  it('does not take a column of Brazilian CEPs (postal codes) for phone numbers', () => {
    expect(found('id,cep\n1,01310-100\n2,20040-020\n')).toEqual([]);
  });

  it('stops at a blank line below the table', () => {
    const text = 'name\ttin\nAnn\t46-0271014\n\nNotes\t46-0271015\n';
    expect(found(text)).toEqual([['pii.national_id', '46-0271014']]);
  });
});

describe('addresses and encoded values', () => {
  it('reports an IPv4-mapped IPv6 address whole, but not a mapped loopback', () => {
    expect(found('peer ::ffff:198.51.100.9 closed')).toEqual([['pii.ip_address', '::ffff:198.51.100.9']]);
    expect(found('bound to ::ffff:127.0.0.1')).toEqual([]);
  });

  it('reads obfuscated and internationalised addresses, not message ids', () => {
    expect(found('write to ops [at] example-shop [dot] io')).toEqual([['pii.email', 'ops [at] example-shop [dot] io']]);
    expect(found('Kontakt: grüße@müller-bau.de')).toEqual([['pii.email', 'grüße@müller-bau.de']]);
    expect(found('In-Reply-To: <5f1e.77ab@mx.example.net>')).toEqual([]);
  });

  it('does not read an IMEI, a package version or a documented example key as sensitive', () => {
    expect(found('IMEI: 490154203237518')).toEqual([]);
    expect(found('upgraded Microsoft.Extensions.Http 8.0.0.1 today')).toEqual([]);
    expect(found('aws_access_key_id = AKIAIOSFODNN7EXAMPLE')).toEqual([]);
    // jwt.io's example token and the Azure Storage emulator's published key (regression: blocked).
    expect(
      found(
        'Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
      ),
    ).toEqual([]);
    expect(
      found(
        'DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;',
      ),
    ).toEqual([]);
  });

  it('decodes Kubernetes Secret data and maps the finding onto the base64 that carries it', () => {
    const encoded = Buffer.from('Zx9!mWq2Lp7#Tr').toString('base64');
    const text = `apiVersion: v1\nkind: Secret\ndata:\n  db-password: ${encoded}\n  user: ${Buffer.from('app').toString('base64')}\n`;
    const findings = createSanitiser().scan(text).findings;
    expect(findings.map((finding) => [finding.rule_id, finding.match])).toEqual([['secret.password_assignment', encoded]]);
    const placeholder = `apiVersion: v1\nkind: Secret\ndata:\n  password: ${Buffer.from('changeme').toString('base64')}\n`;
    expect(found(placeholder)).toEqual([]);
  });
});
