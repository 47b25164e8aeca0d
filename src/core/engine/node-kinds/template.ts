/** `template`: text rendered by the engine itself; no model call, no tokens. */
import { z } from 'zod';
import { nodeBaseFields, requiredTemplateSchema } from '../definition-fields.js';
import type { NodeKind } from './node-kind.js';

export const templateNodeSchema = z
  .strictObject({
    ...nodeBaseFields,
    kind: z.literal('template').describe('Renders a template; no model call, no tokens.'),
    template: requiredTemplateSchema.describe('Text template; its rendering is the node output.'),
  })
  .describe('A template rendered by the engine itself.');

export type TemplateNode = z.output<typeof templateNodeSchema>;

export const templateNodeKind = {
  kind: 'template',
  schema: templateNodeSchema,
  templateFields: ['template'],
  resourceRefs: [],
  metered: false,
  render: (node) => node.template,
} satisfies NodeKind<TemplateNode>;
