/**
 * Which due deliveries a claim takes, the same on every engine: the earliest due first, within
 * the claimer's shares, each counting its attempts already in flight:
 *
 * - an endpoint has at most `perEndpoint` attempts, and one once its last attempt failed, so a
 *   dead receiver holds one slot rather than several;
 * - an account's endpoints together have at most `perAccount`, so an account's many endpoints
 *   cannot take every slot, and of those its failing endpoints at most `failingPerAccount`, so
 *   its receivers that fail cannot take the slots of its receivers that answer;
 * - the failing endpoints of every account together have at most `failing`, so receivers that
 *   keep failing, of however many accounts, leave the rest of the slots to the ones that answer.
 *
 * Engines read a few times `limit` candidates (locked, on PostgreSQL), none of an endpoint or an
 * account already at its share, and claim the ones picked here.
 */
import type { WebhookClaimRequest } from './store.js';

/** Candidates read per slot: enough that a backlog on one endpoint still leaves room for others. */
export const CANDIDATES_PER_SLOT = 4;

/** A candidate as the shares see it. */
interface ClaimCandidate {
  endpointId: string;
  accountId: string;
}

/** The claimer's attempts in flight, counted as the shares count them; `take` counts one more. */
function counter(request: WebhookClaimRequest) {
  const endpoints = new Map<string, number>();
  const accounts = new Map<string, number>();
  const failingByAccount = new Map<string, number>();
  let failing = 0;
  const add = (map: Map<string, number>, id: string, count: number) => map.set(id, (map.get(id) ?? 0) + count);
  const take = (endpointId: string, accountId: string, count: number) => {
    add(endpoints, endpointId, count);
    add(accounts, accountId, count);
    if (!request.failing.has(endpointId)) return;
    add(failingByAccount, accountId, count);
    failing += count;
  };
  for (const [endpointId, { accountId, count }] of request.busy) take(endpointId, accountId, count);
  const { shares } = request;
  return {
    take,
    /** Whether one more attempt to this endpoint stays within every share. */
    allows(endpointId: string, accountId: string): boolean {
      if ((accounts.get(accountId) ?? 0) >= shares.perAccount) return false;
      if (!request.failing.has(endpointId)) return (endpoints.get(endpointId) ?? 0) < shares.perEndpoint;
      return (endpoints.get(endpointId) ?? 0) < 1 && (failingByAccount.get(accountId) ?? 0) < shares.failingPerAccount && failing < shares.failing;
    },
    accountsAtShare: () => [...accounts].filter(([, count]) => count >= shares.perAccount).map(([accountId]) => accountId),
  };
}

/**
 * What engines leave out of the candidates: the endpoints (failing ones included) and the
 * accounts already at their share. Otherwise a backlog there could fill every candidate and leave
 * other endpoints' deliveries unclaimed (regression: one receiver that never answered delayed
 * every other account's webhooks by minutes).
 */
export function saturated(request: WebhookClaimRequest): { endpoints: string[]; accounts: string[] } {
  const counts = counter(request);
  const endpoints = new Set<string>();
  for (const [endpointId, { accountId }] of request.busy) if (!counts.allows(endpointId, accountId)) endpoints.add(endpointId);
  for (const [endpointId, accountId] of request.failing) if (!counts.allows(endpointId, accountId)) endpoints.add(endpointId);
  return { endpoints: [...endpoints], accounts: counts.accountsAtShare() };
}

export function pickClaims<Row extends ClaimCandidate>(candidates: readonly Row[], request: WebhookClaimRequest): Row[] {
  const counts = counter(request);
  const picked: Row[] = [];
  for (const candidate of candidates) {
    if (picked.length >= request.limit) break;
    if (!counts.allows(candidate.endpointId, candidate.accountId)) continue;
    counts.take(candidate.endpointId, candidate.accountId, 1);
    picked.push(candidate);
  }
  return picked;
}
