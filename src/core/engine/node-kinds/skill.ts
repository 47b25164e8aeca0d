/** `skill`: runs one of the caller's custom skills on an input. */
import { z } from 'zod';
import { nodeBaseFields, nodeModelSchema, nodeVariablesSchema, requiredTemplateSchema, resourceRefSchema } from '../definition-fields.js';
import type { NodeKind } from './node-kind.js';

export const skillNodeSchema = z
  .strictObject({
    ...nodeBaseFields,
    kind: z.literal('skill').describe("Runs one of the caller's custom skills."),
    skill: resourceRefSchema.describe('Skill id or bundle key.'),
    input: requiredTemplateSchema.describe('Template of the user message sent to the skill.'),
    variables: nodeVariablesSchema.optional().describe("Values for the skill's instruction variables: name -> template."),
    model: nodeModelSchema.optional(),
  })
  .describe('A custom skill call.');

export type SkillNode = z.output<typeof skillNodeSchema>;

export const skillNodeKind = {
  kind: 'skill',
  schema: skillNodeSchema,
  templateFields: ['input', 'variables'],
  resourceRefs: [{ field: 'skill', kind: 'skill' }],
  metered: true,
  async modelChoice(node, lookups) {
    return { requested: node.model, resourceDefault: (await lookups.getSkill(node.skill)).model };
  },
  async execute(node, services, ctx) {
    const skill = await services.getSkill(node.skill);
    ctx.ran({ id: skill.id, version: skill.version });
    return services.callModel(
      services.messages.skill(skill, node.input, node.variables ?? {}),
      { requested: node.model, resourceDefault: skill.model },
      {},
      ctx,
    );
  },
} satisfies NodeKind<SkillNode>;
