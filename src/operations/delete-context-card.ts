import { contextCardScopes, contextCardTag } from './context-card-schemas.js';
import { defineKeyedOperation } from './operation.js';
import { idParams } from './schemas.js';

export const deleteContextCard = defineKeyedOperation({
  name: 'delete_context_card',
  title: 'Delete a context card',
  description:
    "Deletes one of the caller's context cards for good (personas included: deleting a persona's card also needs the write:persona scope, else 403). Answers 204 with no body.",
  method: 'DELETE',
  path: '/context-cards/{id}',
  tag: contextCardTag,
  effect: 'destructive',
  successStatus: 204,
  scopes: contextCardScopes,
  params: idParams,
  output: null,
  run: ({ id }, { core, caller }) => core.contextCards.forCaller(caller).delete(id),
});
