import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { SECRET_KEY_FILE_NAME, decryptSecret, encryptSecret, fingerprint, loadSecretKey } from '../../../src/core/ai/byok-crypto.js';

const PROVIDER_KEY = 'sk-proj-byok-3b7e1f9a2c5d8e0f4a6b';

function errorMessageOf(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  throw new Error('expected the call to throw');
}

/** Flips one character of a base64url part, keeping it valid base64url. */
function flipCharacter(part: string, index: number): string {
  const character = part[index];
  const replacement = character === 'A' ? 'B' : 'A';
  return part.slice(0, index) + replacement + part.slice(index + 1);
}

describe('encryptSecret / decryptSecret', () => {
  const key = randomBytes(32);

  it('round-trips a secret, including non-ASCII text', () => {
    for (const plaintext of [PROVIDER_KEY, '', 'clé-π-🔑']) {
      expect(decryptSecret(encryptSecret(plaintext, key), key)).toBe(plaintext);
    }
  });

  it('writes a versioned compact blob that does not contain the secret', () => {
    const blob = encryptSecret(PROVIDER_KEY, key);
    expect(blob).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(blob).not.toContain(PROVIDER_KEY);
    expect(blob).not.toContain(Buffer.from(PROVIDER_KEY).toString('base64url'));
  });

  it('uses a fresh IV each time, so equal secrets give different blobs', () => {
    const blobs = new Set(Array.from({ length: 20 }, () => encryptSecret(PROVIDER_KEY, key)));
    expect(blobs.size).toBe(20);
  });

  it('detects tampering with the IV, the tag or the ciphertext, without quoting the blob', () => {
    const blob = encryptSecret(PROVIDER_KEY, key);
    const [version = '', iv = '', tag = '', ciphertext = ''] = blob.split('.');
    expect([version, iv, tag, ciphertext].every((part) => part !== '')).toBe(true);
    const tampered = [
      [version, flipCharacter(iv, 3), tag, ciphertext],
      [version, iv, flipCharacter(tag, 5), ciphertext],
      [version, iv, tag, flipCharacter(ciphertext, 2)],
      [version, iv, tag, ciphertext.slice(0, -2)],
    ].map((parts) => parts.join('.'));
    for (const forged of tampered) {
      const message = errorMessageOf(() => decryptSecret(forged, key));
      expect(message).toContain('could not be decrypted');
      expect(message).not.toContain(forged);
      expect(message).not.toContain(ciphertext);
    }
  });

  it('refuses another key', () => {
    const blob = encryptSecret(PROVIDER_KEY, key);
    expect(errorMessageOf(() => decryptSecret(blob, randomBytes(32)))).toContain('another secret key');
  });

  it('binds the blob to its associated data', () => {
    const blob = encryptSecret(PROVIDER_KEY, key, 'byok:org-1:openai');
    expect(decryptSecret(blob, key, 'byok:org-1:openai')).toBe(PROVIDER_KEY);
    expect(() => decryptSecret(blob, key, 'byok:org-2:openai')).toThrow(/could not be decrypted/);
    expect(() => decryptSecret(blob, key)).toThrow(/could not be decrypted/);
  });

  it('rejects malformed blobs and unknown versions with a clear error', () => {
    const blob = encryptSecret(PROVIDER_KEY, key);
    for (const malformed of ['', 'garbage', blob.replace(/^v1/, 'v2'), `${blob}.extra`, blob.replace('.', '.!')]) {
      const message = errorMessageOf(() => decryptSecret(malformed, key));
      expect(message).toContain('malformed');
    }
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => encryptSecret(PROVIDER_KEY, randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe('loadSecretKey', () => {
  const directories: string[] = [];
  function freshDir(): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'porch-secret-'));
    directories.push(dir);
    return dir;
  }
  afterEach(() => {
    for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('reads PORCH_SECRET_KEY as hex, base64 or base64url', () => {
    const raw = randomBytes(32);
    const dataDir = freshDir();
    for (const encoded of [raw.toString('hex'), raw.toString('base64'), raw.toString('base64url'), ` ${raw.toString('hex')}\n`]) {
      expect(loadSecretKey({ envValue: encoded, dataDir }).equals(raw)).toBe(true);
    }
  });

  it('stops start-up on a malformed PORCH_SECRET_KEY without echoing it', () => {
    const dataDir = freshDir();
    for (const bad of ['too-short-secret-value', randomBytes(16).toString('hex'), randomBytes(31).toString('base64'), 'z'.repeat(64)]) {
      const message = errorMessageOf(() => loadSecretKey({ envValue: bad, dataDir }));
      expect(message).toContain('PORCH_SECRET_KEY must be 32 random bytes');
      expect(message).not.toContain(bad);
    }
  });

  it('generates the key file with mode 0600 in a new data folder, then reuses it', () => {
    const dataDir = path.join(freshDir(), 'nested', 'data');
    const first = loadSecretKey({ dataDir });
    const keyPath = path.join(dataDir, SECRET_KEY_FILE_NAME);
    expect(first).toHaveLength(32);
    if (process.platform !== 'win32') {
      expect(statSync(keyPath).mode & 0o777).toBe(0o600);
    }
    expect(Buffer.from(readFileSync(keyPath, 'utf8').trim(), 'base64').equals(first)).toBe(true);
    expect(loadSecretKey({ dataDir }).equals(first)).toBe(true);
    expect(loadSecretKey({ envValue: '', dataDir }).equals(first)).toBe(true);
  });

  it('prefers PORCH_SECRET_KEY over the key file', () => {
    const dataDir = freshDir();
    const fromFile = loadSecretKey({ dataDir });
    const fromEnv = randomBytes(32);
    expect(loadSecretKey({ envValue: fromEnv.toString('base64'), dataDir }).equals(fromEnv)).toBe(true);
    expect(fromEnv.equals(fromFile)).toBe(false);
  });

  it('refuses a corrupt key file rather than generating a new key over it', () => {
    const dataDir = freshDir();
    const keyPath = path.join(dataDir, SECRET_KEY_FILE_NAME);
    writeFileSync(keyPath, 'not a key\n', { mode: 0o600 });
    expect(() => loadSecretKey({ dataDir })).toThrow(/does not hold 32 bytes/);
    expect(readFileSync(keyPath, 'utf8')).toBe('not a key\n');
  });
});

describe('fingerprint', () => {
  it('is the first 8 hex characters of sha256 and stable', () => {
    // sha256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
    expect(fingerprint('abc')).toBe('ba7816bf');
    expect(fingerprint(Buffer.from('abc'))).toBe('ba7816bf');
    expect(fingerprint(PROVIDER_KEY)).not.toBe(fingerprint(`${PROVIDER_KEY}x`));
  });
});
