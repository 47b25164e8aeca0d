import { describe, expect, it } from 'vitest';
import { createSanitiser, findingSpans, redactText } from '../../../src/core/sanitiser/index.js';
import { ALPHANUMERIC, fakeToken, findingsOf, randomText, scan } from './fixtures.js';

describe('overlap policy and overall severity', () => {
  it('keeps the URL credentials and drops the email-shaped text inside them', () => {
    const findings = findingsOf(`https://admin:${randomText(ALPHANUMERIC, 14)}@mail.example.com/inbox`);
    expect(findings.map((finding) => finding.rule_id)).toEqual(['secret.url_credentials']);
  });

  it('keeps the provider key and drops the generic assignment around it', () => {
    const token = fakeToken(['sk', '_live_'], ALPHANUMERIC, 24);
    expect(findingsOf(`STRIPE_SECRET=${token}`).map((finding) => finding.rule_id)).toEqual(['secret.stripe_secret_key']);
  });

  it('keeps a higher-severity finding over a more specific one: overlaps never lower the severity', () => {
    // An email inside a URL: the email (warn) wins over the URL (info).
    const findings = findingsOf('https://example.com/unsubscribe?email=anna@example.org');
    expect(findings.map((finding) => [finding.rule_id, finding.match])).toEqual([['pii.email', 'anna@example.org']]);
  });

  it('groups overlapping findings into one span with the highest severity, others each alone', () => {
    const spans = findingSpans([
      { start: 0, end: 4, severity: 'warn' as const },
      { start: 2, end: 10, severity: 'block' as const },
      { start: 12, end: 14, severity: 'info' as const },
    ]);
    expect(spans.map((span) => [span.start, span.end, span.severity, span.findings.length])).toEqual([
      [0, 10, 'block', 2],
      [12, 14, 'info', 1],
    ]);
  });

  it('returns findings sorted by start, built-in findings never overlap', () => {
    const text = `b@x.io ${fakeToken(['gh', 'p_'], ALPHANUMERIC, 36)} a@y.io 203.0.113.9`;
    const starts = scan(text).findings.map((finding) => finding.start);
    expect(starts).toEqual([...starts].sort((left, right) => left - right));
  });

  it('reports the highest severity as the overall severity, and clean when nothing is found', () => {
    expect(scan('Nothing to see here.').severity).toBe('clean');
    expect(scan('from 203.0.113.9').severity).toBe('info');
    expect(scan('from 203.0.113.9, anna@example.org').severity).toBe('warn');
    expect(scan(`from 203.0.113.9, anna@example.org, ${fakeToken(['gh', 'p_'], ALPHANUMERIC, 36)}`).severity).toBe('block');
  });

  it('lets an organisation rule win over a built-in one at equal severity', () => {
    const sanitiser = createSanitiser({
      custom: [
        { rule_id: 'custom.partner-mail', label: 'Partner address', severity: 'warn', enabled: true, kind: 'keywords', keywords: ['partner@acme.example'] },
      ],
      overrides: [],
    });
    expect(sanitiser.scan('write to partner@acme.example').findings.map((finding) => finding.rule_id)).toEqual(['custom.partner-mail']);
  });

  it.each([1, 40])(
    'keeps a built-in finding that reaches past an organisation rule inside it (%i matches; regression: the rest of the URL went unreported)',
    (hosts) => {
      const sanitiser = createSanitiser({
        custom: [{ rule_id: 'custom.client', label: 'Client', severity: 'block', enabled: true, kind: 'keywords', keywords: ['acme'] }],
        overrides: [],
      });
      const url = `postgres://admin:S3cretPw9x@${'acme.'.repeat(hosts)}internal/app`;
      const findings = sanitiser.scan(`db ${url} and acme alone`).findings;
      expect(findings.filter((finding) => finding.rule_id === 'secret.url_credentials').map((finding) => finding.match)).toEqual([url]);
      expect(findings.filter((finding) => finding.rule_id === 'custom.client')).toHaveLength(hosts + 1);
      expect(redactText(`db ${url} and acme alone`, findings)).toBe('db [URL_CREDENTIALS_1] and [CLIENT_1] alone');
    },
  );
});
