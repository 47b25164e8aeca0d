/**
 * The webhook delivery worker, one per serving process: it claims due deliveries from the outbox
 * (atomically, so processes share it), signs each with Standard Webhooks (the `standardwebhooks`
 * package), POSTs it with a per-attempt timeout, records the attempt, and schedules the next one
 * or ends the delivery.
 *
 * A receiver can only ever cost its own deliveries: attempts run concurrently up to a bound, shared
 * out so that no endpoint, no account and no set of failing receivers holds every slot (the
 * shares are below, the claim that keeps them in src/db/webhook-claims.ts), each attempt is cut
 * off at its timeout, redirects are not followed (a 3xx is a failed attempt: following one
 * would let a public endpoint point Porch at an internal address), and the address connected to
 * is the one the SSRF guard checked just before.
 *
 * Time for the schedule comes from the injected Clock, so tests drive retries with `drain()`
 * after moving a manual clock, without sleeping.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import type { ClaimedWebhookDelivery, WebhookClaimShares, WebhookEndpointBusy, WebhookRepository } from '../../db/store.js';
import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import { createBackgroundFailureLog } from '../store-outage-log.js';
import { decryptWebhookSecret } from './secrets.js';
import { checkWebhookUrl, type HostResolver, type ResolvedAddress, systemResolver } from './url-guard.js';

const SECOND_MS = 1_000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * Standard Webhooks' schedule: the wait before each attempt (the first at once). Eight attempts
 * over about 27 hours, so a receiver down for a day still gets the event; then it is failed.
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [0, 5 * SECOND_MS, 5 * MINUTE_MS, 30 * MINUTE_MS, 2 * HOUR_MS, 5 * HOUR_MS, 10 * HOUR_MS, 10 * HOUR_MS];

/**
 * Attempts one endpoint may have in flight in one process: a receiver that hangs holds at most
 * these slots for its timeout, and the rest go to the other endpoints. Once an attempt to it
 * failed it gets one until an attempt succeeds, so a dead receiver holds a single slot.
 */
export const MAX_IN_FLIGHT_PER_ENDPOINT = 4;

/**
 * How a process of `concurrency` slots shares them out (src/db/webhook-claims.ts applies it). An
 * account gets a quarter (4 of the default 16), so that an account with many endpoints that hang
 * leaves three quarters to the others; of that, its failing endpoints half (2), so that its
 * receivers that answer keep the rest. The failing endpoints of every account together get half
 * the slots (8), so that receivers that keep failing, of however many accounts, leave the other
 * half to the receivers that answer. Each share is at least one slot.
 */
export function deliveryShares(concurrency: number): WebhookClaimShares {
  const perAccount = Math.max(1, Math.floor(concurrency / 4));
  return {
    perEndpoint: MAX_IN_FLIGHT_PER_ENDPOINT,
    perAccount,
    failingPerAccount: Math.max(1, Math.floor(perAccount / 2)),
    failing: Math.max(1, Math.floor(concurrency / 2)),
  };
}

/**
 * How long a process remembers that an endpoint's last attempt failed when it makes no attempt
 * there: twice the longest wait of the schedule. A retry falls due that wait after the attempt
 * ended and is claimed at a poll after, later still while the slots are taken, so the endpoint must
 * still be known then (regression: remembered for exactly the longest wait, a dead endpoint was
 * forgotten as its 10-hour retries fell due and got its full share back for its last attempts).
 * The memory of endpoints gone quiet (or deleted) is let go.
 */
const FAILING_MEMORY_MS = 2 * Math.max(...RETRY_SCHEDULE_MS);

/**
 * Endpoints a process remembers as failing, at most: the one whose attempt failed longest ago is
 * let go first, so the memory stays bounded however many receivers fail. An endpoint let go is
 * taken as answering until an attempt to it fails again; its account's share still bounds it.
 */
export const MAX_REMEMBERED_FAILING = 10_000;

/** What a process remembers of the endpoints whose last attempt in it failed, until one succeeds. */
export function createFailingEndpointMemory() {
  /** By endpoint id, their account and when the attempt ended; the one that failed longest ago first. */
  const failed = new Map<string, { accountId: string; at: number }>();
  return {
    /** An attempt to the endpoint ended at `at` and failed. */
    recordFailure(endpointId: string, accountId: string, at: number): void {
      // Set again at the end, so that the map stays ordered by when the endpoint last failed.
      failed.delete(endpointId);
      failed.set(endpointId, { accountId, at });
      const oldest = failed.keys().next();
      if (failed.size > MAX_REMEMBERED_FAILING && oldest.done !== true) failed.delete(oldest.value);
    },
    /** An attempt to the endpoint succeeded. */
    recordSuccess(endpointId: string): void {
      failed.delete(endpointId);
    },
    /** The endpoints still taken as failing at `now`, with their accounts: those quiet for longer are forgotten. */
    failingAt(now: number): ReadonlyMap<string, string> {
      const failing = new Map<string, string>();
      for (const [endpointId, { accountId, at }] of failed) {
        if (at <= now - FAILING_MEMORY_MS) failed.delete(endpointId);
        else failing.set(endpointId, accountId);
      }
      return failing;
    },
  };
}

/** Bytes of a receiver's answer read before the connection is dropped: the body is never used. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** Why an attempt failed, as the delivery log records it. */
export type AttemptError = 'timeout' | 'connection' | 'tls' | 'redirect' | 'http_status' | 'blocked_address' | 'dns' | 'invalid_url' | 'secret';

/**
 * The `code`s of a certificate Node's TLS refuses (OpenSSL's verification results, and Node's own
 * for a certificate issued for another name): expired, self-signed, from an unknown issuer.
 */
const CERTIFICATE_ERROR_CODES: ReadonlySet<string> = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CRL_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CRL_NOT_YET_VALID',
  'CRL_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'ERROR_IN_CRL_LAST_UPDATE_FIELD',
  'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * Whether an https request failed in its TLS handshake (a certificate refused as above, an alert
 * from the receiver, or no TLS spoken at all: OpenSSL's `EPROTO`) rather than at the connection:
 * the receiver's owner fixes a certificate, not a network (regression: both were `connection`).
 */
function isTlsFailure(err: unknown): boolean {
  const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : '';
  return CERTIFICATE_ERROR_CODES.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || code === 'EPROTO';
}

export interface WebhookWorkerOptions {
  store: WebhookRepository;
  clock: Clock;
  logger: Logger;
  secretKey: Buffer;
  /** `webhooks.allow_hosts`: hosts exempt from the SSRF guard (and allowed plain http). */
  allowHosts: readonly string[];
  /** How long one attempt may take, connection to last byte (`webhooks.timeout_ms`). */
  timeoutMs: number;
  /** Attempts in flight at once in this process (`webhooks.concurrency`). */
  concurrency: number;
  resolve?: HostResolver;
}

interface AttemptOutcome {
  statusCode: number | null;
  error: AttemptError | null;
}

/** The `webhook-signature` header: one `v1,<base64>` per secret in use, space-separated (Standard Webhooks). */
export function signatureHeader(secrets: readonly string[], messageId: string, sentAt: Date, payload: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(messageId, sentAt, payload)).join(' ');
}

/** A DNS lookup that answers the address the guard checked, whatever the name resolves to now. */
function pinnedLookup(address: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  };
}

function post(url: URL, address: ResolvedAddress, headers: Record<string, string>, body: string, timeoutMs: number): Promise<AttemptOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'Porch-Webhooks/1' },
      lookup: pinnedLookup(address),
      // No connection reuse: each attempt connects to the address checked for it.
      agent: false,
    });
    const timer = setTimeout(() => {
      finish({ statusCode: null, error: 'timeout' });
      request.destroy();
    }, timeoutMs);
    const https = url.protocol === 'https:';
    request.on('error', (err) => finish({ statusCode: null, error: https && isTlsFailure(err) ? 'tls' : 'connection' }));
    request.on('response', (response: IncomingMessage) => {
      const statusCode = response.statusCode ?? 0;
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > MAX_RESPONSE_BYTES) response.destroy();
      });
      const outcome = (): AttemptOutcome => {
        if (statusCode >= 200 && statusCode < 300) return { statusCode, error: null };
        return { statusCode, error: statusCode >= 300 && statusCode < 400 ? 'redirect' : 'http_status' };
      };
      response.on('end', () => finish(outcome()));
      response.on('close', () => finish(outcome()));
      response.on('error', () => finish(outcome()));
    });
    request.end(body);
  });
}

export function createWebhookWorker(options: WebhookWorkerOptions) {
  const { store, clock, logger, secretKey, allowHosts, timeoutMs, concurrency } = options;
  const logPollFailure = createBackgroundFailureLog(logger, 'webhook delivery poll failed');
  const resolve = options.resolve ?? systemResolver;
  /** A claim outlives its attempt by this much; after it, a crashed process's delivery is claimed again. */
  const claimMs = timeoutMs + MINUTE_MS;
  const shares = deliveryShares(concurrency);
  const inFlight = new Set<Promise<void>>();
  /** Attempts in flight per endpoint. */
  const busy = new Map<string, WebhookEndpointBusy>();
  /** Endpoints whose last attempt in this process failed. */
  const failed = createFailingEndpointMemory();
  const adjustBusy = ({ endpointId, accountId }: ClaimedWebhookDelivery, by: number) => {
    const count = (busy.get(endpointId)?.count ?? 0) + by;
    if (count > 0) busy.set(endpointId, { accountId, count });
    else busy.delete(endpointId);
  };

  async function attempt(delivery: ClaimedWebhookDelivery): Promise<AttemptOutcome> {
    const check = await checkWebhookUrl(delivery.url, allowHosts, resolve);
    if (!check.ok) return { statusCode: null, error: check.reason === 'invalid' ? 'invalid_url' : check.reason };
    const now = clock.now();
    let secrets: string[];
    try {
      secrets = [decryptWebhookSecret(delivery.encryptedSecret, secretKey, delivery.endpointId)];
    } catch (err) {
      logger.error({ err, endpointId: delivery.endpointId }, 'a webhook secret could not be decrypted (was PORCH_SECRET_KEY changed?)');
      return { statusCode: null, error: 'secret' };
    }
    if (delivery.previousEncryptedSecret !== null && delivery.previousSecretExpiresAt !== null && delivery.previousSecretExpiresAt > now) {
      // The previous secret only adds a signature for the grace period. One that cannot be read
      // (sealed under an earlier PORCH_SECRET_KEY: rotating is how an operator recovers from a
      // changed key) must not stop the current secret from signing (regression: every delivery
      // failed until the grace period ended).
      try {
        secrets.push(decryptWebhookSecret(delivery.previousEncryptedSecret, secretKey, delivery.endpointId));
      } catch (err) {
        logger.warn({ err, endpointId: delivery.endpointId }, 'the previous webhook secret could not be decrypted; signing with the current one only');
      }
    }
    const sentAt = new Date(now);
    const headers = {
      'webhook-id': delivery.eventId,
      'webhook-timestamp': String(Math.floor(now / SECOND_MS)),
      'webhook-signature': signatureHeader(secrets, delivery.eventId, sentAt, delivery.payload),
    };
    return post(check.url, check.address, headers, delivery.payload, timeoutMs);
  }

  async function deliver(delivery: ClaimedWebhookDelivery): Promise<void> {
    const attemptedAt = clock.now();
    const started = performance.now();
    const outcome = await attempt(delivery);
    if (outcome.error === null) failed.recordSuccess(delivery.endpointId);
    else failed.recordFailure(delivery.endpointId, delivery.accountId, clock.now());
    const durationMs = Math.round(performance.now() - started);
    const attempts = delivery.attempts + 1;
    const delay = RETRY_SCHEDULE_MS[attempts];
    const succeeded = outcome.error === null;
    const status = succeeded ? 'succeeded' : delay === undefined ? 'failed' : 'pending';
    await store.recordAttempt({
      attempt: {
        id: newId(),
        endpointId: delivery.endpointId,
        eventId: delivery.eventId,
        attemptedAt,
        statusCode: outcome.statusCode,
        durationMs,
        error: outcome.error,
      },
      status,
      nextAttemptAt: status === 'pending' && delay !== undefined ? clock.now() + delay : null,
    });
    if (status === 'failed')
      logger.warn({ endpointId: delivery.endpointId, eventId: delivery.eventId, attempts }, 'a webhook delivery failed after its last attempt');
  }

  /** Claims what is due and the shares of the free slots allow, and starts those attempts; returns how many it started. */
  async function claimAndStart(): Promise<number> {
    let started = 0;
    for (;;) {
      const free = concurrency - inFlight.size;
      if (free <= 0) return started;
      const now = clock.now();
      const claimed = await store.claimDue({
        now,
        limit: free,
        claimUntil: now + claimMs,
        shares,
        busy,
        failing: failed.failingAt(now),
      });
      for (const delivery of claimed) {
        adjustBusy(delivery, 1);
        const running: Promise<void> = deliver(delivery)
          .catch((err: unknown) => logger.error({ err, endpointId: delivery.endpointId, eventId: delivery.eventId }, 'a webhook attempt could not be recorded'))
          .finally(() => {
            inFlight.delete(running);
            adjustBusy(delivery, -1);
          });
        inFlight.add(running);
      }
      started += claimed.length;
      // A claim reads a window of the earliest due deliveries. When the shares kept some of them
      // back (an account at its share, say), later ones of other accounts may be due behind that
      // window: claim again, with those now left out, rather than a poll later.
      if (claimed.length === 0) return started;
    }
  }

  /**
   * The tick running now, if any. Ticks run one at a time: a tick shares out the slots free when it
   * starts and counts its claims only once they come back, so a second tick started meanwhile
   * would claim its full amount again (regression: three overlapping ticks started 8 attempts to
   * one endpoint whose share is 4).
   */
  let ticking: Promise<number> | null = null;

  /**
   * Claims what is due and the shares of the free slots allow, and starts those attempts, once a
   * tick already running has ended; returns how many it started.
   */
  async function tick(): Promise<number> {
    // The running tick's own caller gets its outcome; this one only waits for it to end.
    while (ticking !== null) await ticking.catch(() => undefined);
    const running = claimAndStart().finally(() => {
      ticking = null;
    });
    ticking = running;
    return running;
  }

  /** Runs attempts until nothing is due now and none is in flight (tests call it after moving the clock). */
  async function drain(): Promise<void> {
    for (;;) {
      const started = await tick();
      if (inFlight.size === 0 && started === 0) return;
      if (inFlight.size > 0) await Promise.race(inFlight);
    }
  }

  let timer: NodeJS.Timeout | null = null;
  return {
    tick,
    drain,
    /** Attempts in flight in this process now. */
    inFlight: () => inFlight.size,
    /** Polls the outbox every `intervalMs`; the timer never keeps the process alive. */
    start(intervalMs: number): void {
      if (timer !== null) return;
      timer = setInterval(() => {
        // A tick that outlasts the interval (a slow database) is left to finish rather than queued behind.
        if (ticking !== null) return;
        tick().catch(logPollFailure);
      }, intervalMs);
      timer.unref();
    },
    /** Stops polling and waits for the tick running, then for the attempts in flight (each ends by its timeout). */
    async stop(): Promise<void> {
      if (timer !== null) clearInterval(timer);
      timer = null;
      // Whoever started the tick has its failure; stopping only waits for the attempts it started.
      if (ticking !== null) await ticking.catch(() => undefined);
      await Promise.allSettled([...inFlight]);
    },
  };
}

export type WebhookWorker = ReturnType<typeof createWebhookWorker>;
