/** `persona`: runs one of the caller's personas on an input. */
import { z } from 'zod';
import { nodeBaseFields, nodeModelSchema, optionalTemplateSchema, requiredTemplateSchema, resourceRefSchema, temperatureSchema } from '../definition-fields.js';
import type { NodeKind } from './node-kind.js';

export const personaNodeSchema = z
  .strictObject({
    ...nodeBaseFields,
    kind: z.literal('persona').describe("Runs one of the caller's personas."),
    persona: resourceRefSchema.describe('Persona id or bundle key.'),
    input: requiredTemplateSchema.describe('Template of the user message.'),
    context: optionalTemplateSchema.optional().describe('Template appended to the user message after a blank line.'),
    model: nodeModelSchema.optional(),
    temperature: temperatureSchema.optional(),
  })
  .describe('A persona call.');

export type PersonaNode = z.output<typeof personaNodeSchema>;

export const personaNodeKind = {
  kind: 'persona',
  schema: personaNodeSchema,
  templateFields: ['input', 'context'],
  resourceRefs: [{ field: 'persona', kind: 'persona' }],
  metered: true,
  async modelChoice(node) {
    return { requested: node.model };
  },
  async execute(node, services, ctx) {
    const persona = await services.getPersona(node.persona);
    ctx.ran({ id: persona.id, version: persona.version });
    return services.callModel(services.messages.persona(persona, node.input, node.context), { requested: node.model }, { temperature: node.temperature }, ctx);
  },
} satisfies NodeKind<PersonaNode>;
