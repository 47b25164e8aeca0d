/**
 * Per-account quotas on what an account may hold, per kind of content (DECISIONS: lists return
 * every owned item, and quotas bound what "every" can cost: the list's time, the database's size,
 * one import's reach). The store checks them in the transaction that writes.
 */
import type { ContentKind, ContentQuotas, QuotaExcess } from '../../db/store.js';
import { PorchError } from '../errors.js';

export { CONTENT_KINDS } from '../../db/store.js';

const MIB = 1024 * 1024;

/**
 * Defaults sized for people, not machines: ten thousand context cards (personas included) is
 * years of prompt writing, and 64 MiB of them lists in well under a second. Compositions, skills
 * and workflows are fewer and larger per item than most cards. Operators raise them in
 * `limits.quotas` of porch.config.yaml.
 */
export const DEFAULT_QUOTAS: ContentQuotas = {
  contextCards: { maxItems: 10_000, maxBytes: 64 * MIB },
  compositions: { maxItems: 2_000, maxBytes: 32 * MIB },
  skills: { maxItems: 2_000, maxBytes: 32 * MIB },
  workflows: { maxItems: 2_000, maxBytes: 32 * MIB },
};

/** How each kind is named to people, and under which key of `limits.quotas` it is configured. */
export const QUOTA_KIND_NAMES: Record<ContentKind, { label: string; setting: string }> = {
  contextCards: { label: 'context cards (personas included)', setting: 'context_cards' },
  compositions: { label: 'compositions', setting: 'compositions' },
  skills: { label: 'skills', setting: 'skills' },
  workflows: { label: 'workflows', setting: 'workflows' },
};

function formatBytes(bytes: number): string {
  return bytes >= MIB ? `${(bytes / MIB).toFixed(1)} MiB` : `${bytes.toLocaleString('en-US')} bytes`;
}

/** The refusal of a write that would take the account over a quota; says which, and by how much. */
export function quotaExceededError(excess: QuotaExcess): PorchError {
  const { label } = QUOTA_KIND_NAMES[excess.kind];
  const overItems = excess.items > excess.quota.maxItems;
  const detail = overItems
    ? `${excess.items.toLocaleString('en-US')} items, over the quota of ${excess.quota.maxItems.toLocaleString('en-US')}`
    : `${formatBytes(excess.bytes)}, over the quota of ${formatBytes(excess.quota.maxBytes)}`;
  return new PorchError('QUOTA_EXCEEDED', `This would bring the account's ${label} to ${detail}. Nothing was written.`);
}
