import { describe, expect, it } from 'vitest';
import { BASE64, fakeToken, findingsOf, HEX, matchesOf, pemBlock, randomText } from './fixtures.js';

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('private key rule (secret.private_key)', () => {
  it('finds PEM private key blocks of every kind, whole', () => {
    for (const kind of ['RSA PRIVATE KEY', 'PRIVATE KEY', 'EC PRIVATE KEY', 'OPENSSH PRIVATE KEY', 'ENCRYPTED PRIVATE KEY', 'PGP PRIVATE KEY BLOCK']) {
      const block = pemBlock(kind);
      expect(matchesOf(`key:\n${block}\ndone`, 'secret.private_key'), kind).toEqual([block]);
    }
  });

  it('finds a block embedded in JSON with escaped newlines', () => {
    const block = pemBlock('PRIVATE KEY').replace(/\n/g, '\\n');
    const text = `{"type": "service_account", "private_key": "${block}\\n"}`;
    expect(matchesOf(text, 'secret.private_key')).toEqual([block]);
  });

  it('finds a base64-encoded PEM private key', () => {
    const encoded = Buffer.from(pemBlock('RSA PRIVATE KEY')).toString('base64');
    expect(matchesOf(`PRIVATE_KEY_B64=${encoded}`, 'secret.private_key')).toEqual([encoded]);
  });

  it('starts a block at the header its footer closes, not at an earlier header left open', () => {
    const block = pemBlock('RSA PRIVATE KEY');
    const truncated = `${'-'.repeat(5)}BEGIN PRIVATE KEY${'-'.repeat(5)}\n...`;
    expect(matchesOf(`${truncated}\n${block}\n`, 'secret.private_key')).toEqual([block]);
  });

  it('finds a truncated block (no footer) and keeps finding complete blocks after it', () => {
    const block = pemBlock('PRIVATE KEY');
    const cut = block.slice(0, block.indexOf('-----END'));
    const second = pemBlock('EC PRIVATE KEY');
    expect(matchesOf(`${cut}\n\n${second}`, 'secret.private_key')).toEqual([cut.trimEnd(), second]);
  });

  it('keeps the header lines of a truncated encrypted key in its body', () => {
    const body = pemBlock('RSA PRIVATE KEY').split('\n').slice(1, -1).join('\n');
    const truncated = `${'-'.repeat(5)}BEGIN RSA PRIVATE KEY${'-'.repeat(5)}\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,${HEX.toUpperCase()}${HEX.toUpperCase()}\n\n${body}`;
    const second = pemBlock('EC PRIVATE KEY');
    expect(matchesOf(`${truncated}\n${second}`, 'secret.private_key')).toEqual([truncated, second]);
    const escaped = truncated.replace(/\n/g, '\\n');
    const [inJson] = matchesOf(`"key": "${escaped}\\n"}`, 'secret.private_key');
    expect(inJson?.startsWith(escaped)).toBe(true);
  });

  it('does not report documentation placeholders or public material', () => {
    const dashes = '-'.repeat(5);
    const placeholders = ['...', '***', 'xxx', 'YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXo='].map(
      (body) => `${dashes}BEGIN PRIVATE KEY${dashes}\n${body}\n${dashes}END PRIVATE KEY${dashes}`,
    );
    expect(findingsOf(`${placeholders.join('\n')}\n${pemBlock('PUBLIC KEY')}\n${pemBlock('CERTIFICATE')}`)).toEqual([]);
  });
});

describe('PuTTY key files (secret.private_key)', () => {
  function ppk(privateLines: readonly string[], version = 3): string {
    return [
      `PuTTY-User-Key-File-${version}: ssh-ed25519`,
      'Encryption: none',
      'Comment: ed25519-key-20261129',
      'Public-Lines: 2',
      `AAAAC3NzaC1lZDI1NTE5AAAAI${randomText(BASE64, 39, 3)}`,
      randomText(BASE64, 20, 5),
      `Private-Lines: ${privateLines.length}`,
      ...privateLines,
      `Private-MAC: ${randomText(HEX, 64, 9)}`,
    ].join('\n');
  }

  it('finds a key file whole, from its first line to the MAC, in every line ending', () => {
    for (const version of [2, 3]) {
      const file = ppk([`AAAAI${randomText(BASE64, 43, version)}`], version);
      expect(matchesOf(`my key:\n${file}\nthanks`, 'secret.private_key'), `version ${version}`).toEqual([file]);
      const crlf = file.replace(/\n/g, '\r\n');
      expect(matchesOf(`${crlf}\r\n`, 'secret.private_key')).toEqual([crlf]);
      const escaped = file.replace(/\n/g, '\\n');
      expect(matchesOf(`{"key": "${escaped}\\n"}`, 'secret.private_key')).toEqual([escaped]);
    }
  });

  it('finds a file cut after its private lines', () => {
    const file = ppk([randomText(BASE64, 64, 21), randomText(BASE64, 40, 22)]);
    const cut = file.slice(0, file.indexOf('Private-MAC'));
    expect(matchesOf(cut, 'secret.private_key')).toEqual([cut.trimEnd()]);
  });

  it('does not report documentation placeholders or a public part alone', () => {
    expect(findingsOf(ppk(['AAAA...']), 'secret.private_key')).toEqual([]);
    expect(findingsOf(ppk(['AAAAIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']), 'secret.private_key')).toEqual([]);
    const publicOnly = ppk([randomText(BASE64, 48)]).split('\nPrivate-Lines')[0] ?? '';
    expect(findingsOf(publicOnly)).toEqual([]);
  });
});

describe('JWT rule (secret.jwt)', () => {
  const header = base64url({ alg: 'HS256', typ: 'JWT' });
  const payload = base64url({ sub: '1234567890', name: 'Ada', iat: 1516239022 });
  const signature = randomText(`${BASE64.slice(0, 62)}-_`, 43);

  it('finds signed tokens, including after "Bearer"', () => {
    const token = `${header}.${payload}.${signature}`;
    const findings = findingsOf(`Authorization: Bearer ${token}`);
    expect(findings.map((finding) => [finding.rule_id, finding.match])).toEqual([['secret.jwt', token]]);
  });

  it('finds an unsigned header.payload token', () => {
    expect(matchesOf(`token ${header}.${payload}`, 'secret.jwt')).toEqual([`${header}.${payload}`]);
  });

  it('does not report base64 segments whose header is not a JWT header', () => {
    const notJwt = `${base64url({ hello: 'world' })}.${payload}.${signature}`;
    expect(matchesOf(notJwt, 'secret.jwt')).toEqual([]);
  });
});

describe('password hash rule (secret.password_hash)', () => {
  it('finds bcrypt, sha512-crypt and argon2 hashes', () => {
    const bcrypt = `$2b$12$${randomText('./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 53)}`;
    const sha512 = `$6$${randomText('ABCDEFGHabcdefgh01234567', 8)}$${randomText('./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 86)}`;
    const argon = `$argon2id$v=19$m=65536,t=3,p=4$${randomText(BASE64, 22)}$${randomText(BASE64, 43)}`;
    expect(matchesOf(`${bcrypt}\n${sha512}\n${argon}`, 'secret.password_hash')).toEqual([bcrypt, sha512, argon]);
  });

  it('warns rather than blocks', () => {
    const bcrypt = `$2a$10$${randomText('./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 53)}`;
    expect(findingsOf(bcrypt)[0]?.severity).toBe('warn');
  });
});

describe('hex private key rule (secret.hex_private_key)', () => {
  const key = `0x${randomText(HEX, 64)}`;

  it('finds a 0x-prefixed 256-bit key next to key or wallet words', () => {
    expect(matchesOf(`Oops, my wallet private key: ${key}!`, 'secret.hex_private_key')).toEqual([key]);
  });

  it('does not report the same shape as a transaction hash, or a bare hash', () => {
    expect(matchesOf(`tx hash ${key} confirmed in the block`, 'secret.hex_private_key')).toEqual([]);
    expect(matchesOf(`sha256 ${randomText(HEX, 64)}`, 'secret.hex_private_key')).toEqual([]);
  });

  it('does not report zero or a value above the curve order', () => {
    expect(matchesOf(`private key 0x${'0'.repeat(64)} and private key 0x${'f'.repeat(64)}`, 'secret.hex_private_key')).toEqual([]);
  });
});

describe('tokens that look random but are not keys', () => {
  it('does not report UUIDs, git hashes or sha256 digests on their own or under non-secret names', () => {
    const text = [
      `request_id = "${randomText(HEX, 8)}-${randomText(HEX, 4)}-4${randomText(HEX, 3)}-a${randomText(HEX, 3)}-${randomText(HEX, 12)}"`,
      `commit ${randomText(HEX, 40)}`,
      `"integrity": "sha512-${randomText(BASE64, 86)}=="`,
      `checksum: ${randomText(HEX, 64)}`,
      `private_key_id: ${randomText(HEX, 40)}`,
    ].join('\n');
    expect(findingsOf(text).filter((finding) => finding.rule_id.startsWith('secret.'))).toEqual([]);
  });

  it('still reports a UUID assigned to a token name (some vendors issue UUID tokens)', () => {
    const uuid = `${randomText(HEX, 8)}-${randomText(HEX, 4)}-4${randomText(HEX, 3)}-a${randomText(HEX, 3)}-${randomText(HEX, 12)}`;
    expect(matchesOf(`SNYK_TOKEN=${uuid}`, 'secret.generic_secret')).toEqual([uuid]);
  });

  it('reports a fake GitHub token once, not also as a JWT or generic secret', () => {
    const token = fakeToken(['gh', 'p_'], HEX, 36);
    expect(findingsOf(`token: ${token}`).map((finding) => finding.rule_id)).toEqual(['secret.github_token']);
  });
});
