/**
 * Attempts that anyone may make without a key (console sign-ins, OAuth client registrations),
 * counted per account or per client address in the rate limiter's shared windows, so a limit
 * holds across processes. A client address is counted by the network it stands for
 * (`addressBucket`), so the limits of sign-in and of registration read an address alike.
 */
import ipaddr from 'ipaddr.js';
import type { RateLimitRepository } from '../../db/store.js';
import type { Clock } from '../clock.js';
import { PorchError } from '../errors.js';

export interface AttemptLimits {
  requestsPerMinute: number;
  requestsPerDay: number;
}

/**
 * How much of an IPv6 address names one client. A provider gives a host, or a home, at least a
 * /64 (RFC 6177), and the host picks any address in it (SLAAC privacy addresses, RFC 8981), so
 * counting whole addresses let one host rotate through 2^64 of them and never be counted twice.
 */
const IPV6_CLIENT_PREFIX_LENGTH = 64;
/** ipaddr.js holds an IPv6 address as eight 16-bit parts: a /64 is the first four. */
const IPV6_PARTS_KEPT = IPV6_CLIENT_PREFIX_LENGTH / 16;

/**
 * The network a client address is counted under: an IPv4 address as it is (`::ffff:1.2.3.4`,
 * as a dual-stack socket reports it, read as the `1.2.3.4` it maps), an IPv6 address by its /64
 * (`2001:db8:1:2::/64`). Text that is no address (only a misconfigured proxy forwards that) is
 * counted as written.
 */
export function addressBucket(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (!(parsed instanceof ipaddr.IPv6)) return parsed.toString();
  const network = parsed.parts.map((part, index) => (index < IPV6_PARTS_KEPT ? part : 0));
  return `${new ipaddr.IPv6(network).toString()}/${IPV6_CLIENT_PREFIX_LENGTH}`;
}

export interface AttemptWindows {
  /** Counts one attempt under `keyId`; beyond `limits`, 429 RATE_LIMITED with `refusal` as its message and the wait as Retry-After. */
  count(keyId: string, limits: AttemptLimits, refusal: string): Promise<void>;
  /** `count` for an attempt from a client address, under `<purpose>:address:<its addressBucket>`. */
  countFromAddress(purpose: string, address: string, limits: AttemptLimits, refusal: string): Promise<void>;
}

export function createAttemptWindows(rateLimits: RateLimitRepository, clock: Clock): AttemptWindows {
  async function count(keyId: string, limits: AttemptLimits, refusal: string): Promise<void> {
    const nowSeconds = Math.floor(clock.now() / 1000);
    const outcome = await rateLimits.consume({ keyId, ...limits, nowSeconds });
    if (outcome.allowed) return;
    const resetSeconds = outcome.exceeded === 'day' ? outcome.dayResetSeconds : outcome.minuteResetSeconds;
    throw new PorchError('RATE_LIMITED', refusal, { retryAfterSeconds: Math.max(1, resetSeconds - nowSeconds) });
  }
  return {
    count,
    countFromAddress: (purpose, address, limits, refusal) => count(`${purpose}:address:${addressBucket(address)}`, limits, refusal),
  };
}
