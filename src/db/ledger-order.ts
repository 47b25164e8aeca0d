/**
 * The credit ledger is ordered by entry id (UUIDv7: time first), and a page's cursor is an id. An
 * id is made before its transaction waits for the account's balance, so two charges racing on one
 * account (two processes, or two connections of one) could commit in the other order than their
 * ids: the newer balance listed under the older entry, and an entry committed behind a cursor a
 * client had already read past. Each engine therefore writes an entry under an id above every
 * entry of the account, taken while it holds the account's balance: the ledger's id order is its
 * commit order, per account, on every engine and across hosts whose clocks disagree.
 */

const RAND_B_BITS = 62n;
const RAND_B_MAX = (1n << RAND_B_BITS) - 1n;
const RAND_A_MAX = 0xfffn;

/**
 * The smallest UUID above `id` of the same version and variant: its random bits plus one, carried
 * into the 12 bits before the variant, then into the timestamp (RFC 9562's layout: 48 bits of
 * time, the version, 12 bits, the variant, 62 bits).
 */
export function uuidAfter(id: string): string {
  const value = BigInt(`0x${id.replaceAll('-', '')}`);
  let time = value >> 80n;
  const version = (value >> 76n) & 0xfn;
  let randA = (value >> 64n) & RAND_A_MAX;
  let randB = (value & RAND_B_MAX) + 1n;
  if (randB > RAND_B_MAX) {
    randB = 0n;
    randA += 1n;
    if (randA > RAND_A_MAX) {
      randA = 0n;
      time += 1n;
    }
  }
  const hex = ((time << 80n) | (version << 76n) | (randA << 64n) | (0b10n << RAND_B_BITS) | randB).toString(16).padStart(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The id to write an entry under: the one made for it, unless the account already has an entry at or above it. */
export function ledgerEntryId(madeFor: string, highestOfAccount: string | undefined): string {
  return highestOfAccount === undefined || highestOfAccount < madeFor ? madeFor : uuidAfter(highestOfAccount);
}
