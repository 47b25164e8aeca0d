import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const USER_KEY_PREFIX = 'mdi_';
export const PARTNER_KEY_PREFIX = 'mpk_';

/** 32 random bytes is 256 bits of entropy, the floor DECISIONS.md sets for keys. */
const KEY_RANDOM_BYTES = 32;
/** Characters of the key kept for display ("mdi_AbCd1234"): enough to tell keys apart, too few to guess. */
const DISPLAY_PREFIX_LENGTH = 12;

export interface GeneratedKey {
  plaintext: string;
  hash: string;
  prefix: string;
}

export function hashKey(plaintext: string): string {
  return createHash('sha256').update(plaintext, 'utf8').digest('hex');
}

export function generateKey(prefix: typeof USER_KEY_PREFIX | typeof PARTNER_KEY_PREFIX): GeneratedKey {
  const plaintext = prefix + randomBytes(KEY_RANDOM_BYTES).toString('base64url');
  return { plaintext, hash: hashKey(plaintext), prefix: plaintext.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/** Compares two hex digests in constant time. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
