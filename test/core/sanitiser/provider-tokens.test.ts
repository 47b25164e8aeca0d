import { describe, expect, it } from 'vitest';
import { BUILT_IN_RULES } from '../../../src/core/sanitiser/index.js';
import { TOKEN_FORMATS } from '../../../src/core/sanitiser/detectors/provider-tokens.js';
import { ALPHANUMERIC, fakeToken, findingsOf, HEX, matchesOf, randomText, summarise } from './fixtures.js';

const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** One real-format token per vendor; prefixes are split so the source never spells a token. */
const POSITIVES: readonly { ruleId: string; token: string }[] = [
  { ruleId: 'secret.aws_access_key_id', token: fakeToken(['AK', 'IA'], UPPER_DIGITS, 16) },
  { ruleId: 'secret.github_token', token: fakeToken(['gh', 'p_'], ALPHANUMERIC, 36) },
  { ruleId: 'secret.github_token', token: fakeToken(['github', '_pat_'], `${ALPHANUMERIC}_`, 82) },
  { ruleId: 'secret.gitlab_token', token: fakeToken(['glp', 'at-'], ALPHANUMERIC, 20) },
  {
    ruleId: 'secret.slack_token',
    token: `${['xo', 'xb-'].join('')}${randomText('0123456789', 11)}-${randomText('0123456789', 13)}-${randomText(ALPHANUMERIC, 24)}`,
  },
  { ruleId: 'secret.stripe_secret_key', token: fakeToken(['sk', '_live_'], ALPHANUMERIC, 24) },
  {
    ruleId: 'secret.openai_api_key',
    token: `${['sk', '-proj-'].join('')}${randomText(ALPHANUMERIC, 20)}${['T3Blbk', 'FJ'].join('')}${randomText(ALPHANUMERIC, 20)}`,
  },
  { ruleId: 'secret.anthropic_api_key', token: fakeToken(['sk', '-ant-api03-'], `${ALPHANUMERIC}-_`, 93) },
  { ruleId: 'secret.google_api_key', token: fakeToken(['AI', 'za'], `${ALPHANUMERIC}-_`, 35) },
  { ruleId: 'secret.sendgrid_api_key', token: `${['S', 'G.'].join('')}${randomText(ALPHANUMERIC, 22)}.${randomText(ALPHANUMERIC, 43)}` },
  { ruleId: 'secret.twilio_api_key', token: `${['S', 'K'].join('')}${randomText(HEX, 32)}` },
  { ruleId: 'secret.npm_token', token: fakeToken(['np', 'm_'], ALPHANUMERIC, 36) },
  { ruleId: 'secret.pypi_token', token: fakeToken(['pypi-Ag', 'EIcHlwaS5vcmc'], `${ALPHANUMERIC}-_`, 60) },
  { ruleId: 'secret.huggingface_token', token: fakeToken(['h', 'f_'], LETTERS, 34) },
  { ruleId: 'secret.databricks_token', token: fakeToken(['da', 'pi'], HEX, 32) },
  { ruleId: 'secret.shopify_token', token: fakeToken(['shp', 'at_'], HEX, 32) },
  { ruleId: 'secret.groq_api_key', token: fakeToken(['gs', 'k_'], ALPHANUMERIC, 52) },
  { ruleId: 'secret.hashicorp_vault_token', token: fakeToken(['hv', 's.'], `${ALPHANUMERIC}-_`, 91) },
  { ruleId: 'secret.linear_api_key', token: fakeToken(['lin', '_api_'], ALPHANUMERIC, 40) },
  { ruleId: 'secret.notion_token', token: `${['nt', 'n_'].join('')}${randomText('0123456789', 11)}${randomText(ALPHANUMERIC, 35)}` },
  { ruleId: 'secret.digitalocean_token', token: fakeToken(['do', 'p_v1_'], HEX, 64) },
  { ruleId: 'secret.telegram_bot_token', token: `${randomText('0123456789', 10)}:${['A', 'A'].join('')}${randomText(`${ALPHANUMERIC}_-`, 33)}` },
  { ruleId: 'secret.azure_client_secret', token: `${randomText(ALPHANUMERIC, 3)}8${['Q', '~'].join('')}${randomText(`${ALPHANUMERIC}_.-`, 34)}` },
  { ruleId: 'secret.age_secret_key', token: fakeToken(['AGE-SECRET', '-KEY-1'], 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', 58) },
  { ruleId: 'secret.tailscale_key', token: `${['tskey', '-api-'].join('')}${randomText(ALPHANUMERIC, 12)}-${randomText(ALPHANUMERIC, 24)}` },
];

describe('provider token rules', () => {
  it.each(POSITIVES)('finds a $ruleId in code', ({ ruleId, token }) => {
    const text = `const value = "${token}";\nexport TOKEN=${token}\n`;
    const findings = findingsOf(text);
    expect(
      findings.filter((finding) => finding.rule_id === ruleId).map((finding) => finding.match),
      summarise(findings),
    ).toEqual([token, token]);
  });

  it('blocks provider tokens by default', () => {
    const token = POSITIVES[1]?.token ?? '';
    expect(findingsOf(token)[0]?.severity).toBe('block');
  });

  it('does not report a token glued to a preceding letter', () => {
    const stripe = fakeToken(['sk', '_live_'], ALPHANUMERIC, 24);
    const groq = fakeToken(['gs', 'k_'], ALPHANUMERIC, 52);
    expect(findingsOf(`x${stripe} word${groq}`)).toEqual([]);
  });

  it('does not report tokens one character too short or too long for their format', () => {
    const shortStripe = fakeToken(['sk', '_live_'], ALPHANUMERIC, 9);
    const longGroq = fakeToken(['gs', 'k_'], ALPHANUMERIC, 56);
    const shortGithub = fakeToken(['gh', 'p_'], ALPHANUMERIC, 35);
    expect(findingsOf(`${shortStripe} ${longGroq} ${shortGithub}`)).toEqual([]);
  });

  it('finds a Stripe key cut short when its body looks generated, but not a typed stand-in', () => {
    const cutShort = `${['sk', '_live_'].join('')}Q8vLr2xTm4Kz`;
    const standIns = [
      `${['sk', '_test_'].join('')}xxxxxxxxxxxx`,
      `${['sk', '_live_'].join('')}1234567890`,
      `${['rk', '_test_'].join('')}abcdefghijkl`,
      `${['sk', '_test_'].join('')}example123`,
      `${['sk', '_live_'].join('')}YourKey123`,
      `${['sk', '_test_'].join('')}replace0me`,
    ];
    expect(matchesOf(`key: ${cutShort}`, 'secret.stripe_secret_key')).toEqual([cutShort]);
    expect(findingsOf(standIns.join('\n'))).toEqual([]);
  });

  it('does not report publishable keys or look-alike prefixes', () => {
    const publishable = fakeToken(['pk', '_live_'], ALPHANUMERIC, 24);
    const wrongPrefix = fakeToken(['gX', 'X_'], ALPHANUMERIC, 36);
    const openAiLookAlike = fakeToken(['sk', '-'], ALPHANUMERIC, 48);
    expect(findingsOf(`${publishable} ${wrongPrefix} ${openAiLookAlike}`)).toEqual([]);
  });

  it('does not report a Vault token shorter than real ones, inside an assignment either', () => {
    expect(findingsOf(`apikey: ${fakeToken(['hv', 's.'], ALPHANUMERIC, 37)}`)).toEqual([]);
  });

  it('finds an API key inside a generic assignment as the provider key, once', () => {
    const token = fakeToken(['gh', 'p_'], ALPHANUMERIC, 36);
    const findings = findingsOf(`api_key = "${token}"`);
    expect(
      findings.map((finding) => finding.rule_id),
      summarise(findings),
    ).toEqual(['secret.github_token']);
  });

  it('finds the token even when a keyword of another rule shares its first characters', () => {
    // "sk-" (OpenAI) and "sk-ant-" (Anthropic) share a prefix, as do "key" and "key-" (Mailgun).
    const anthropic = fakeToken(['sk', '-ant-api03-'], ALPHANUMERIC, 93);
    const mailgun = fakeToken(['ke', 'y-'], HEX, 32);
    expect(matchesOf(`${anthropic} and ${mailgun}`, 'secret.anthropic_api_key')).toEqual([anthropic]);
    expect(matchesOf(`${anthropic} and ${mailgun}`, 'secret.mailgun_api_key')).toEqual([mailgun]);
  });

  it('declares every token format rule in the built-in rule table', () => {
    const known = new Set(BUILT_IN_RULES.map((rule) => rule.rule_id));
    expect(TOKEN_FORMATS.filter((tokenFormat) => !known.has(tokenFormat.ruleId)).map((tokenFormat) => tokenFormat.ruleId)).toEqual([]);
  });
});
