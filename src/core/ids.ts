/**
 * Identifiers: UUIDv7 (RFC 9562), so "newest first" is "highest id first" and a cursor is an id.
 *
 * Written here rather than taken from the `uuid` package: its index loads all twenty of its
 * modules on every start-up, and its v7 asks WebCrypto for 16 fresh bytes per id, several times
 * per execution (figures in bench/RESULTS-NOTES.md). This one draws from a pool refilled by one
 * `randomFillSync` call per 256 ids.
 */
import { randomFillSync } from 'node:crypto';

const ID_BYTES = 16;
const POOL_IDS = 256;
const pool = Buffer.alloc(ID_BYTES * POOL_IDS);
let poolOffset = pool.length;

/** The highest counter value; the counter starts below 2^30, leaving 2^30 increments per millisecond. */
const COUNTER_MAX = 0x7fffffff;
const COUNTER_SEED_MASK = 0x3fffffff;

let lastMs = -Infinity;
let counter = 0;

function randomBytes(): Buffer {
  if (poolOffset + ID_BYTES > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + ID_BYTES);
  poolOffset += ID_BYTES;
  return bytes;
}

const HEX = Array.from({ length: 256 }, (_, value) => value.toString(16).padStart(2, '0'));

/**
 * A new UUIDv7: 48 bits of Unix milliseconds, the version, a 31-bit counter (RFC 9562 section
 * 6.2, method 1) seeded at random each millisecond and incremented within it, the variant and
 * random bits. Ids made by this process therefore sort in the order they were made, even within
 * one millisecond; if the clock steps back, the last millisecond is kept until it catches up.
 */
export function newId(): string {
  const random = randomBytes();
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = random.readUInt32BE(0) & COUNTER_SEED_MASK;
  } else if (counter === COUNTER_MAX) {
    lastMs += 1;
    counter = random.readUInt32BE(0) & COUNTER_SEED_MASK;
  } else {
    counter += 1;
  }
  const ms = lastMs;
  const bytes = [
    Math.floor(ms / 0x10000000000) & 0xff,
    Math.floor(ms / 0x100000000) & 0xff,
    Math.floor(ms / 0x1000000) & 0xff,
    Math.floor(ms / 0x10000) & 0xff,
    Math.floor(ms / 0x100) & 0xff,
    ms & 0xff,
    0x70 | ((counter >>> 27) & 0x0f),
    (counter >>> 19) & 0xff,
    0x80 | ((counter >>> 13) & 0x3f),
    (counter >>> 5) & 0xff,
    ((counter << 3) & 0xf8) | ((random[10] ?? 0) & 0x07),
    random[11] ?? 0,
    random[12] ?? 0,
    random[13] ?? 0,
    random[14] ?? 0,
    random[15] ?? 0,
  ].map((byte) => HEX[byte] ?? '00');
  return `${bytes.slice(0, 4).join('')}-${bytes.slice(4, 6).join('')}-${bytes.slice(6, 8).join('')}-${bytes.slice(8, 10).join('')}-${bytes.slice(10).join('')}`;
}

/** Any RFC 9562 UUID (versions 1-8), or the nil and max UUIDs; case-insensitive. */
const UUID_PATTERN =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
