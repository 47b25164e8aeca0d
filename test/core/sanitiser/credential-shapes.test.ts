/**
 * Vendor formats and generic credential shapes added after the corpus review: Mapbox public
 * tokens, Salesforce access tokens, TrueNAS API keys, SonarQube's unprefixed tokens under its
 * documented property names, secrets passed as a pair of string literals, whole HTTP headers
 * inside one string, and `curl -u user:password`. Tokens are assembled at run time.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALPHANUMERIC, BASE64, findingsOf, HEX, matchesOf, randomText, summarise } from './fixtures.js';

const URL_SAFE = `${ALPHANUMERIC}-_`;
const secrets = (text: string) => findingsOf(text).filter((finding) => finding.rule_id.startsWith('secret.'));

/** base64url without padding, as Mapbox and JWTs encode their JSON parts. */
const base64Url = (text: string): string => Buffer.from(text).toString('base64url');

describe('Mapbox public tokens (secret.mapbox_public_token)', () => {
  const payload = base64Url(`{"u":"${randomText('abcdefghijklmnopqrstuvwxyz', 8)}","a":"${randomText(ALPHANUMERIC, 25)}"}`);
  const token = `${['p', 'k.'].join('')}${payload}.${randomText(URL_SAFE, 22)}`;

  it('finds a pk. token whose payload is the {"u": ...} account JSON, as a warning', () => {
    const findings = findingsOf(`mapboxgl.accessToken = '${token}';`, 'secret.mapbox_public_token');
    expect(findings.map((finding) => finding.match)).toEqual([token]);
    expect(findings[0]?.severity).toBe('warn');
  });

  it('does not report pk. strings with another payload or no signature part', () => {
    const otherPayload = `${['p', 'k.'].join('')}${base64Url('{"v":"1","a":"b"}')}.${randomText(URL_SAFE, 22)}`;
    const unsigned = `${['p', 'k.'].join('')}${payload}`;
    expect(findingsOf(`${otherPayload}\n${unsigned}`, 'secret.mapbox_public_token')).toEqual([]);
  });
});

describe('Salesforce access tokens (secret.salesforce_access_token)', () => {
  const orgId = `${['00', 'D'].join('')}${randomText(ALPHANUMERIC, 12)}`;
  const token = `${orgId}!${randomText(`${ALPHANUMERIC}._`, 96)}`;

  it('finds an org id, "!" and the session secret', () => {
    expect(matchesOf(`Access Token      ${token}\n`, 'secret.salesforce_access_token')).toEqual([token]);
  });

  it('does not report a bare org id, a short secret or a documentation EXAMPLE token', () => {
    const short = `${orgId}!${randomText(ALPHANUMERIC, 40)}`;
    const example = `${orgId}!${randomText(ALPHANUMERIC, 40)}EXAMPLE${randomText(ALPHANUMERIC, 49)}`;
    expect(findingsOf(`Id ${orgId}\n${short}\n${example}`, 'secret.salesforce_access_token')).toEqual([]);
  });
});

describe('TrueNAS API keys (secret.truenas_api_key)', () => {
  const key = `12-${randomText(ALPHANUMERIC, 64, 5)}`;

  it('finds the key id, "-" and 64 base62 characters in a JSON-RPC login', () => {
    const text = `{"msg":"method","method":"auth.login_with_api_key","params":["${key}"]}`;
    expect(matchesOf(text, 'secret.truenas_api_key'), summarise(findingsOf(text))).toEqual([key]);
  });

  it('does not report hex digests, single-case runs or longer values after a number', () => {
    const digest = `1-${randomText(HEX, 64)}`;
    const lower = `3-${randomText('abcdefghijklmnopqrstuvwxyz0123456789', 64)}`;
    const longer = `4-${randomText(ALPHANUMERIC, 65)}`;
    expect(findingsOf(`${digest} ${lower} ${longer}`, 'secret.truenas_api_key')).toEqual([]);
  });

  it('finds exactly what the format regex finds, in text made of its boundary characters', () => {
    // The reference: the format as one regex (the detector searches from each "-" instead).
    const reference = /(?<![A-Za-z0-9._-])\d{1,6}-[A-Za-z0-9]{64}(?![A-Za-z0-9_-])/g;
    const hasAllClasses = (token: string) => /[a-z]/.test(token) && /[A-Z]/.test(token) && /\d/.test(token.slice(token.indexOf('-') + 1));
    const piece = fc.oneof(
      fc.constantFrom('-', '.', '_', ' ', '7', '12-', '123456-', '1234567-', 'a', 'Z', 'x-', '😀'),
      fc.constant(randomText(ALPHANUMERIC, 64, 8)),
      fc.constant(randomText(ALPHANUMERIC, 63, 9)),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        const expected = [...text.matchAll(reference)].map((match) => match[0]).filter(hasAllClasses);
        expect(matchesOf(text, 'secret.truenas_api_key')).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe('SonarQube tokens under sonar.login / sonar.token (secret.sonarqube_token)', () => {
  const legacy = randomText(HEX, 40, 3);

  it('finds 40-hex-digit tokens under the scanner property names', () => {
    const text = `mvn sonar:sonar -Dsonar.login=${legacy}\n$sonarLogin = "${legacy}"\nSONAR_TOKEN=${legacy}`;
    expect(matchesOf(text, 'secret.sonarqube_token'), summarise(findingsOf(text))).toEqual([legacy, legacy, legacy]);
  });

  it('does not report variables, host URLs or user names under sonar properties', () => {
    const text = '/d:sonar.login=$(SONAR_LOGIN) /d:sonar.host.url=https://sonar.example.org\nsonar.login=admin';
    expect(secrets(text), summarise(secrets(text))).toEqual([]);
  });
});

describe('secrets passed as a pair of string literals', () => {
  const value = randomText(ALPHANUMERIC, 32, 9);

  it('finds the value after a quoted secret name and a comma', () => {
    const text = [`buildConfigField 'String', 'API_KEY', '"${value}"'`, `config.set("client_secret", "${value}")`, `("DB_PASSWORD", '${value}')`].join('\n');
    expect(
      secrets(text).map((finding) => finding.match),
      summarise(secrets(text)),
    ).toEqual([value, value, value]);
  });

  it('does not report lists of field names or placeholder defaults', () => {
    const text = [
      "fields = ['username', 'password', 'remember_me']",
      "required = ('api_key', 'client_secret')",
      "os.getenv('API_TOKEN', 'your-token-here')",
      "headers.get('X-Api-Key', '')",
    ].join('\n');
    expect(secrets(text), summarise(secrets(text))).toEqual([]);
  });
});

describe('a whole HTTP header in one string', () => {
  const value = randomText(BASE64.replace('+/', ''), 40, 13);

  it("finds the value of a hyphenated secret header in curl's -H argument and in code", () => {
    const text = `curl -H 'X-Api-Key: ${value}' https://api.example.org\nrequest.add_header("Private-Token: ${value}")`;
    expect(
      secrets(text).map((finding) => finding.match),
      summarise(secrets(text)),
    ).toEqual([value, value]);
  });

  it('does not report templates, placeholders or prose with a colon inside a string', () => {
    const text = `curl -H 'X-Api-Key: $API_KEY' -H "X-Auth-Token: <token>"\nprint("Password: " + entered)`;
    expect(secrets(text), summarise(secrets(text))).toEqual([]);
  });
});

describe('command-line basic auth (curl -u user:password)', () => {
  const password = `${randomText(ALPHANUMERIC, 14, 21)}!`;

  it('finds the password after -u, --user and --user=', () => {
    const text = `curl -u admin:${password} https://x.example\ncurl --user 'deploy:${password}' https://y.example\nhttp --user=ci:${password} POST z`;
    expect(matchesOf(text, 'secret.password_assignment'), summarise(findingsOf(text))).toEqual([password, password, password]);
  });

  it('finds the flag at the start of a continued line', () => {
    const text = `curl -X POST https://auth.example.org/oauth2/token \\\n  -u client_${randomText(ALPHANUMERIC, 8, 3)}:${password}\r\n--user ci:${password}`;
    expect(matchesOf(text, 'secret.password_assignment'), summarise(findingsOf(text))).toEqual([password, password]);
  });

  it('does not report uid:gid, refspecs, variables, placeholders or a user name repeated', () => {
    const text = [
      'docker run -u 1000:1000 image',
      'git push -u origin main:main',
      'curl -u $USER:$TOKEN https://x.example',
      'curl -u "api:${API_KEY}" https://x.example',
      'curl -u user:password https://x.example',
      'curl -u guestuser:guestuser https://x.example',
      'menu-u admin:S3cr3tValue9',
    ].join('\n');
    expect(secrets(text), summarise(secrets(text))).toEqual([]);
  });
});

describe('credential constructors without a password-named argument', () => {
  const password = `${randomText(ALPHANUMERIC, 10, 31)}#`;

  it("finds DirectoryEntry's third argument, with or without its namespace", () => {
    const text = `new DirectoryEntry("LDAP://dc.corp.example", "svc_ldap", "${password}");\nNew-Object DirectoryServices.DirectoryEntry("LDAP://dc", "corp\\\\svc",\n  "${password}")`;
    expect(matchesOf(text, 'secret.password_assignment'), summarise(findingsOf(text))).toEqual([password, password]);
  });

  it('does not report a DirectoryEntry with only a path, or with variables for the credentials', () => {
    const text =
      'new DirectoryEntry("LDAP://dc.corp.example");\nnew DirectoryEntry("LDAP://dc", user, pass);\nnew DirectoryEntry("LDAP://dc", "svc", "${LDAP_PASSWORD}")';
    expect(secrets(text), summarise(secrets(text))).toEqual([]);
  });
});
