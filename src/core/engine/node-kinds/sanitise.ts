/** `sanitise`: scans text with the organisation's sanitiser rules; no model call. */
import { z } from 'zod';
import { nodeBaseFields, requiredTemplateSchema } from '../definition-fields.js';
import type { NodeKind } from './node-kind.js';

export const sanitiseNodeSchema = z
  .strictObject({
    ...nodeBaseFields,
    kind: z.literal('sanitise').describe("Scans text with the organisation's sanitiser rules."),
    text: requiredTemplateSchema.describe('Template of the text to scan.'),
  })
  .describe('A sanitiser scan; its output is the scan result object (findings, severity, truncated).');

export type SanitiseNode = z.output<typeof sanitiseNodeSchema>;

export const sanitiseNodeKind = {
  kind: 'sanitise',
  schema: sanitiseNodeSchema,
  templateFields: ['text'],
  resourceRefs: [],
  metered: false,
  async execute(node, services, ctx) {
    return { output: await services.scan(node.text, ctx) };
  },
} satisfies NodeKind<SanitiseNode>;
