/**
 * Vendor formats added from scanners' published rules and vendor documentation (issue 4). Every
 * value is generated here from the format's alphabet; prefixes are split so the source never
 * spells a token.
 */
import { describe, expect, it } from 'vitest';
import { BUILT_IN_RULES } from '../../../src/core/sanitiser/index.js';
import { ALPHANUMERIC, BASE64, fakeToken, findingsOf, HEX, matchesOf, randomText, summarise } from './fixtures.js';

const LOWER_ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyz0123456789';
const BASE64URL = `${ALPHANUMERIC}_-`;
const DJANGO_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)';
const DIGITS = '0123456789';

function uuid(seed: number): string {
  const hex = randomText(HEX, 32, seed);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** One generated token per added format, with the prefix and random part kept apart for near misses. */
const FORMATS: readonly { ruleId: string; prefix: readonly string[]; alphabet: string; length: number; suffix?: string }[] = [
  { ruleId: 'secret.tavily_api_key', prefix: ['tv', 'ly-'], alphabet: ALPHANUMERIC, length: 32 },
  { ruleId: 'secret.tavily_api_key', prefix: ['tv', 'ly-dev-'], alphabet: ALPHANUMERIC, length: 32 },
  { ruleId: 'secret.buildkite_token', prefix: ['bk', 'ua_'], alphabet: LOWER_ALPHANUMERIC, length: 40 },
  { ruleId: 'secret.supabase_token', prefix: ['sb', 'p_'], alphabet: LOWER_ALPHANUMERIC, length: 40 },
  { ruleId: 'secret.contentful_token', prefix: ['CF', 'PAT-'], alphabet: BASE64URL, length: 43 },
  { ruleId: 'secret.square_token', prefix: ['EA', 'AA'], alphabet: BASE64URL, length: 60 },
  { ruleId: 'secret.twitch_stream_key', prefix: ['li', 've_', randomText(DIGITS, 9, 3), '_'], alphabet: ALPHANUMERIC, length: 30 },
  { ruleId: 'secret.ubidots_token', prefix: ['BB', 'FF-'], alphabet: ALPHANUMERIC, length: 30 },
  { ruleId: 'secret.nightfall_api_key', prefix: ['N', 'F-'], alphabet: ALPHANUMERIC, length: 32 },
  { ruleId: 'secret.voiceflow_api_key', prefix: ['V', 'F.DM.', randomText(HEX, 24, 5), '.'], alphabet: ALPHANUMERIC, length: 16 },
  { ruleId: 'secret.elevenlabs_api_key', prefix: ['s', 'k_'], alphabet: HEX, length: 48 },
  { ruleId: 'secret.cratesio_api_token', prefix: ['ci', 'o'], alphabet: ALPHANUMERIC, length: 32 },
  { ruleId: 'secret.django_secret_key', prefix: ['django', '-insecure-'], alphabet: DJANGO_ALPHABET, length: 50 },
  { ruleId: 'secret.new_relic_key', prefix: ['NR', 'AA-'], alphabet: HEX, length: 27 },
  { ruleId: 'secret.new_relic_key', prefix: ['NR', 'RA-'], alphabet: HEX, length: 42 },
  { ruleId: 'secret.new_relic_key', prefix: ['NR', 'IQ-'], alphabet: BASE64URL, length: 32 },
  { ruleId: 'secret.new_relic_key', prefix: ['eu01xx'], alphabet: HEX, length: 30, suffix: ['NR', 'AL'].join('') },
];

const tokenOf = (format: (typeof FORMATS)[number], length = format.length, seed = 7): string =>
  fakeToken(format.prefix, format.alphabet, length, seed) + (format.suffix ?? '');

describe('vendor formats added from published rules', () => {
  it.each(FORMATS.map((format) => ({ ...format, token: tokenOf(format) })))('finds a $ruleId in code, exactly', ({ ruleId, token }) => {
    const text = `const value = "${token}";\nexport TOKEN=${token}\n`;
    const findings = findingsOf(text);
    expect(
      findings.filter((finding) => finding.rule_id === ruleId).map((finding) => finding.match),
      summarise(findings),
    ).toEqual([token, token]);
  });

  it.each(FORMATS.filter((format) => format.ruleId !== 'secret.twitch_stream_key'))(
    'does not report a $ruleId one character too short or too long',
    (format) => {
      const findings = findingsOf(`short ${tokenOf(format, format.length - 1)} and long ${tokenOf(format, format.length + 1)}`);
      expect(
        findings.filter((finding) => finding.rule_id === format.ruleId),
        summarise(findings),
      ).toEqual([]);
    },
  );

  it('does not report stand-ins typed by hand: a run of one character, or digits only', () => {
    const standIns = [
      fakeToken(['tv', 'ly-'], 'x', 32),
      fakeToken(['N', 'F-'], DIGITS, 32),
      `${['pu', 'b-c-'].join('')}${randomText(DIGITS, 8)}-${randomText(DIGITS, 4)}-${randomText(DIGITS, 4)}-${randomText(DIGITS, 4)}-${randomText(DIGITS, 12)}`,
      `${'a'.repeat(36)}${['NR', 'AL'].join('')}`,
      fakeToken(['bk', 'ua_'], 'a', 40),
      // A letter and a digit, then a run a generator would not produce.
      `${['bk', 'ua_'].join('')}a1${'x'.repeat(38)}`,
    ];
    const findings = findingsOf(`TAVILY_API_KEY = "${standIns[0] ?? ''}"\n${standIns.slice(1).join('\n')}`);
    expect(findings, summarise(findings)).toEqual([]);
  });

  it('does not report a prefix glued to a preceding letter or digit', () => {
    const findings = findingsOf(
      `x${fakeToken(['tv', 'ly-'], ALPHANUMERIC, 32)} 9${fakeToken(['ci', 'o'], ALPHANUMERIC, 32)} a${fakeToken(['BB', 'FF-'], ALPHANUMERIC, 30)}`,
    );
    expect(findings, summarise(findings)).toEqual([]);
  });

  it('reports PubNub keys, and only hex UUIDs, with a warning', () => {
    const publish = `${['pu', 'b-c-'].join('')}${uuid(11)}`;
    const subscribe = `${['su', 'b-c-'].join('')}${uuid(12)}`;
    const notHex = `${['su', 'b-c-'].join('')}${uuid(13).replace(/[a-f]/, 'g')}`;
    const findings = findingsOf(`${publish} ${subscribe} ${notHex}`);
    expect(
      findings.map((finding) => [finding.rule_id, finding.match, finding.severity]),
      summarise(findings),
    ).toEqual([
      ['secret.pubnub_key', publish, 'warn'],
      ['secret.pubnub_key', subscribe, 'warn'],
    ]);
  });

  it('keeps Stripe keys as Stripe keys next to the ElevenLabs sk_ format', () => {
    const stripe = fakeToken(['sk', '_live_'], ALPHANUMERIC, 24);
    expect(findingsOf(stripe).map((finding) => finding.rule_id)).toEqual(['secret.stripe_secret_key']);
  });

  it('does not report a Facebook-length EAAA token as Square, and still reports it when assigned', () => {
    const longToken = fakeToken(['EA', 'AA'], ALPHANUMERIC, 150);
    expect(matchesOf(longToken, 'secret.square_token')).toEqual([]);
    expect(matchesOf(`fb_access_token = "${longToken}"`, 'secret.generic_secret')).toEqual([longToken]);
  });

  it('leaves live_ values other than Twitch stream keys to the assignment rules', () => {
    const gocardlessLike = fakeToken(['li', 've_'], ALPHANUMERIC, 40);
    expect(matchesOf(`gocardless_access_token = "${gocardlessLike}"`, 'secret.generic_secret')).toEqual([gocardlessLike]);
  });

  it('does not report a Twitch stream key whose random part is shorter than 30 characters', () => {
    expect(findingsOf(fakeToken(['li', 've_', '126031192_'], ALPHANUMERIC, 25))).toEqual([]);
  });
});

describe('Okta API tokens', () => {
  const token = `00${randomText(BASE64URL, 39, 21)}${randomText(ALPHANUMERIC, 1, 22)}`;

  it('finds a token after the SSWS authorization scheme', () => {
    expect(matchesOf(`Authorization: ${['SS', 'WS'].join('')} ${token}`, 'secret.okta_api_token')).toEqual([token]);
  });

  it('finds a token within 40 characters after the word okta', () => {
    expect(matchesOf(`variable "corp_okta_api_token" {\n  default = "${token}"\n}\n`, 'secret.okta_api_token')).toEqual([token]);
  });

  it('does not report the bare shape without Okta context, or a hand-typed stand-in', () => {
    expect(matchesOf(`value = "${token}"`, 'secret.okta_api_token')).toEqual([]);
    expect(matchesOf(`okta_api_token = 00${'a'.repeat(40)}`, 'secret.okta_api_token')).toEqual([]);
    expect(matchesOf(`okta_api_token = 00b2${'a'.repeat(38)}`, 'secret.okta_api_token')).toEqual([]);
    expect(matchesOf(`okta ${'.'.repeat(60)} ${token}`, 'secret.okta_api_token')).toEqual([]);
  });
});

describe('passwords in tool syntax', () => {
  const password = `${randomText(ALPHANUMERIC, 10, 31)}!`;

  it('finds the password of a .netrc entry, on one line or several', () => {
    expect(matchesOf(`machine api.example.com login deploy password ${password}`, 'secret.password_assignment')).toEqual([password]);
    expect(matchesOf(`machine git.example.org\n  login ci-bot\n  password ${password}\n`, 'secret.password_assignment')).toEqual([password]);
  });

  it('does not read "machine" in prose as a .netrc entry', () => {
    expect(
      // The value is not right after "password": since issue 22 a password-looking value in the
      // same clause as the word "password" is reported as a password in prose.
      findingsOf(`The build machine needs a password rotation policy; its tag is ${password}.`).filter(
        (finding) => finding.rule_id === 'secret.password_assignment',
      ),
    ).toEqual([]);
  });

  it('finds the -p argument of a PsExec command, quoted or not', () => {
    expect(matchesOf(`PsExec.exe \\\\10.0.0.5 -u CORP\\svc -p ${password} cmd /c dir`, 'secret.password_assignment')).toEqual([password]);
    expect(matchesOf(`psexec \\\\host -u admin -p "${password}" ipconfig`, 'secret.password_assignment')).toEqual([password]);
  });

  it('does not report PsExec passwords that are variables or placeholders', () => {
    const text = [
      'psexec \\\\host -u User -p $Password -i calc.exe',
      'PsExec.exe \\\\host -u DOMAIN\\admin -p %secret_var% cmd',
      'psexec \\\\host -u ADMIN -p PASSWORD cmd',
    ].join('\n');
    expect(findingsOf(text).filter((finding) => finding.rule_id === 'secret.password_assignment')).toEqual([]);
  });

  it('finds the literal of ConvertTo-SecureString -AsPlainText, whatever the flag order', () => {
    expect(matchesOf(`$pw = ConvertTo-SecureString "${password}" -AsPlainText -Force`, 'secret.password_assignment')).toEqual([password]);
    expect(matchesOf(`$pw = ConvertTo-SecureString -AsPlainText -Force -String '${password}'`, 'secret.password_assignment')).toEqual([password]);
  });

  it('does not report ConvertTo-SecureString without -AsPlainText or with a variable', () => {
    expect(
      findingsOf(`ConvertTo-SecureString "${randomText(HEX, 64, 3)}" -Key $key`).filter((finding) => finding.rule_id === 'secret.password_assignment'),
    ).toEqual([]);
    expect(findingsOf('ConvertTo-SecureString "$plain" -AsPlainText -Force')).toEqual([]);
  });
});

describe('Vault unseal keys', () => {
  const share = randomText(BASE64, 44, 41);
  const single = `${randomText(BASE64, 43, 42)}=`;
  const hexShare = randomText(HEX, 66, 43);

  it('finds keys printed by vault operator init', () => {
    const text = `Unseal Key 1: ${share}\nUnseal Key 2: ${hexShare}\n`;
    expect(matchesOf(text, 'secret.hashicorp_vault_unseal_key')).toEqual([share, hexShare]);
  });

  it('finds the argument of vault operator unseal, after flags', () => {
    expect(matchesOf(`vault operator unseal -address=https://vault:8200 ${single}`, 'secret.hashicorp_vault_unseal_key')).toEqual([single]);
  });

  it('finds the keys of the JSON output', () => {
    const text = `{"unseal_keys_b64": ["${share}", "${single}"], "root_token": "x"}`;
    expect(matchesOf(text, 'secret.hashicorp_vault_unseal_key')).toEqual([share, single]);
  });

  it('does not report a stand-in, a key of the wrong length, or "unseal" in prose', () => {
    const text = [
      `Unseal Key 1: ${'A'.repeat(44)}`,
      `Unseal Key 3: Q1${'A'.repeat(42)}`,
      `Unseal Key 2: ${randomText(BASE64, 40, 44)}`,
      `Remember to unseal ${share.slice(0, 20)} later.`,
    ].join('\n');
    expect(matchesOf(text, 'secret.hashicorp_vault_unseal_key')).toEqual([]);
  });
});

describe('rule table', () => {
  it('declares every added rule with a label', () => {
    const added = [
      'secret.tavily_api_key',
      'secret.buildkite_token',
      'secret.supabase_token',
      'secret.contentful_token',
      'secret.twitch_stream_key',
      'secret.pubnub_key',
      'secret.ubidots_token',
      'secret.nightfall_api_key',
      'secret.voiceflow_api_key',
      'secret.elevenlabs_api_key',
      'secret.cratesio_api_token',
      'secret.django_secret_key',
      'secret.okta_api_token',
      'secret.hashicorp_vault_unseal_key',
      ...GITLEAKS_FORMATS.map((format) => format.ruleId),
      'secret.onepassword_secret_key',
      'secret.authress_access_key',
      'secret.plaid_access_token',
      'secret.sidekiq_secret',
      'secret.gitlab_session_cookie',
      'secret.facebook_access_token',
      'secret.yandex_api_key',
    ];
    const known = new Map(BUILT_IN_RULES.map((rule) => [rule.rule_id, rule]));
    expect(added.filter((ruleId) => (known.get(ruleId)?.label ?? '') === '')).toEqual([]);
  });
});

const UPPER_ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const FLUTTERWAVE_ALPHABET = 'abcdefgh0123456789';

/**
 * Formats of gitleaks' default rules (bench/gitleaks-parity.md) with an exact length: one generated
 * token each, found in code, and not found one character shorter or longer.
 */
const GITLEAKS_FORMATS: readonly { ruleId: string; prefix: readonly string[]; alphabet: string; length: number; suffix?: string }[] = [
  { ruleId: 'secret.github_token', prefix: ['gh', 'r_'], alphabet: ALPHANUMERIC, length: 76 },
  { ruleId: 'secret.adobe_client_secret', prefix: ['p8', 'e-'], alphabet: ALPHANUMERIC, length: 32 },
  { ruleId: 'secret.jfrog_token', prefix: ['AK', 'Cp'], alphabet: ALPHANUMERIC, length: 69 },
  { ruleId: 'secret.jfrog_token', prefix: ['cmV', 'md'], alphabet: ALPHANUMERIC, length: 59 },
  { ruleId: 'secret.clickhouse_api_secret', prefix: ['4b', '1d'], alphabet: ALPHANUMERIC, length: 38 },
  { ruleId: 'secret.clojars_token', prefix: ['CLOJ', 'ARS_'], alphabet: ALPHANUMERIC, length: 60 },
  { ruleId: 'secret.cloudflare_origin_ca_key', prefix: ['v1', '.0-', randomText(HEX, 24, 51), '-'], alphabet: HEX, length: 146 },
  { ruleId: 'secret.defined_networking_token', prefix: ['dn', 'key-', randomText(ALPHANUMERIC, 26, 52), '-'], alphabet: ALPHANUMERIC, length: 52 },
  { ruleId: 'secret.duffel_token', prefix: ['duf', 'fel_test_'], alphabet: BASE64URL, length: 43 },
  { ruleId: 'secret.flutterwave_key', prefix: ['FLW', 'SECK_TEST-'], alphabet: FLUTTERWAVE_ALPHABET, length: 12 },
  { ruleId: 'secret.flutterwave_public_key', prefix: ['FLW', 'PUBK_TEST-'], alphabet: FLUTTERWAVE_ALPHABET, length: 32, suffix: '-X' },
  { ruleId: 'secret.flyio_token', prefix: ['fo', '1_'], alphabet: BASE64URL, length: 43 },
  {
    ruleId: 'secret.harness_token',
    prefix: ['pa', 't.', randomText(BASE64URL, 22, 53), '.', randomText(ALPHANUMERIC, 24, 54), '.'],
    alphabet: ALPHANUMERIC,
    length: 20,
  },
  { ruleId: 'secret.heroku_api_key', prefix: ['HRKU', '-AA'], alphabet: BASE64URL, length: 58 },
  { ruleId: 'secret.infracost_token', prefix: ['ic', 'o-'], alphabet: ALPHANUMERIC, length: 32 },
  { ruleId: 'secret.intra42_client_secret', prefix: ['s-s4t2', 'ud-'], alphabet: HEX, length: 64 },
  { ruleId: 'secret.octopus_deploy_api_key', prefix: ['AP', 'I-'], alphabet: UPPER_ALPHANUMERIC, length: 26 },
  { ruleId: 'secret.openshift_token', prefix: ['sha256', '~'], alphabet: BASE64URL, length: 43 },
  { ruleId: 'secret.perplexity_api_key', prefix: ['pp', 'lx-'], alphabet: ALPHANUMERIC, length: 48 },
  { ruleId: 'secret.scalingo_token', prefix: ['tk', '-us-'], alphabet: BASE64URL, length: 48 },
  { ruleId: 'secret.settlemint_token', prefix: ['sm', '_pat_'], alphabet: ALPHANUMERIC, length: 16 },
  { ruleId: 'secret.yandex_iam_token', prefix: ['t', '1.', randomText(BASE64URL, 40, 55), '.'], alphabet: BASE64URL, length: 86 },
  { ruleId: 'secret.mailgun_public_key', prefix: ['pub', 'key-'], alphabet: HEX, length: 32 },
];

/** Formats with a range of lengths, or extensions of an existing rule: found in code, exactly. */
const GITLEAKS_RANGED_FORMATS: readonly { ruleId: string; prefix: readonly string[]; alphabet: string; length: number }[] = [
  { ruleId: 'secret.gitlab_token', prefix: ['gl', 'ft-'], alphabet: BASE64URL, length: 20 },
  { ruleId: 'secret.stripe_secret_key', prefix: ['sk', '_prod_'], alphabet: ALPHANUMERIC, length: 24 },
  { ruleId: 'secret.stripe_secret_key', prefix: ['rk', '_prod_'], alphabet: ALPHANUMERIC, length: 30 },
  { ruleId: 'secret.doppler_token', prefix: ['dp', '.st.prd.'], alphabet: ALPHANUMERIC, length: 43 },
  { ruleId: 'secret.facebook_access_token', prefix: ['EA', 'AM'], alphabet: ALPHANUMERIC, length: 140 },
  { ruleId: 'secret.flyio_token', prefix: ['fm', '2_'], alphabet: BASE64, length: 120 },
  { ruleId: 'secret.yandex_api_key', prefix: ['AQ', 'VN'], alphabet: BASE64URL, length: 36 },
];

describe("formats of gitleaks' default rules", () => {
  it.each([...GITLEAKS_FORMATS, ...GITLEAKS_RANGED_FORMATS].map((format) => ({ ...format, token: tokenOf(format) })))(
    'finds a $ruleId in code, exactly',
    ({ ruleId, token }) => {
      const text = `const value = "${token}";\nexport TOKEN=${token}\n`;
      const findings = findingsOf(text);
      expect(
        findings.filter((finding) => finding.rule_id === ruleId).map((finding) => finding.match),
        summarise(findings),
      ).toEqual([token, token]);
    },
  );

  it.each(GITLEAKS_FORMATS)('does not report a $ruleId one character too short or too long', (format) => {
    const findings = findingsOf(`short ${tokenOf(format, format.length - 1)} and long ${tokenOf(format, format.length + 1)}`);
    expect(
      findings.filter((finding) => finding.rule_id === format.ruleId),
      summarise(findings),
    ).toEqual([]);
  });

  it('does not report hand-typed stand-ins: one repeated character, or no letter where keys have one', () => {
    const standIns = [
      fakeToken(['pp', 'lx-'], 'x', 48),
      fakeToken(['HRKU', '-AA'], 'a', 58),
      `${['AP', 'I-'].join('')}GATEWAYINTEGRATIONSETTINGS`,
      fakeToken(['sm', '_pat_'], DIGITS, 16),
      fakeToken(['ic', 'o-'], 'abc', 32),
    ];
    const findings = findingsOf(standIns.join('\n'));
    expect(findings, summarise(findings)).toEqual([]);
  });

  it('does not read version strings, instance types or hex digests as tokens', () => {
    const text = [
      'Upgrade to v1.0-beta before the t1.micro instances are retired.',
      `checksum ${['4b', '1d'].join('')}${randomText(HEX, 38, 61)}`,
      `sha256 ${randomText(HEX, 64, 62)}`,
    ].join('\n');
    const findings = findingsOf(text);
    expect(
      findings.filter((finding) => finding.rule_id.startsWith('secret.')),
      summarise(findings),
    ).toEqual([]);
  });

  it('finds 1Password Secret Keys in both group layouts, upper case only', () => {
    const groups = (seed: number, sizes: readonly number[]): string => sizes.map((size, index) => randomText(UPPER_ALPHANUMERIC, size, seed + index)).join('-');
    const prefix = ['A', '3-'].join('');
    const elevenLayout = `${prefix}${groups(71, [6, 11, 5, 5, 5])}`;
    const sixFiveLayout = `${prefix}${groups(81, [6, 6, 5, 5, 5, 5])}`;
    const lowerCase = `${prefix}${groups(91, [6, 11, 5, 5, 5]).toLowerCase()}`;
    const findings = findingsOf(`${elevenLayout}\n${sixFiveLayout}\n${lowerCase}`);
    expect(
      findings.map((finding) => [finding.rule_id, finding.match]),
      summarise(findings),
    ).toEqual([
      ['secret.onepassword_secret_key', elevenLayout],
      ['secret.onepassword_secret_key', sixFiveLayout],
    ]);
  });

  it('finds Authress access keys by their ".acc_" account segment', () => {
    const key = `${['sc', '_'].join('')}${randomText(ALPHANUMERIC, 12, 101)}.${randomText(ALPHANUMERIC, 5, 102)}.acc_${randomText(LOWER_ALPHANUMERIC, 16, 103)}.${randomText(BASE64, 60, 104)}`;
    expect(matchesOf(`AUTHRESS_KEY=${key}\n`, 'secret.authress_access_key')).toEqual([key]);
    expect(matchesOf(`${key.replace('.acc_', '.abc_')}\n`, 'secret.authress_access_key')).toEqual([]);
  });

  it('finds Authress keys with the scauth_ and authress_ prefixes, and not glued to a word', () => {
    const body = `${randomText(ALPHANUMERIC, 12, 105)}.${randomText(ALPHANUMERIC, 5, 106)}.acc-${randomText(LOWER_ALPHANUMERIC, 16, 107)}.${randomText(BASE64, 60, 108)}`;
    const scauth = `${['sca', 'uth_'].join('')}${body}`;
    const authress = `${['auth', 'ress_'].join('')}${body}`;
    expect(matchesOf(`a = "${scauth}"\nb = "${authress}"\nc = "x${scauth}"\n`, 'secret.authress_access_key')).toEqual([scauth, authress]);
  });

  it('finds Plaid access tokens with a hex UUID only', () => {
    const token = `${['access', '-sandbox-'].join('')}${uuid(111)}`;
    const notHex = `${['access', '-production-'].join('')}${uuid(112).replace(/[a-f]/, 'g')}`;
    expect(matchesOf(`${token} ${notHex}`, 'secret.plaid_access_token')).toEqual([token]);
  });

  it('reports the value of a Sidekiq credential variable, not its name', () => {
    const value = `${randomText(HEX, 8, 121)}:${randomText(HEX, 8, 122)}`;
    const name = ['BUNDLE_GEMS', '__CONTRIBSYS__COM'].join('');
    expect(matchesOf(`export ${name}=${value}\n`, 'secret.sidekiq_secret')).toEqual([value]);
    expect(matchesOf(`${name}: "${value}"\n`, 'secret.sidekiq_secret')).toEqual([value]);
    expect(matchesOf(`${name}=xxxxxxxx:xxxxxxxx\n`, 'secret.sidekiq_secret')).toEqual([]);
  });

  it('reports the value of a GitLab session cookie, not the cookie name', () => {
    const value = randomText(LOWER_ALPHANUMERIC, 32, 131);
    expect(matchesOf(`Cookie: ${['_gitlab', '_session='].join('')}${value}; path=/`, 'secret.gitlab_session_cookie')).toEqual([value]);
  });

  it('reports a base64-encoded JWT as a JWT, and base64 of other text not at all', () => {
    const base64url = (json: string): string => Buffer.from(json).toString('base64url');
    const jwt = `${base64url('{"alg":"HS256","typ":"JWT"}')}.${base64url(`{"sub":"${randomText(ALPHANUMERIC, 12, 141)}","iat":1700000000}`)}.${randomText(BASE64URL, 43, 142)}`;
    const encoded = Buffer.from(jwt).toString('base64');
    expect(matchesOf(`data:\n  token: ${encoded}\n`, 'secret.jwt')).toEqual([encoded]);
    const notJwt = Buffer.from(`eyJ${'not a token, only a sentence that happens to start so'}`).toString('base64');
    expect(findingsOf(`data:\n  note: ${notJwt}\n`).filter((finding) => finding.rule_id === 'secret.jwt')).toEqual([]);
  });

  it('does not report a Facebook-prefixed token shorter than 100 characters, or a Yandex key outside 35-38', () => {
    const findings = findingsOf(
      `${fakeToken(['EA', 'AC'], ALPHANUMERIC, 99)} ${fakeToken(['AQ', 'VN'], BASE64URL, 34)} ${fakeToken(['AQ', 'VN'], BASE64URL, 39)}`,
    );
    expect(
      findings.filter((finding) => finding.rule_id === 'secret.facebook_access_token' || finding.rule_id === 'secret.yandex_api_key'),
      summarise(findings),
    ).toEqual([]);
  });

  it('keeps a Doppler service token whole, with or without its config name', () => {
    const withConfig = fakeToken(['dp', '.st.dev_personal.'], ALPHANUMERIC, 43, 151);
    const plain = fakeToken(['dp', '.st.'], ALPHANUMERIC, 43, 152);
    expect(matchesOf(`${withConfig} ${plain}`, 'secret.doppler_token')).toEqual([withConfig, plain]);
  });
});
