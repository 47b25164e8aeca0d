/**
 * Checking a workflow definition before it is saved or run: its schema (workflow-schema.ts and
 * each kind in node-kinds/), then its graph (workflow-graph.ts). Every reference must name a
 * declared variable or another node, the graph must be acyclic, and outputs must name nodes.
 *
 * This module is also where the rest of Porch imports the definition format from, so it
 * re-exports the parts the format is split into.
 */
import { PorchError } from '../errors.js';
import { formatIssues, plainIssues, type ValidationIssue } from '../validation.js';
import type { WorkflowNode } from './node-kinds/index.js';
import { analyseWorkflowGraph, closestName, type WorkflowGraph } from './workflow-graph.js';
import { workflowDefinitionSchema, type WorkflowDefinition } from './workflow-schema.js';

export {
  IDENTIFIER_PATTERN,
  MAX_DESCRIPTION_LENGTH,
  MAX_IDENTIFIER_LENGTH,
  MAX_NODE_VARIABLES,
  MAX_NODES,
  MAX_OUTPUT_TOKENS,
  MAX_OUTPUTS,
  MAX_RESOURCE_REF_LENGTH,
  MAX_TEMPLATE_LENGTH,
  MAX_VARIABLES,
} from './definition-fields.js';
export { MAX_MODEL_ID_LENGTH } from '../ai/model-id.js';
export * from './workflow-schema.js';
export * from './workflow-graph.js';
export * from './node-fields.js';
export type { ResourceRefKind } from './node-kinds/node-kind.js';
export {
  workflowNodeSchema,
  type WorkflowNode,
  type WorkflowNodeKind,
} from './node-kinds/index.js';
// Each kind's schema and node type, for code that names one kind.
export { modelNodeSchema, type ModelNode } from './node-kinds/model.js';
export { templateNodeSchema, type TemplateNode } from './node-kinds/template.js';
export { skillNodeSchema, type SkillNode } from './node-kinds/skill.js';
export { compositionNodeSchema, type CompositionNode } from './node-kinds/composition.js';
export { personaNodeSchema, type PersonaNode } from './node-kinds/persona.js';
export { sanitiseNodeSchema, type SanitiseNode } from './node-kinds/sanitise.js';
export { judgeNodeSchema, type JudgeNode } from './node-kinds/judge.js';

/** A problem found in a definition, with the path of the offending field written out. */
/**
 * A definition that cannot be saved or run: a VALIDATION_ERROR whose message lists the problems
 * with their paths; `issues` holds them all, rooted where the definition sits.
 */
export class WorkflowDefinitionError extends PorchError {
  readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly ValidationIssue[], root: readonly PropertyKey[] = []) {
    const rooted = issues.map((issue) => ({ path: [...root, ...issue.path], message: issue.message }));
    super('VALIDATION_ERROR', `Invalid workflow definition: ${formatIssues(rooted)}`);
    this.issues = rooted;
  }
}

export interface ValidateWorkflowDefinitionOptions {
  /** Where the definition sits, prepended to every issue path: `['workflows', 2]` in a bundle. */
  root?: readonly PropertyKey[];
}

/**
 * Parses and checks a definition. Answers the validated definition (defaults applied, `outputs`
 * filled in when omitted) or throws WorkflowDefinitionError (VALIDATION_ERROR) naming the path
 * of each problem, e.g. `nodes[2].prompt: references unknown name "drfat"`.
 */
export function validateWorkflowDefinition(input: unknown, options: ValidateWorkflowDefinitionOptions = {}): WorkflowDefinition {
  const root = options.root ?? [];
  const parsed = workflowDefinitionSchema.safeParse(input);
  // In Porch's words, as a request's problems are (regression: zod's own, `Invalid discriminator value`, reached the console's preview).
  if (!parsed.success) throw new WorkflowDefinitionError(plainIssues(parsed.error), root);
  const definition = parsed.data;
  const { graph, issues } = analyseWorkflowGraph(definition);

  let outputs = definition.outputs;
  if (outputs !== undefined && Object.keys(outputs).length > 0) {
    for (const [name, nodeId] of Object.entries(outputs)) {
      if (!graph.indexById.has(nodeId)) {
        const suggestion = closestName(nodeId, [...graph.indexById.keys()]);
        issues.push({
          path: ['outputs', name],
          message: `references unknown node "${nodeId}"${suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`}`,
        });
      }
    }
  } else {
    outputs = sinkOutputs(definition.nodes, graph);
  }
  if (issues.length > 0) throw new WorkflowDefinitionError(issues, root);
  return { ...definition, outputs };
}

/** The default outputs: each node no other node reads, under its own id. */
function sinkOutputs(nodes: readonly WorkflowNode[], graph: WorkflowGraph): Record<string, string> {
  const read = new Set<number>();
  for (const list of graph.dependencies) for (const index of list) read.add(index);
  const outputs: Record<string, string> = {};
  nodes.forEach((node, index) => {
    if (!read.has(index)) outputs[node.id] = node.id;
  });
  return outputs;
}
