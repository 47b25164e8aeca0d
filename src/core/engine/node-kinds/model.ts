/** `model`: calls a model with a prompt, optionally under a persona and a system message. */
import { z } from 'zod';
import type { ChatMessage } from '../../ai/tokenizer.js';
import {
  MAX_OUTPUT_TOKENS,
  nodeBaseFields,
  nodeModelSchema,
  optionalTemplateSchema,
  requiredTemplateSchema,
  resourceRefSchema,
  temperatureSchema,
} from '../definition-fields.js';
import type { NodeKind } from './node-kind.js';

export const modelNodeSchema = z
  .strictObject({
    ...nodeBaseFields,
    kind: z.literal('model').describe('Calls a model with a prompt.'),
    prompt: requiredTemplateSchema.describe('User message template, e.g. `List 3 facts about {{topic}}`.'),
    system: optionalTemplateSchema.optional().describe('System message template.'),
    persona: resourceRefSchema.optional().describe('Persona (id or bundle key) whose content becomes the system message, before `system`.'),
    model: nodeModelSchema.optional(),
    temperature: temperatureSchema.optional(),
    max_output_tokens: z
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(MAX_OUTPUT_TOKENS, `must be at most ${MAX_OUTPUT_TOKENS}`)
      .optional()
      .describe('Cap on the tokens the model may generate for this node.'),
  })
  .describe('A model call.');

export type ModelNode = z.output<typeof modelNodeSchema>;

export const modelNodeKind = {
  kind: 'model',
  schema: modelNodeSchema,
  templateFields: ['prompt', 'system'],
  resourceRefs: [{ field: 'persona', kind: 'persona' }],
  metered: true,
  async modelChoice(node) {
    return { requested: node.model };
  },
  async execute(node, services, ctx) {
    const persona = node.persona === undefined ? null : await services.getPersona(node.persona);
    const system = [persona?.content, node.system].filter((part): part is string => part !== undefined && part !== '').join('\n\n');
    const messages: ChatMessage[] = [...(system ? [{ role: 'system' as const, content: system }] : []), { role: 'user', content: node.prompt }];
    return services.callModel(messages, { requested: node.model }, { temperature: node.temperature, maxOutputTokens: node.max_output_tokens }, ctx);
  },
} satisfies NodeKind<ModelNode>;
