/**
 * An organisation's large custom ruleset over REST. Regression: the first scan after a rule change
 * compiled every custom rule on the event loop (a rule of a thousand long keywords is one RE2
 * program of some 200,000 characters, about 100 ms to compile), so 49 such rules held every
 * tenant's requests, /health included, for about 10 s in each process after each change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSanitiser, MAX_CUSTOM_KEYWORDS, type CustomRuleDefinition, type ScanResult } from '../../src/core/sanitiser/index.js';
import { longestEventLoopDelay, STALL_BOUND_MS } from '../helpers/event-loop-delay.js';
import { describeResponse } from '../helpers/harness.js';
import { createProviderHarness, type ProviderHarness } from '../helpers/provider-harness.js';

/** Rules of a thousand keywords of 198 characters: just under the organisation's million characters in all. */
const RULE_COUNT = 5;
const KEYWORD_LENGTH = 198;

let harness: ProviderHarness;
beforeAll(async () => {
  harness = await createProviderHarness();
});
afterAll(async () => {
  await harness.close();
});

/** Lower-case words from a fixed seed, so every run builds the same keywords. */
function wordSource(seed: number): (length: number) => string {
  let state = seed;
  const nextLetter = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return String.fromCharCode(97 + (Math.floor(state / 65_536) % 26));
  };
  return (length) => {
    let phrase = '';
    while (phrase.length < length) phrase += phrase.length % 9 === 8 ? ' ' : nextLetter();
    return `${phrase.slice(0, length - 1)}${nextLetter()}`;
  };
}

function largeRule(index: number): CustomRuleDefinition {
  const phrase = wordSource(index + 1);
  return {
    rule_id: `custom.names-${index}`,
    label: `Names ${index}`,
    severity: index % 2 === 0 ? 'block' : 'warn',
    enabled: true,
    kind: 'keywords',
    keywords: Array.from({ length: MAX_CUSTOM_KEYWORDS }, () => phrase(KEYWORD_LENGTH)),
  };
}

async function admin() {
  const account = await harness.createAccount();
  const { key } = await harness.createKey(account.accountId, { scopes: ['manage:organisation', 'api:sanitiser'] });
  return { ...account, key };
}

describe('a large custom ruleset', () => {
  it('is compiled and scanned without holding the event loop, with the findings of a scan on it, and a changed rule applies to the next scan', async () => {
    // The scan worker starts, and loads the rule engine, on another organisation's first scan:
    // that is start-up, not the request measured.
    const other = await admin();
    const small = { rule_id: 'custom.small', label: 'Small', severity: 'warn', enabled: true, kind: 'keywords', keywords: ['bluebird'] };
    expect((await harness.api('POST', '/organisation/sanitiser-rules', { key: other.key, body: small })).status).toBe(200);
    expect((await harness.api('POST', '/sanitiser/scan', { key: other.key, body: { text: 'warm up bluebird' } })).status).toBe(200);

    const { key } = await admin();
    const rules = Array.from({ length: RULE_COUNT }, (_, index) => largeRule(index));
    for (const rule of rules) {
      const added = await harness.api('POST', '/organisation/sanitiser-rules', { key, body: rule });
      expect(added.status, describeResponse(added)).toBe(200);
    }
    const keywordOf = (ruleIndex: number, keywordIndex: number) => rules[ruleIndex]?.keywords?.[keywordIndex] ?? '';
    const text = [
      `Hi, about ${keywordOf(0, 17)} and ${keywordOf(3, 999).toUpperCase()}:`,
      `not ${keywordOf(1, 5)}x (inside a longer word), but ${keywordOf(4, 0)}.`,
      'Write to ada@example.com.',
    ].join('\n');

    const { longestMs, result } = await longestEventLoopDelay(() => harness.api<ScanResult>('POST', '/sanitiser/scan', { key, body: { text } }));
    expect(result.status, describeResponse(result)).toBe(200);
    expect(longestMs, `the event loop was held for ${longestMs.toFixed(0)} ms`).toBeLessThan(STALL_BOUND_MS);
    expect(result.body.data.findings.map((finding) => finding.rule_id)).toEqual(['custom.names-0', 'custom.names-3', 'custom.names-4', 'pii.email']);
    expect(result.body.data).toEqual(createSanitiser({ custom: rules, overrides: [] }).scan(text));

    // One rule changes: the next scan uses it, compiling only what changed, still off the loop.
    const changed = { ...largeRule(0), keywords: [...(largeRule(0).keywords ?? []).filter((_, index) => index !== 17), 'bluebird'] };
    expect((await harness.api('POST', '/organisation/sanitiser-rules', { key, body: changed })).status).toBe(200);
    const next = await longestEventLoopDelay(() => harness.api<ScanResult>('POST', '/sanitiser/scan', { key, body: { text: `${text}\nbluebird` } }));
    expect(next.result.status, describeResponse(next.result)).toBe(200);
    expect(next.longestMs, `the event loop was held for ${next.longestMs.toFixed(0)} ms`).toBeLessThan(STALL_BOUND_MS);
    expect(next.result.body.data.findings.map((finding) => [finding.rule_id, finding.match])).toEqual([
      ['custom.names-3', keywordOf(3, 999).toUpperCase()],
      ['custom.names-4', keywordOf(4, 0)],
      ['pii.email', 'ada@example.com'],
      ['custom.names-0', 'bluebird'],
    ]);
  });

  it("refuses a rule that would take the organisation's custom rules past a million characters of keywords and patterns", async () => {
    const { key } = await admin();
    for (const rule of Array.from({ length: RULE_COUNT }, (_, index) => largeRule(index))) {
      expect((await harness.api('POST', '/organisation/sanitiser-rules', { key, body: rule })).status).toBe(200);
    }
    const phrase = wordSource(RULE_COUNT + 1);
    const overTheTop = { ...largeRule(RULE_COUNT), keywords: Array.from({ length: 51 }, () => phrase(200)) };
    const refused = await harness.api('POST', '/organisation/sanitiser-rules', { key, body: overTheTop });
    expect(refused.status, describeResponse(refused)).toBe(400);
    expect(refused.body.error.message).toMatch(/at most 1,000,000 characters of keywords and patterns in all; with this rule they would hold 1,000,200\./);
    // Replacing a rule counts its new keywords instead of its old ones.
    const replaced = await harness.api('POST', '/organisation/sanitiser-rules', { key, body: { ...largeRule(0), keywords: ['bluebird'] } });
    expect(replaced.status, describeResponse(replaced)).toBe(200);
  });

  it("does not make an organisation with a few small rules wait behind another's large scan on the worker (second review: 7.5 s for 14 characters)", async () => {
    const large = await admin();
    for (const rule of Array.from({ length: 2 }, (_, index) => largeRule(index))) {
      expect((await harness.api('POST', '/organisation/sanitiser-rules', { key: large.key, body: rule })).status).toBe(200);
    }
    // Compiled first, so the scan below is one long task on the worker.
    expect((await harness.api('POST', '/sanitiser/scan', { key: large.key, body: { text: 'warm up' } })).status).toBe(200);
    const small = await admin();
    const rule = { rule_id: 'custom.small', label: 'Small', severity: 'warn', enabled: true, kind: 'keywords', keywords: ['bluebird'] };
    expect((await harness.api('POST', '/organisation/sanitiser-rules', { key: small.key, body: rule })).status).toBe(200);

    let largeScanAnswered = false;
    const largeScan = harness.api('POST', '/sanitiser/scan', { key: large.key, body: { text: wordSource(99)(200_000) } }).finally(() => {
      largeScanAnswered = true;
    });
    const smallScan = await harness.api<ScanResult>('POST', '/sanitiser/scan', { key: small.key, body: { text: 'the bluebird plan' } });
    expect(smallScan.body.data.findings.map((finding) => finding.rule_id)).toEqual(['custom.small']);
    expect(largeScanAnswered).toBe(false);
    expect((await largeScan).status).toBe(200);
  });
});
