/**
 * Completions for MCP clients (`completion/complete`): the values an argument may take that match
 * what the user typed so far. A prompt's `version` and `label` complete to that resource's version
 * numbers and labels; a context card address completes to the ids of the caller's cards. Each
 * answer is limited to what the key may read: a key without the card scopes gets no card ids (and
 * without a persona read scope none of a persona's card), one without a kind's read scope no
 * values for that kind's prompts, and an unknown prompt none.
 */
import { z } from 'zod';
import { grantsAny } from '../core/access/scopes.js';
import { contextCardScopes } from './context-card-schemas.js';
import { defineKeyedOperation } from './operation.js';
import { promptKindsOf, promptNameSchema, promptScopes, promptTag } from './prompt-schemas.js';

/** MCP allows at most 100 values per answer; `total` and `has_more` tell the client about the rest. */
export const MAX_COMPLETION_VALUES = 100;

export const completeArgument = defineKeyedOperation({
  name: 'complete_argument',
  title: 'Complete an argument',
  description: 'Suggests values for a prompt argument (versions, labels) or a context card id, from the value typed so far: the MCP completions capability.',
  method: 'POST',
  path: '/completions',
  tag: promptTag,
  effect: 'read',
  successStatus: 200,
  exposure: ['mcp-prompt'],
  scopes: [...promptScopes, ...contextCardScopes],
  body: z.object({
    ref: z
      .discriminatedUnion('type', [
        z.object({ type: z.literal('prompt'), name: promptNameSchema }),
        z.object({ type: z.literal('context-card').describe('The context card address, porch://context-cards/{id}; its argument is `id`.') }),
      ])
      .describe('What the argument belongs to.'),
    argument: z
      .object({
        name: z.string().min(1).max(200).describe('Argument name.'),
        value: z.string().max(1_000).describe('What the user typed so far (may be empty).'),
      })
      .describe('The argument being completed.'),
  }),
  output: z.object({
    values: z.array(z.string()).max(MAX_COMPLETION_VALUES).describe(`Matching values, best first; at most ${MAX_COMPLETION_VALUES}.`),
    total: z.number().int().nonnegative().describe('How many values match in all.'),
    has_more: z.boolean().describe('Whether there are more matching values than listed.'),
  }),
  run: async ({ ref, argument }, { core, caller }) => {
    const accountId = caller.account.id;
    let matching: string[] = [];
    if (ref.type === 'prompt') matching = await core.prompts.complete(accountId, promptKindsOf(caller), ref.name, argument.name, argument.value);
    else if (argument.name === 'id' && grantsAny(caller.credential.scopes, contextCardScopes))
      matching = await core.contextCards.forCaller(caller).completeIds(argument.value);
    return { values: matching.slice(0, MAX_COMPLETION_VALUES), total: matching.length, has_more: matching.length > MAX_COMPLETION_VALUES };
  },
});
