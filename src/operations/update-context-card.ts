import { z } from 'zod';
import { contextCardSchema, contextCardScopes, contextCardTag, contextCardWriteFields } from './context-card-schemas.js';
import { defineKeyedOperation } from './operation.js';
import { changesSomething, expectedVersionSchema, idParams, oneFieldToChange } from './schemas.js';

export const updateContextCard = defineKeyedOperation({
  name: 'update_context_card',
  title: 'Update a context card',
  description:
    "Changes some fields of one of the caller's context cards (a partial update: send at least one field), writing a new version. Send `expected_version` to have it refused with 409 if someone changed the card since you read it. Changing a card that is a persona, or making one a persona, also needs the write:persona scope (else 403).",
  method: 'PATCH',
  path: '/context-cards/{id}',
  tag: contextCardTag,
  effect: 'write',
  successStatus: 200,
  scopes: contextCardScopes,
  params: idParams,
  body: z
    .strictObject({
      ...contextCardWriteFields,
      title: contextCardWriteFields.title.optional(),
      content: contextCardWriteFields.content.optional(),
      expected_version: expectedVersionSchema,
    })
    .refine(changesSomething, { message: 'send at least one field to change' })
    // The refinement as JSON Schema, so the document refuses what the server does.
    .meta(oneFieldToChange(Object.keys(contextCardWriteFields))),
  output: contextCardSchema,
  run: ({ id, expected_version, ...changes }, { core, caller }) => core.contextCards.forCaller(caller).update(id, changes, expected_version),
});
