import { z } from 'zod';
import { contextCardSchema, contextCardScopes, contextCardTag, contextCardWriteFields } from './context-card-schemas.js';
import { defineKeyedOperation } from './operation.js';

export const createContextCard = defineKeyedOperation({
  name: 'create_context_card',
  title: 'Create a context card',
  description:
    'Creates a context card owned by the caller. title and content are required; category "persona" makes it a persona, which also needs the write:persona scope (else 403).',
  method: 'POST',
  path: '/context-cards',
  tag: contextCardTag,
  effect: 'write',
  successStatus: 201,
  scopes: contextCardScopes,
  body: z.strictObject(contextCardWriteFields),
  output: contextCardSchema,
  run: (input, { core, caller }) => core.contextCards.forCaller(caller).create(input),
});
