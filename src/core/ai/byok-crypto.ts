/**
 * Encryption at rest for BYOK provider keys: AES-256-GCM under the server's secret key
 * (PORCH_SECRET_KEY, or a key file generated into the data folder). GCM authenticates as well as
 * encrypts, so a modified blob or the wrong key is detected rather than decrypted into garbage.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ALGORITHM = 'aes-256-gcm';
export const SECRET_KEY_BYTES = 32;
/** 96 bits: the IV length GCM is specified for; random per encryption. */
const IV_BYTES = 12;
/** Full-length tag: truncated GCM tags weaken the authenticity guarantee. */
const AUTH_TAG_BYTES = 16;
/** Leading version so the format (or the algorithm) can change without guessing at old rows. */
const FORMAT_VERSION = 'v1';
export const SECRET_KEY_FILE_NAME = 'secret.key';
/** Owner read/write only: the file decrypts every stored provider key. */
const KEY_FILE_MODE = 0o600;
const KEY_DIR_MODE = 0o700;
/** Characters of the sha256 shown as a fingerprint: enough to tell keys apart, useless to attack. */
const FINGERPRINT_HEX_CHARS = 8;

const HEX_KEY_PATTERN = /^[0-9a-fA-F]{64}$/;
const BASE64_KEY_PATTERN = /^[A-Za-z0-9+/]{43}=?$|^[A-Za-z0-9_-]{43}$/;
const BASE64URL_PART_PATTERN = /^[A-Za-z0-9_-]*$/;

function assertKey(key: Buffer): void {
  if (key.length !== SECRET_KEY_BYTES) {
    throw new Error(`The secret key must be ${SECRET_KEY_BYTES} bytes; got ${key.length}.`);
  }
}

function associatedDataBytes(associatedData: string | undefined): Buffer | undefined {
  return associatedData === undefined ? undefined : Buffer.from(associatedData, 'utf8');
}

/**
 * Encrypts a secret as `v1.<iv>.<tag>.<ciphertext>` (base64url parts). `associatedData`, when
 * given, binds the blob to its context (say `byok:<organisation id>:<provider>`): decryption with
 * different associated data fails, so a blob copied to another row is useless there.
 */
export function encryptSecret(plaintext: string, key: Buffer, associatedData?: string): string {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: AUTH_TAG_BYTES });
  const aad = associatedDataBytes(associatedData);
  if (aad !== undefined) cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [FORMAT_VERSION, iv.toString('base64url'), tag.toString('base64url'), ciphertext.toString('base64url')].join('.');
}

/**
 * Decrypts a blob from encryptSecret. Throws when the blob is malformed, was modified, or was
 * encrypted under another key or associated data. The error never quotes the blob.
 */
export function decryptSecret(blob: string, key: Buffer, associatedData?: string): string {
  assertKey(key);
  const parts = blob.split('.');
  const [version, ivPart, tagPart, ciphertextPart] = parts;
  if (
    parts.length !== 4 ||
    version !== FORMAT_VERSION ||
    ivPart === undefined ||
    tagPart === undefined ||
    ciphertextPart === undefined ||
    ![ivPart, tagPart, ciphertextPart].every((part) => BASE64URL_PART_PATTERN.test(part))
  ) {
    throw new Error(`The encrypted secret is malformed (expected format ${FORMAT_VERSION}.<iv>.<tag>.<ciphertext>).`);
  }
  const iv = Buffer.from(ivPart, 'base64url');
  const tag = Buffer.from(tagPart, 'base64url');
  if (iv.length !== IV_BYTES || tag.length !== AUTH_TAG_BYTES) {
    throw new Error('The encrypted secret is malformed (wrong IV or tag length).');
  }
  try {
    const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: AUTH_TAG_BYTES });
    const aad = associatedDataBytes(associatedData);
    if (aad !== undefined) decipher.setAAD(aad);
    decipher.setAuthTag(tag);
    const plaintext = Buffer.concat([decipher.update(Buffer.from(ciphertextPart, 'base64url')), decipher.final()]);
    return plaintext.toString('utf8');
  } catch (err) {
    throw new Error('The encrypted secret could not be decrypted: it was modified, or encrypted under another secret key (PORCH_SECRET_KEY).', { cause: err });
  }
}

/** Decodes a 32-byte key written as 64 hex characters or as base64/base64url; undefined otherwise. */
export function decodeSecretKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (HEX_KEY_PATTERN.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (BASE64_KEY_PATTERN.test(trimmed)) {
    const decoded = Buffer.from(trimmed, trimmed.includes('-') || trimmed.includes('_') ? 'base64url' : 'base64');
    if (decoded.length === SECRET_KEY_BYTES) return decoded;
  }
  return undefined;
}

export interface LoadSecretKeyOptions {
  /** The value of PORCH_SECRET_KEY, if set. */
  envValue?: string | undefined;
  /** The data folder; `secret.key` there is used (and created) when envValue is unset. */
  dataDir: string;
}

/**
 * The server's 32-byte secret key. From PORCH_SECRET_KEY when set (64 hex characters or base64 of
 * 32 bytes; anything else stops start-up), else from `<dataDir>/secret.key`, which is generated
 * with mode 0600 on first start. The file holds the key in base64, so an operator can move it into
 * PORCH_SECRET_KEY unchanged. Losing the key makes every stored BYOK key unreadable.
 */
export function loadSecretKey(options: LoadSecretKeyOptions): Buffer {
  const envValue = options.envValue;
  if (envValue !== undefined && envValue.trim() !== '') {
    const key = decodeSecretKey(envValue);
    if (key === undefined) {
      // Never echo the value: it is meant to be a secret, even when malformed.
      throw new Error(
        `PORCH_SECRET_KEY must be ${SECRET_KEY_BYTES} random bytes written as 64 hex characters or as base64 ` +
          `(e.g. the output of \`openssl rand -base64 32\`); the value set (${envValue.trim().length} characters) is neither.`,
      );
    }
    return key;
  }

  const keyPath = path.join(options.dataDir, SECRET_KEY_FILE_NAME);
  mkdirSync(options.dataDir, { recursive: true, mode: KEY_DIR_MODE });
  const generated = randomBytes(SECRET_KEY_BYTES);
  try {
    // "wx" fails if the file exists, so two processes starting at once never overwrite each
    // other's key: the loser reads the winner's file below.
    writeFileSync(keyPath, `${generated.toString('base64')}\n`, { mode: KEY_FILE_MODE, flag: 'wx' });
    return generated;
  } catch (err) {
    if (!(err instanceof Error && 'code' in err && err.code === 'EEXIST')) throw err;
  }
  const key = decodeSecretKey(readFileSync(keyPath, 'utf8'));
  if (key === undefined) {
    throw new Error(
      `The secret key file ${keyPath} does not hold ${SECRET_KEY_BYTES} bytes in base64 or hex. ` +
        'Restore it from a backup (stored BYOK keys need it), or set PORCH_SECRET_KEY.',
    );
  }
  return key;
}

/** A short, non-reversible id of a key for display ("which key is this?"): sha256, first 8 hex. */
export function fingerprint(key: Buffer | string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, FINGERPRINT_HEX_CHARS);
}
