/**
 * Redacted text must scan clean: under a guardrail that redacts inputs and blocks outputs, a
 * model that echoes its (redacted) input would otherwise be blocked for Porch's own placeholders.
 */
import { describe, expect, it } from 'vitest';
import { DOCUMENT_CLASSES, parseDocument } from '../../../bench/sanitiser-documents/index.js';
import { createSanitiser, redactText } from '../../../src/core/sanitiser/index.js';
import { holdsPlaceholder, placeholderEndAt } from '../../../src/core/sanitiser/redact.js';
import { fakeToken, HEX, pemBlock, randomText, summarise } from './fixtures.js';

const sanitiser = createSanitiser();

/** Carriers of most rules, beside the evaluation documents. */
const SNIPPETS: readonly string[] = [
  `# .npmrc
//registry.npmjs.org/:_authToken=${randomText('abcdef0123456789-', 36, 5)}
_auth=${Buffer.from('ci:Np7#qLw2Xz').toString('base64')}
_password=${Buffer.from('Np7#qLw2Xz').toString('base64')}`,
  `git clone https://oauth2:${fakeToken(['gl', 'pat-'], 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789', 20, 9)}@gitlab.example.com/acme/billing.git`,
  `DATABASE_URL=postgres://app:Vx8!qLm2Tz@db.internal:5432/app?sslmode=require`,
  `export GITHUB_TOKEN=${fakeToken(['gh', 'p_'], 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 36, 13)}`,
  `aws_secret_access_key = ${randomText('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+', 40, 17)}`,
  `Authorization: Bearer ${randomText('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 40, 19)}`,
  `api_key: "${randomText(HEX, 32, 23)}"`,
  pemBlock('RSA PRIVATE KEY'),
  `Card 4539 7821 6430 5927 exp 11/28; IBAN DE89 3704 0044 0532 0130 00 and again DE89370400440532013000.`,
  `Call me on +44 20 7946 0958 or mail ana.silva@example.com; SSN 219-44-7012; server 198.51.100.23.`,
  `GET /subscribe?email=jane.doe%40example.org HTTP/1.1`,
  `See https://shop.example.com/unsubscribe?email=jane.doe@example.org&list=7 for details.`,
  `password Xk29dLq7mRtAbCdE and CREATE USER r WITH PASSWORD 'Qw8!zLp2Rt5vNm3K';`,
  `docker login -u bot -p Dk7#rT2mQz9w registry.example.io && mysql -uroot -p-Rt7kWq2Lm9`,
];

/** Every evaluation document (bench/sanitiser-documents) and the snippets above, as plain text. */
function documents(): { name: string; text: string }[] {
  const all = DOCUMENT_CLASSES.flatMap((documentClass) =>
    documentClass.documents.map((marked, index) => ({ name: `${documentClass.name} #${index + 1}`, text: parseDocument(marked).text })),
  );
  return [...all, ...SNIPPETS.map((text, index) => ({ name: `snippet #${index + 1}`, text }))];
}

describe('redacted text scans clean', () => {
  it('leaves nothing any rule finds once every finding of a document is replaced by its placeholder', () => {
    const corpus = documents();
    expect(corpus.length).toBeGreaterThanOrEqual(90);
    const dirty: string[] = [];
    for (const { name, text } of corpus) {
      const redacted = redactText(text, sanitiser.scan(text).findings);
      const again = sanitiser.scan(redacted);
      if (again.findings.length > 0) dirty.push(`${name}: ${summarise(again.findings)} in ${JSON.stringify(redacted)}`);
    }
    expect(dirty).toEqual([]);
  });

  it('does not read a placeholder after an .npmrc auth name as an npm credential (regression: `[NPM_TOKEN_1` was blocked)', () => {
    for (const text of ['//registry.npmjs.org/:_authToken=[NPM_TOKEN_1]', '_auth=[NPMRC_AUTH_1]', '_password=[NPMRC_AUTH_2]']) {
      const result = sanitiser.scan(text);
      expect(result.findings, summarise(result.findings)).toEqual([]);
      expect(result.severity).toBe('clean');
    }
  });

  it('does not report a URL around a placeholder, but still a password in a URL whose user is one', () => {
    expect(sanitiser.scan('git clone https://oauth2:[GITLAB_TOKEN_1]@gitlab.com/acme/x.git').findings).toEqual([]);
    const findings = sanitiser.scan('postgres://[EMAIL_1]:Xk29dLq7WmRt@db.example.com/app').findings;
    expect(findings.map((finding) => finding.rule_id)).toEqual(['secret.url_credentials']);
  });

  it("still finds what is only written in a placeholder's shape (review: wrapping an IBAN or a key in [..._1] passed every rule)", () => {
    for (const [text, ruleId] of [
      ['IBAN: [DE89370400440532013000_1]', 'pii.iban'],
      ['key=[AKIAIOSFODNN7ABCDEFG_2]', 'secret.aws_access_key_id'],
      ['Send to [IBAN_GB82WEST12345698765432_1]', 'pii.iban'],
    ] as const) {
      expect(
        sanitiser.scan(text).findings.map((finding) => finding.rule_id),
        text,
      ).toContain(ruleId);
    }
  });

  it('takes for a placeholder only a number redaction can write (second review: a known type with a value as its number)', () => {
    const types = new Set(['EMAIL', 'PHONE']);
    expect(holdsPlaceholder('https://x.example/[EMAIL_12]', types)).toBe(true);
    expect(holdsPlaceholder('https://x.example/[EMAIL_4111111111111111]', types)).toBe(false);
    expect(placeholderEndAt('[PHONE_14155552671]', 0, types)).toBe(-1);
    expect(placeholderEndAt('[PHONE_0]', 0, types)).toBe(-1);
  });
});
