/**
 * MCP resources: the caller's context cards at `porch://context-cards/{id}`, so a client can
 * attach them to a conversation. Listing and reading run the list_context_cards and
 * get_context_card operations through the shared invocation path: same scopes
 * (`api:context-cards` or `api:expert`), same rate limit, same 404 for another account's card.
 */
import type { ReadResourceResult, Resource, ResourceTemplateType } from '@modelcontextprotocol/server';
import type { Caller } from '../core/access/caller.js';
import { PorchError } from '../core/errors.js';
import { getContextCard } from '../operations/get-context-card.js';
import { isOperationAllowed } from '../operations/invoke.js';
import { listContextCards } from '../operations/list-context-cards.js';
import { invokeCapability, type CapabilityRequest } from './invoke-capability.js';

export const CONTEXT_CARD_URI_PREFIX = 'porch://context-cards/';
const CONTEXT_CARD_URI_TEMPLATE = `${CONTEXT_CARD_URI_PREFIX}{id}`;

/** Card content is free text; Porch does not know whether it is Markdown, so it says plain text. */
const CARD_MIME_TYPE = 'text/plain';

export const contextCardTemplate: ResourceTemplateType = {
  uriTemplate: CONTEXT_CARD_URI_TEMPLATE,
  name: 'context-card',
  title: 'Context card',
  description: 'One of your context cards (reusable prompt context). The id is the card id from list_context_cards.',
  mimeType: CARD_MIME_TYPE,
};

export function mayReadCards(caller: Caller): boolean {
  return isOperationAllowed(getContextCard, caller.credential.scopes);
}

/** Names of the version metadata in a card resource's `_meta` (MCP reserves unprefixed names). */
export const VERSION_META_KEY = 'porch/version';
export const UPDATED_AT_META_KEY = 'porch/updated_at';

/**
 * What a client may show about a card's freshness: its version number and last write. Cards are
 * versioned (every write numbers one) but have no labels, so there is nothing else to say.
 */
function versionFields(card: { version: number; updated_at: string }) {
  return { annotations: { lastModified: card.updated_at }, _meta: { [VERSION_META_KEY]: card.version, [UPDATED_AT_META_KEY]: card.updated_at } };
}

export function contextCardUri(id: string): string {
  return `${CONTEXT_CARD_URI_PREFIX}${id}`;
}

export async function listCardResources(request: CapabilityRequest): Promise<Resource[]> {
  const page = await invokeCapability(request, listContextCards, {});
  return page.items.map((card) => ({
    uri: contextCardUri(card.id),
    name: card.title,
    title: card.emoji ? `${card.emoji} ${card.title}` : card.title,
    ...(card.description ? { description: card.description } : {}),
    mimeType: CARD_MIME_TYPE,
    ...versionFields(card),
  }));
}

export async function readCardResource(request: CapabilityRequest, uri: string): Promise<ReadResourceResult> {
  if (!uri.startsWith(CONTEXT_CARD_URI_PREFIX))
    throw new PorchError('RESOURCE_NOT_FOUND', `No resource at ${uri}; context cards are at ${CONTEXT_CARD_URI_TEMPLATE}.`);
  let id: string;
  try {
    id = decodeURIComponent(uri.slice(CONTEXT_CARD_URI_PREFIX.length));
  } catch {
    throw new PorchError('VALIDATION_ERROR', `Invalid request: ${uri} is not a valid context card address.`);
  }
  // An address whose last part is no card id names no resource, as one outside the template does
  // (regression: get_context_card's refusal named its `id`, a parameter the client never sent).
  if (getContextCard.params?.safeParse({ id }).success !== true) {
    throw new PorchError('RESOURCE_NOT_FOUND', `No context card at ${uri}: a card's address ends with its id (a uuid), as resources/list gives it.`);
  }
  const card = await invokeCapability(request, getContextCard, { params: { id } });
  // Resource contents carry `_meta` but no annotations in the spec.
  return { contents: [{ uri, mimeType: CARD_MIME_TYPE, text: card.content, _meta: versionFields(card)._meta }] };
}
