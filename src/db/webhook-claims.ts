/**
 * Which due deliveries a claim takes, the same on every engine: the earliest due first, at most
 * `maxPerEndpoint` per endpoint counting the claimer's attempts already in flight there. Engines
 * read a few times `limit` candidates (locked, on PostgreSQL), none of a saturated endpoint, and
 * claim the ones picked here.
 */
import type { WebhookClaimRequest } from './store.js';

/** Candidates read per slot: enough that a backlog on one endpoint still leaves room for others. */
export const CANDIDATES_PER_SLOT = 4;

/**
 * The endpoints the claimer already has `maxPerEndpoint` attempts in flight at: engines leave
 * their deliveries out of the candidates, so that a backlog on an endpoint that hangs cannot fill
 * every candidate and leave the other endpoints' deliveries unclaimed (regression: one receiver
 * that never answered delayed every other account's webhooks by minutes).
 */
export function saturatedEndpoints(request: Pick<WebhookClaimRequest, 'maxPerEndpoint' | 'busy'>): string[] {
  return [...request.busy].filter(([, count]) => count >= request.maxPerEndpoint).map(([endpointId]) => endpointId);
}

export function pickClaims<Row extends { endpointId: string }>(
  candidates: readonly Row[],
  request: Pick<WebhookClaimRequest, 'limit' | 'maxPerEndpoint' | 'busy'>,
): Row[] {
  const taken = new Map(request.busy);
  const picked: Row[] = [];
  for (const candidate of candidates) {
    if (picked.length >= request.limit) break;
    const count = taken.get(candidate.endpointId) ?? 0;
    if (count >= request.maxPerEndpoint) continue;
    taken.set(candidate.endpointId, count + 1);
    picked.push(candidate);
  }
  return picked;
}
