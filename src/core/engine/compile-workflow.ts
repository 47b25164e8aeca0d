/**
 * Turns a definition into what the scheduler needs: parsed templates, in-degree counters and
 * dependant lists. Done once per definition object (cached in a WeakMap), so a run pays only for
 * rendering and bookkeeping, never for parsing or graph analysis.
 */
import { mapNodeTemplates, nodeTemplateFields } from './node-fields.js';
import { nodeKindOf, type WorkflowNode } from './node-kinds/index.js';
import type { NodeKind } from './node-kinds/node-kind.js';
import { WorkflowDefinitionError } from './workflow-definition.js';
import { analyseWorkflowGraph } from './workflow-graph.js';
import type { VariableDeclaration, WorkflowDefinition } from './workflow-schema.js';
import { MissingVariableError, parseTemplate, renderTemplate, type CompiledTemplate, type TemplateLookup } from './template.js';

export interface CompiledNode {
  readonly node: WorkflowNode;
  /** The node's kind from the registry, looked up once. */
  readonly kind: NodeKind<WorkflowNode>;
  /** Parsed template fields, in the order mapNodeTemplates visits them. */
  readonly templates: readonly CompiledTemplate[];
  /** How many distinct nodes this one reads; it is ready when that many have completed. */
  readonly dependencyCount: number;
  /** Indices of the nodes that read this one. */
  readonly dependants: readonly number[];
}

export interface CompiledWorkflow {
  readonly definition: WorkflowDefinition;
  readonly variables: readonly VariableDeclaration[];
  readonly nodes: readonly CompiledNode[];
  /** Nodes without dependencies, in definition order: where every run starts. */
  readonly roots: readonly number[];
  /** Output name and the index of the node that produces it. */
  readonly outputs: ReadonlyArray<readonly [name: string, nodeIndex: number]>;
}

// Keyed by the definition object: callers that keep a definition (a loaded workflow) compile it
// once. Definitions are treated as immutable; mapResourceRefs returns a new object.
const compiledWorkflows = new WeakMap<WorkflowDefinition, CompiledWorkflow>();

/**
 * Compiles a definition (cached per definition object). Throws WorkflowDefinitionError when the
 * graph is unusable, so a definition that skipped validateWorkflowDefinition still cannot run
 * with a cycle or a dangling reference.
 */
export function compileWorkflow(definition: WorkflowDefinition): CompiledWorkflow {
  const cached = compiledWorkflows.get(definition);
  if (cached !== undefined) return cached;

  // Identical template text (common in generated workflows) is parsed once.
  const parsed = new Map<string, CompiledTemplate>();
  const parse = (template: string): CompiledTemplate => {
    let compiled = parsed.get(template);
    if (compiled === undefined) {
      compiled = parseTemplate(template);
      parsed.set(template, compiled);
    }
    return compiled;
  };

  const { graph, issues } = analyseWorkflowGraph(definition, parse);
  const outputs: Array<readonly [string, number]> = [];
  for (const [name, nodeId] of Object.entries(definition.outputs)) {
    const index = graph.indexById.get(nodeId);
    if (index === undefined) {
      issues.push({ path: ['outputs', name], message: `references unknown node "${nodeId}"` });
    } else {
      outputs.push([name, index]);
    }
  }
  if (issues.length > 0) throw new WorkflowDefinitionError(issues);

  const dependants: number[][] = definition.nodes.map(() => []);
  graph.dependencies.forEach((list, index) => {
    for (const dependency of list) dependants[dependency]?.push(index);
  });
  const nodes = definition.nodes.map(
    (node, index): CompiledNode => ({
      node,
      kind: nodeKindOf(node.kind),
      templates: nodeTemplateFields(node).map((field) => parse(field.template)),
      dependencyCount: graph.dependencies[index]?.length ?? 0,
      dependants: dependants[index] ?? [],
    }),
  );
  const roots: number[] = [];
  nodes.forEach((node, index) => {
    if (node.dependencyCount === 0) roots.push(index);
  });

  const compiled: CompiledWorkflow = {
    definition,
    variables: definition.variables,
    nodes,
    roots,
    outputs,
  };
  compiledWorkflows.set(definition, compiled);
  return compiled;
}

/**
 * The node with every template field rendered from `lookup`. Throws one MissingVariableError
 * naming every missing reference across all of the node's fields.
 */
export function renderNode(compiled: CompiledNode, lookup: TemplateLookup): WorkflowNode {
  const missing: string[] = [];
  let position = 0;
  const rendered = mapNodeTemplates(compiled.node, (template) => {
    const parsedTemplate = compiled.templates[position] ?? parseTemplate(template);
    position += 1;
    try {
      return renderTemplate(parsedTemplate, lookup);
    } catch (err) {
      if (!(err instanceof MissingVariableError)) throw err;
      for (const name of err.missing) if (!missing.includes(name)) missing.push(name);
      return '';
    }
  });
  if (missing.length > 0) throw new MissingVariableError(missing);
  return rendered;
}
