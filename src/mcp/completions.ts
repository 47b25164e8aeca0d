/**
 * MCP completions (`completion/complete`): the complete_argument operation through the shared
 * invocation path (same scopes and rate limit as listing prompts and cards). This file only maps
 * MCP's references onto the operation's: a prompt by name, the context-card template by its URI
 * template. Anything Porch does not have, and a caller without a key or scope, gets no values.
 */
import type { CompleteRequest, CompleteResult } from '@modelcontextprotocol/server';
import type { Caller } from '../core/access/caller.js';
import { completeArgument } from '../operations/complete-argument.js';
import { isOperationAllowed } from '../operations/invoke.js';
import { invokeCapability, type CapabilityRequest } from './invoke-capability.js';
import { contextCardTemplate } from './resources.js';

/** The answer for everything Porch offers no values for: an empty list, never an error. */
export function noCompletion(): CompleteResult {
  return { completion: { values: [], total: 0, hasMore: false } };
}

export function mayComplete(caller: Caller | null): boolean {
  return caller !== null && isOperationAllowed(completeArgument, caller.credential.scopes);
}

export async function completeArgumentValues(request: CapabilityRequest, params: CompleteRequest['params']): Promise<CompleteResult> {
  const { ref, argument } = params;
  const target =
    ref.type === 'ref/prompt'
      ? { type: 'prompt' as const, name: ref.name }
      : ref.uri === contextCardTemplate.uriTemplate
        ? { type: 'context-card' as const }
        : undefined;
  if (target === undefined) return noCompletion();
  const answer = await invokeCapability(request, completeArgument, { body: { ref: target, argument } });
  return { completion: { values: answer.values, total: answer.total, hasMore: answer.has_more } };
}
