/**
 * The workflow definition: declared variables, a list of nodes and the outputs. Operators import
 * it from a YAML or JSON bundle; the engine (run-workflow.ts) runs it.
 *
 * A node reads workflow variables and upstream node outputs through `{{ name }}` references in
 * its template fields; those references are its dependencies, so there is no separate edge list
 * to keep in sync. What each kind of node holds is stated by its module in node-kinds/.
 *
 * Resource references (`skill`, `composition`, `persona`) are plain strings: a resource id or a
 * key local to the import bundle. The definition never resolves them; node-fields.ts finds and
 * rewrites them (bundle keys to ids at import time).
 */
import { z } from 'zod';
import { descriptionSchema, IDENTIFIER_PATTERN, identifierSchema, MAX_NODES, MAX_OUTPUTS, MAX_VARIABLES } from './definition-fields.js';
import { workflowNodeSchema } from './node-kinds/index.js';

export const variableDeclarationSchema = z
  .strictObject({
    name: identifierSchema.describe('Variable name, referenced in templates as `{{name}}`.'),
    required: z.boolean().default(false).describe('Whether callers must send a value; a run without it is rejected before it starts.'),
    default: z.union([z.string(), z.number(), z.boolean()]).optional().describe('Value used when the caller sends none. Not allowed on a required variable.'),
    description: descriptionSchema.optional().describe('What the caller should put in the variable.'),
  })
  .describe('A declared input of the workflow.');

export const workflowDefinitionSchema = z
  .strictObject({
    variables: z
      .array(variableDeclarationSchema)
      .max(MAX_VARIABLES, `at most ${MAX_VARIABLES} variables`)
      .default([])
      .describe('Declared inputs; callers send values in the execute body `variables`.'),
    nodes: z
      .array(workflowNodeSchema)
      .min(1, 'a workflow needs at least one node')
      .max(MAX_NODES, `at most ${MAX_NODES} nodes`)
      .describe('The steps. Order is only the trace order; dependencies come from references.'),
    outputs: z
      .record(z.string().regex(IDENTIFIER_PATTERN, 'must be an identifier'), identifierSchema)
      .refine((value) => Object.keys(value).length <= MAX_OUTPUTS, {
        message: `at most ${MAX_OUTPUTS} outputs`,
      })
      .optional()
      .describe('Output name -> node id. Omitted or empty: every node no other node reads, under its own id.'),
  })
  .describe('A workflow: declared variables, a DAG of nodes and named outputs.');

export type VariableDeclaration = z.output<typeof variableDeclarationSchema>;
/** What an author writes (defaults not applied yet). */
export type WorkflowDefinitionInput = z.input<typeof workflowDefinitionSchema>;
/** A validated definition: defaults applied and `outputs` always present. */
export type WorkflowDefinition = Omit<z.output<typeof workflowDefinitionSchema>, 'outputs'> & {
  outputs: Record<string, string>;
};
