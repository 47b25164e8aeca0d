/**
 * The workflow definition: declared variables, a list of nodes and the outputs. Operators import
 * it from a YAML or JSON bundle; the engine (run-workflow.ts) runs it.
 *
 * A node reads workflow variables and upstream node outputs through `{{ name }}` references in
 * its template fields; those references are its dependencies, so there is no separate edge list
 * to keep in sync. A definition is checked when it is saved (validateWorkflowDefinition): every
 * reference must name a declared variable or another node, and the graph must be acyclic.
 *
 * Resource references (`skill`, `composition`, `persona`) are plain strings: a resource id or a
 * key local to the import bundle. This module never resolves them; definitionResourceRefs finds
 * them and mapResourceRefs rewrites them (bundle keys to ids at import time).
 */
import { z } from 'zod';
import { PorchError } from '../errors.js';
import { parseTemplate } from './template.js';

// Limits. A definition is operator-written configuration that every run walks, so each
// dimension is bounded to keep a run's bookkeeping, its trace and its error messages small.

/** A hand-built pipeline rarely exceeds a few dozen steps; 200 bounds the per-run trace and work. */
export const MAX_NODES = 200;
/** Declared inputs are filled in by a caller; more than 100 is a form nobody fills in. */
export const MAX_VARIABLES = 100;
/** Node ids, variable names and output names appear in templates, traces and error messages. */
export const MAX_IDENTIFIER_LENGTH = 64;
/** About 12,000 tokens of prompt per field; longer material belongs in a variable or a card. */
export const MAX_TEMPLATE_LENGTH = 50_000;
/** A resource id is a 36-character uuid; bundle keys get room for readable names. */
export const MAX_RESOURCE_REF_LENGTH = 200;
/** Model ids are `<provider>/<model_name>`; the longest real ones are well under 200 characters. */
export const MAX_MODEL_ID_LENGTH = 200;
/** Variables a skill or composition node passes on; a resource declares far fewer. */
export const MAX_NODE_VARIABLES = 50;
/** Each output is one field of the response; 50 is more than any caller reads. */
export const MAX_OUTPUTS = 50;
/** Descriptions are one or two sentences shown in listings and tool descriptions. */
export const MAX_DESCRIPTION_LENGTH = 1_000;
/** The largest output cap offered by current models; credits are reserved against this cap. */
export const MAX_OUTPUT_TOKENS = 128_000;
/** A message listing every problem of a large bad definition would bury the first one. */
const MAX_REPORTED_ISSUES = 10;

/** Names usable inside `{{ }}`: the template language's identifier. */
export const IDENTIFIER_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const MODEL_ID_PATTERN = /^[^/\s]+\/\S+$/;

const identifierSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_IDENTIFIER_LENGTH, `must be at most ${MAX_IDENTIFIER_LENGTH} characters`)
  .regex(
    IDENTIFIER_PATTERN,
    'must start with a letter or underscore and contain only letters, digits, "_" and "-"',
  );

const requiredTemplateSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_TEMPLATE_LENGTH, `must be at most ${MAX_TEMPLATE_LENGTH} characters`);

const optionalTemplateSchema = z
  .string()
  .max(MAX_TEMPLATE_LENGTH, `must be at most ${MAX_TEMPLATE_LENGTH} characters`);

const resourceRefSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_RESOURCE_REF_LENGTH, `must be at most ${MAX_RESOURCE_REF_LENGTH} characters`);

const modelIdSchema = z
  .string()
  .max(MAX_MODEL_ID_LENGTH, `must be at most ${MAX_MODEL_ID_LENGTH} characters`)
  .regex(MODEL_ID_PATTERN, 'must be a model id of the form <provider>/<model_name>')
  .describe('Model id `<provider>/<model_name>` (e.g. `echo/echo`); omit for the default model.');

const temperatureSchema = z
  .number()
  .min(0, 'must be between 0 and 1')
  .max(1, 'must be between 0 and 1')
  .describe('Sampling temperature, 0 (deterministic) to 1 (most varied).');

const nodeVariablesSchema = z
  .record(z.string().regex(IDENTIFIER_PATTERN, 'must be an identifier'), optionalTemplateSchema)
  .refine((value) => Object.keys(value).length <= MAX_NODE_VARIABLES, {
    message: `at most ${MAX_NODE_VARIABLES} variables`,
  });

const nodeBase = {
  id: identifierSchema.describe(
    'Node id, unique in the workflow; other nodes read this node\'s output as `{{id}}`.',
  ),
  description: z
    .string()
    .max(MAX_DESCRIPTION_LENGTH, `must be at most ${MAX_DESCRIPTION_LENGTH} characters`)
    .optional()
    .describe('What the step does, for people reading the workflow.'),
};

export const modelNodeSchema = z
  .strictObject({
    ...nodeBase,
    kind: z.literal('model').describe('Calls a model with a prompt.'),
    prompt: requiredTemplateSchema.describe('User message template, e.g. `List 3 facts about {{topic}}`.'),
    system: optionalTemplateSchema.optional().describe('System message template.'),
    persona: resourceRefSchema
      .optional()
      .describe('Persona (id or bundle key) whose content becomes the system message, before `system`.'),
    model: modelIdSchema.optional(),
    temperature: temperatureSchema.optional(),
    max_output_tokens: z
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(MAX_OUTPUT_TOKENS, `must be at most ${MAX_OUTPUT_TOKENS}`)
      .optional()
      .describe('Cap on the tokens the model may generate for this node.'),
  })
  .describe('A model call.');

export const templateNodeSchema = z
  .strictObject({
    ...nodeBase,
    kind: z.literal('template').describe('Renders a template; no model call, no tokens.'),
    template: requiredTemplateSchema.describe('Text template; its rendering is the node output.'),
  })
  .describe('A template rendered by the engine itself.');

export const skillNodeSchema = z
  .strictObject({
    ...nodeBase,
    kind: z.literal('skill').describe("Runs one of the caller's custom skills."),
    skill: resourceRefSchema.describe('Skill id or bundle key.'),
    input: requiredTemplateSchema.describe('Template of the user message sent to the skill.'),
    variables: nodeVariablesSchema
      .optional()
      .describe("Values for the skill's instruction variables: name -> template."),
    model: modelIdSchema.optional(),
  })
  .describe('A custom skill call.');

export const compositionNodeSchema = z
  .strictObject({
    ...nodeBase,
    kind: z.literal('composition').describe("Runs one of the caller's prompt compositions."),
    composition: resourceRefSchema.describe('Composition id or bundle key.'),
    variables: nodeVariablesSchema
      .optional()
      .describe("Values for the composition's variables: name -> template."),
    model: modelIdSchema.optional(),
  })
  .describe('A prompt composition call.');

export const personaNodeSchema = z
  .strictObject({
    ...nodeBase,
    kind: z.literal('persona').describe("Runs one of the caller's personas."),
    persona: resourceRefSchema.describe('Persona id or bundle key.'),
    input: requiredTemplateSchema.describe('Template of the user message.'),
    context: optionalTemplateSchema
      .optional()
      .describe('Template appended to the user message after a blank line.'),
    model: modelIdSchema.optional(),
    temperature: temperatureSchema.optional(),
  })
  .describe('A persona call.');

export const sanitiseNodeSchema = z
  .strictObject({
    ...nodeBase,
    kind: z.literal('sanitise').describe("Scans text with the organisation's sanitiser rules."),
    text: requiredTemplateSchema.describe('Template of the text to scan.'),
  })
  .describe('A sanitiser scan; its output is the scan result object (findings, severity).');

export const judgeNodeSchema = z
  .strictObject({
    ...nodeBase,
    kind: z.literal('judge').describe('Scores a prompt or an output with the judge.'),
    prompt: requiredTemplateSchema.describe('Template of the text to judge.'),
    criteria: optionalTemplateSchema.optional().describe('Template of the criteria to judge against.'),
    model: modelIdSchema.optional(),
  })
  .describe('A judge step; its output is the judge result object (verdict, score, reasoning, suggestions).');

export const workflowNodeSchema = z
  .discriminatedUnion('kind', [
    modelNodeSchema,
    templateNodeSchema,
    skillNodeSchema,
    compositionNodeSchema,
    personaNodeSchema,
    sanitiseNodeSchema,
    judgeNodeSchema,
  ])
  .describe('One step of the workflow, by `kind`.');

export const variableDeclarationSchema = z
  .strictObject({
    name: identifierSchema.describe('Variable name, referenced in templates as `{{name}}`.'),
    required: z
      .boolean()
      .default(false)
      .describe('Whether callers must send a value; a run without it is rejected before it starts.'),
    default: z
      .union([z.string(), z.number(), z.boolean()])
      .optional()
      .describe('Value used when the caller sends none. Not allowed on a required variable.'),
    description: z
      .string()
      .max(MAX_DESCRIPTION_LENGTH, `must be at most ${MAX_DESCRIPTION_LENGTH} characters`)
      .optional()
      .describe('What the caller should put in the variable.'),
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
      .describe(
        'Output name -> node id. Omitted or empty: every node no other node reads, under its own id.',
      ),
  })
  .describe('A workflow: declared variables, a DAG of nodes and named outputs.');

export type VariableDeclaration = z.output<typeof variableDeclarationSchema>;
export type WorkflowNode = z.output<typeof workflowNodeSchema>;
export type WorkflowNodeKind = WorkflowNode['kind'];
export type ModelNode = z.output<typeof modelNodeSchema>;
export type TemplateNode = z.output<typeof templateNodeSchema>;
export type SkillNode = z.output<typeof skillNodeSchema>;
export type CompositionNode = z.output<typeof compositionNodeSchema>;
export type PersonaNode = z.output<typeof personaNodeSchema>;
export type SanitiseNode = z.output<typeof sanitiseNodeSchema>;
export type JudgeNode = z.output<typeof judgeNodeSchema>;
/** What an author writes (defaults not applied yet). */
export type WorkflowDefinitionInput = z.input<typeof workflowDefinitionSchema>;
/** A validated definition: defaults applied and `outputs` always present. */
export type WorkflowDefinition = Omit<z.output<typeof workflowDefinitionSchema>, 'outputs'> & {
  outputs: Record<string, string>;
};

// ---------------------------------------------------------------------------------------------
// Template fields

/**
 * Visits every template field of a node in a fixed order and builds a copy of the node with each
 * one replaced by `render(template, path)`. `path` names the field inside the node (`prompt`,
 * `variables.tone`). This one switch is the only place that knows which fields are templates.
 */
export function mapNodeTemplates(
  node: WorkflowNode,
  render: (template: string, path: string) => string,
): WorkflowNode {
  const optional = (template: string | undefined, path: string): string | undefined =>
    template === undefined ? undefined : render(template, path);
  const variables = (
    map: Record<string, string> | undefined,
  ): Record<string, string> | undefined => {
    if (map === undefined) return undefined;
    const rendered: Record<string, string> = {};
    for (const [name, template] of Object.entries(map)) {
      rendered[name] = render(template, `variables.${name}`);
    }
    return rendered;
  };
  switch (node.kind) {
    case 'model':
      return { ...node, prompt: render(node.prompt, 'prompt'), system: optional(node.system, 'system') };
    case 'template':
      return { ...node, template: render(node.template, 'template') };
    case 'skill':
      return { ...node, input: render(node.input, 'input'), variables: variables(node.variables) };
    case 'composition':
      return { ...node, variables: variables(node.variables) };
    case 'persona':
      return { ...node, input: render(node.input, 'input'), context: optional(node.context, 'context') };
    case 'sanitise':
      return { ...node, text: render(node.text, 'text') };
    case 'judge':
      return { ...node, prompt: render(node.prompt, 'prompt'), criteria: optional(node.criteria, 'criteria') };
  }
}

/** Every template field of a node, in the order mapNodeTemplates visits them. */
export function nodeTemplateFields(node: WorkflowNode): Array<{ path: string; template: string }> {
  const fields: Array<{ path: string; template: string }> = [];
  mapNodeTemplates(node, (template, path) => {
    fields.push({ path, template });
    return template;
  });
  return fields;
}

// ---------------------------------------------------------------------------------------------
// Resource references

export type ResourceRefKind = 'skill' | 'composition' | 'persona';

export interface ResourceRef {
  nodeId: string;
  kind: ResourceRefKind;
  ref: string;
}

/** Every resource a definition refers to, in node order. */
export function definitionResourceRefs(definition: WorkflowDefinition): ResourceRef[] {
  const refs: ResourceRef[] = [];
  for (const node of definition.nodes) {
    const nodeId = node.id;
    switch (node.kind) {
      case 'model':
        if (node.persona !== undefined) refs.push({ nodeId, kind: 'persona', ref: node.persona });
        break;
      case 'skill':
        refs.push({ nodeId, kind: 'skill', ref: node.skill });
        break;
      case 'composition':
        refs.push({ nodeId, kind: 'composition', ref: node.composition });
        break;
      case 'persona':
        refs.push({ nodeId, kind: 'persona', ref: node.persona });
        break;
      case 'template':
      case 'sanitise':
      case 'judge':
        break;
    }
  }
  return refs;
}

/**
 * A copy of the definition with every resource reference replaced by `replace(ref)`; the input is
 * not modified. Used at import time to turn bundle keys into resource ids.
 */
export function mapResourceRefs(
  definition: WorkflowDefinition,
  replace: (ref: ResourceRef) => string,
): WorkflowDefinition {
  const nodes = definition.nodes.map((node): WorkflowNode => {
    const nodeId = node.id;
    switch (node.kind) {
      case 'model':
        return node.persona === undefined
          ? { ...node }
          : { ...node, persona: replace({ nodeId, kind: 'persona', ref: node.persona }) };
      case 'skill':
        return { ...node, skill: replace({ nodeId, kind: 'skill', ref: node.skill }) };
      case 'composition':
        return {
          ...node,
          composition: replace({ nodeId, kind: 'composition', ref: node.composition }),
        };
      case 'persona':
        return { ...node, persona: replace({ nodeId, kind: 'persona', ref: node.persona }) };
      case 'template':
      case 'sanitise':
      case 'judge':
        return { ...node };
    }
  });
  return { ...definition, nodes };
}

// ---------------------------------------------------------------------------------------------
// Graph

/** A problem found in a definition, with the path of the offending field. */
export interface DefinitionIssue {
  /** `nodes[2].prompt`, `outputs.article`, or `` for the whole definition. */
  path: string;
  message: string;
}

/** The dependency graph of a definition, by node index. */
export interface WorkflowGraph {
  /** Index of each node id. */
  readonly indexById: ReadonlyMap<string, number>;
  /** For each node, the indices of the nodes it reads, each once, in order of first reference. */
  readonly dependencies: readonly (readonly number[])[];
}

/**
 * Builds the dependency graph from the nodes' references and reports what makes it unusable:
 * duplicate ids, names that are both a variable and a node, references to unknown names, and
 * cycles. Cycles are only looked for when the names are sound, since a graph with duplicate or
 * unknown names has no well-defined edges.
 */
export function analyseWorkflowGraph(
  definition: Pick<WorkflowDefinition, 'variables' | 'nodes'>,
  parsedTemplate: (template: string) => { references: readonly string[] } = parseTemplate,
): { graph: WorkflowGraph; issues: DefinitionIssue[] } {
  const issues: DefinitionIssue[] = [];
  const variableIndex = new Map<string, number>();
  definition.variables.forEach((variable, index) => {
    const first = variableIndex.get(variable.name);
    if (first !== undefined) {
      issues.push({
        path: `variables[${index}].name`,
        message: `duplicate variable "${variable.name}" (also variables[${first}])`,
      });
    } else {
      variableIndex.set(variable.name, index);
    }
    if (variable.required && variable.default !== undefined) {
      issues.push({
        path: `variables[${index}].default`,
        message: `a required variable cannot have a default (drop one of them)`,
      });
    }
  });

  const indexById = new Map<string, number>();
  definition.nodes.forEach((node, index) => {
    const first = indexById.get(node.id);
    if (first !== undefined) {
      issues.push({
        path: `nodes[${index}].id`,
        message: `duplicate node id "${node.id}" (also nodes[${first}])`,
      });
      return;
    }
    indexById.set(node.id, index);
    if (variableIndex.has(node.id)) {
      issues.push({
        path: `nodes[${index}].id`,
        message: `"${node.id}" is also a variable name; a name must mean one thing in templates`,
      });
    }
  });

  const dependencies = definition.nodes.map((node, index) => {
    const nodeDependencies: number[] = [];
    for (const field of nodeTemplateFields(node)) {
      for (const name of parsedTemplate(field.template).references) {
        const dependency = indexById.get(name);
        if (dependency !== undefined) {
          if (!nodeDependencies.includes(dependency)) nodeDependencies.push(dependency);
        } else if (!variableIndex.has(name)) {
          const suggestion = closestName(name, [...variableIndex.keys(), ...indexById.keys()]);
          issues.push({
            path: `nodes[${index}].${field.path}`,
            message:
              `references unknown name "${name}"` +
              (suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`),
          });
        }
      }
    }
    return nodeDependencies;
  });

  const graph: WorkflowGraph = { indexById, dependencies };
  if (issues.length === 0) {
    const cycle = findCycle(graph);
    if (cycle !== undefined) {
      const names = cycle.map((index) => definition.nodes[index]?.id ?? String(index));
      issues.push({
        path: 'nodes',
        message: `dependency cycle ${names.join(' -> ')} (each node reads the one before it)`,
      });
    }
  }
  return { graph, issues };
}

/**
 * A cycle as node indices in data-flow order, first node repeated at the end (`a -> b -> a`: b
 * reads a, a reads b), or undefined for an acyclic graph. Kahn's algorithm removes every node
 * outside cycles; each node left has a dependency that is also left, so following dependencies
 * from one of them must come back to a node already seen.
 */
function findCycle(graph: WorkflowGraph): number[] | undefined {
  const count = graph.dependencies.length;
  const remainingDependencies = graph.dependencies.map((list) => list.length);
  const dependants: number[][] = graph.dependencies.map(() => []);
  graph.dependencies.forEach((list, index) => {
    for (const dependency of list) dependants[dependency]?.push(index);
  });
  const queue: number[] = [];
  remainingDependencies.forEach((remaining, index) => {
    if (remaining === 0) queue.push(index);
  });
  const removed = new Array<boolean>(count).fill(false);
  for (let head = 0; head < queue.length; head += 1) {
    const index = queue[head] ?? 0;
    removed[index] = true;
    for (const dependant of dependants[index] ?? []) {
      const remaining = (remainingDependencies[dependant] ?? 0) - 1;
      remainingDependencies[dependant] = remaining;
      if (remaining === 0) queue.push(dependant);
    }
  }
  if (queue.length === count) return undefined;

  const start = removed.indexOf(false);
  const positionInWalk = new Map<number, number>();
  const walk: number[] = [];
  let current = start;
  while (!positionInWalk.has(current)) {
    positionInWalk.set(current, walk.length);
    walk.push(current);
    const next = (graph.dependencies[current] ?? []).find((dependency) => !removed[dependency]);
    if (next === undefined) return undefined; // cannot happen: see the comment above
    current = next;
  }
  // The walk follows "reads" edges; reverse it so the message reads in data-flow order.
  const cycle = walk.slice(positionInWalk.get(current) ?? 0).reverse();
  // Start at the node defined first, so the message is the same however the walk began.
  const earliest = cycle.indexOf(Math.min(...cycle));
  const rotated = [...cycle.slice(earliest), ...cycle.slice(0, earliest)];
  const first = rotated[0];
  return first === undefined ? undefined : [...rotated, first];
}

/** The known name closest to a misspelt one, when it is close enough to be a likely typo. */
function closestName(name: string, candidates: readonly string[]): string | undefined {
  // Two edits catch transpositions and a dropped or doubled letter without suggesting noise.
  const maximumDistance = Math.min(2, Math.floor(name.length / 2));
  let best: string | undefined;
  let bestDistance = maximumDistance + 1;
  for (const candidate of candidates) {
    if (Math.abs(candidate.length - name.length) > maximumDistance) continue;
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance: Levenshtein plus adjacent transpositions. */
function editDistance(a: string, b: string): number {
  let previousPrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (previousPrevious[j - 2] ?? 0) + 1);
      }
      current.push(value);
    }
    previousPrevious = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}

// ---------------------------------------------------------------------------------------------
// Validation

/**
 * A definition that cannot be saved or run. A VALIDATION_ERROR whose message lists the problems
 * with their paths; `issues` holds them all for callers that format them differently.
 */
export class WorkflowDefinitionError extends PorchError {
  readonly issues: readonly DefinitionIssue[];

  constructor(issues: readonly DefinitionIssue[]) {
    const shown = issues.slice(0, MAX_REPORTED_ISSUES).map(formatIssue);
    const hidden = issues.length - shown.length;
    super(
      'VALIDATION_ERROR',
      `Invalid workflow definition: ${shown.join('; ')}${hidden > 0 ? `; and ${hidden} more` : ''}`,
    );
    this.issues = issues;
  }
}

function formatIssue(issue: DefinitionIssue): string {
  return issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`;
}

function joinPath(prefix: string, path: readonly PropertyKey[]): string {
  let text = prefix;
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text === '' ? String(key) : `.${String(key)}`;
  }
  return text;
}

export interface ValidateWorkflowDefinitionOptions {
  /** Prepended to every issue path, e.g. `workflows[2].definition` when checking a bundle. */
  pathPrefix?: string;
}

/**
 * Parses and checks a definition. Answers the validated definition (defaults applied, `outputs`
 * filled in when omitted) or throws WorkflowDefinitionError (VALIDATION_ERROR) naming the path
 * of each problem, e.g. `nodes[2].prompt: references unknown name "drfat"`.
 */
export function validateWorkflowDefinition(
  input: unknown,
  options: ValidateWorkflowDefinitionOptions = {},
): WorkflowDefinition {
  const prefix = options.pathPrefix ?? '';
  const withPrefix = (issue: DefinitionIssue): DefinitionIssue => ({
    path: prefix === '' ? issue.path : issue.path === '' ? prefix : `${prefix}.${issue.path}`,
    message: issue.message,
  });

  const parsed = workflowDefinitionSchema.safeParse(input);
  if (!parsed.success) {
    throw new WorkflowDefinitionError(
      parsed.error.issues.map((issue) => ({ path: joinPath(prefix, issue.path), message: issue.message })),
    );
  }
  const definition = parsed.data;
  const { graph, issues } = analyseWorkflowGraph(definition);

  let outputs = definition.outputs;
  if (outputs !== undefined && Object.keys(outputs).length > 0) {
    for (const [name, nodeId] of Object.entries(outputs)) {
      if (!graph.indexById.has(nodeId)) {
        const suggestion = closestName(nodeId, [...graph.indexById.keys()]);
        issues.push({
          path: `outputs.${name}`,
          message:
            `references unknown node "${nodeId}"` +
            (suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`),
        });
      }
    }
  } else {
    outputs = sinkOutputs(definition.nodes, graph);
  }
  if (issues.length > 0) throw new WorkflowDefinitionError(issues.map(withPrefix));
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
