/** `judge`: scores a prompt or an output with the judge, which calls a model. */
import { z } from 'zod';
import { nodeBaseFields, nodeModelSchema, optionalTemplateSchema, requiredTemplateSchema } from '../definition-fields.js';
import type { NodeKind } from './node-kind.js';

export const judgeNodeSchema = z
  .strictObject({
    ...nodeBaseFields,
    kind: z.literal('judge').describe('Scores a prompt or an output with the judge.'),
    prompt: requiredTemplateSchema.describe('Template of the text to judge.'),
    criteria: optionalTemplateSchema.optional().describe('Template of the criteria to judge against.'),
    model: nodeModelSchema.optional(),
  })
  .describe('A judge step; its output is the judge result object (verdict, score, reasoning, suggestions).');

export type JudgeNode = z.output<typeof judgeNodeSchema>;

export const judgeNodeKind = {
  kind: 'judge',
  schema: judgeNodeSchema,
  templateFields: ['prompt', 'criteria'],
  resourceRefs: [],
  metered: true,
  async modelChoice(node) {
    return { requested: node.model };
  },
  async execute(node, services, ctx) {
    return services.judge({ prompt: node.prompt, criteria: node.criteria, model: node.model }, ctx);
  },
} satisfies NodeKind<JudgeNode>;
