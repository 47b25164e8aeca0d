import { contextCardSchema, contextCardScopes, contextCardTag } from './context-card-schemas.js';
import { defineKeyedOperation } from './operation.js';
import { idParams } from './schemas.js';

export const getContextCard = defineKeyedOperation({
  name: 'get_context_card',
  title: 'Get a context card',
  description:
    "Reads one of the caller's context cards by id, with its full content. A card that is a persona also needs read:persona or execute:persona (else 403).",
  method: 'GET',
  path: '/context-cards/{id}',
  tag: contextCardTag,
  effect: 'read',
  successStatus: 200,
  scopes: contextCardScopes,
  params: idParams,
  output: contextCardSchema,
  run: ({ id }, { core, caller }) => core.contextCards.forCaller(caller).get(id),
});
