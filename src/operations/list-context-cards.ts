import { contextCardSchema, contextCardScopes, contextCardTag } from './context-card-schemas.js';
import { defineKeyedOperation } from './operation.js';
import { listOf, pageQuery } from './schemas.js';

export const listContextCards = defineKeyedOperation({
  name: 'list_context_cards',
  title: 'List context cards',
  description:
    "Lists the caller's context cards (reusable prompt context, personas included), newest first. Personas' cards are listed only for a key holding read:persona or execute:persona; without either they are left out.",
  method: 'GET',
  path: '/context-cards',
  tag: contextCardTag,
  effect: 'read',
  successStatus: 200,
  scopes: contextCardScopes,
  query: pageQuery,
  output: listOf(contextCardSchema, 'context cards'),
  run: (input, { core, caller }) => core.contextCards.forCaller(caller).list(input),
  streamItems: (input, { core, caller }) => core.contextCards.forCaller(caller).pages(input.cursor),
});
