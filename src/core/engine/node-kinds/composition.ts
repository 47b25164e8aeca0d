/** `composition`: runs one of the caller's prompt compositions with variables. */
import { z } from 'zod';
import { nodeBaseFields, nodeModelSchema, nodeVariablesSchema, resourceRefSchema } from '../definition-fields.js';
import type { NodeKind } from './node-kind.js';

export const compositionNodeSchema = z
  .strictObject({
    ...nodeBaseFields,
    kind: z.literal('composition').describe("Runs one of the caller's prompt compositions."),
    composition: resourceRefSchema.describe('Composition id or bundle key.'),
    variables: nodeVariablesSchema.optional().describe("Values for the composition's variables: name -> template."),
    model: nodeModelSchema.optional(),
  })
  .describe('A prompt composition call.');

export type CompositionNode = z.output<typeof compositionNodeSchema>;

export const compositionNodeKind = {
  kind: 'composition',
  schema: compositionNodeSchema,
  templateFields: ['variables'],
  resourceRefs: [{ field: 'composition', kind: 'composition' }],
  metered: true,
  async modelChoice(node, lookups) {
    return { requested: node.model, resourceDefault: (await lookups.getComposition(node.composition)).defaultModel };
  },
  async execute(node, services, ctx) {
    const composition = await services.getComposition(node.composition);
    ctx.ran({ id: composition.id, version: composition.version });
    return services.callModel(
      services.messages.composition(composition, node.variables ?? {}),
      { requested: node.model, resourceDefault: composition.defaultModel },
      {},
      ctx,
    );
  },
} satisfies NodeKind<CompositionNode>;
