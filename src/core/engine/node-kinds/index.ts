/**
 * The registry of node kinds. Adding a kind is one module beside this one (see node-kind.ts for
 * what it states) and one entry in NODE_KINDS; the definition schema, template rendering,
 * dependency analysis, bundle import, credit checks and the runner all read it from here.
 */
import { z } from 'zod';
import { discriminatorError } from '../../validation.js';
import { compositionNodeKind } from './composition.js';
import { judgeNodeKind } from './judge.js';
import { modelNodeKind } from './model.js';
import type { ModelChoice, NodeExecutionContext, NodeExecutionResult, NodeKind, NodeServices, ResourceLookups } from './node-kind.js';
import { personaNodeKind } from './persona.js';
import { sanitiseNodeKind } from './sanitise.js';
import { skillNodeKind } from './skill.js';
import { templateNodeKind } from './template.js';

/** Every node kind, in the order the definition schema lists them. */
export const NODE_KINDS = [modelNodeKind, templateNodeKind, skillNodeKind, compositionNodeKind, personaNodeKind, sanitiseNodeKind, judgeNodeKind] as const;

type NodeSchemas<Kinds> = { -readonly [I in keyof Kinds]: Kinds[I] extends { schema: infer Schema } ? Schema : never };

/** The kinds' schemas as a tuple, so the union below keeps each variant's type. */
function nodeSchemas<Kinds extends readonly { schema: z.ZodType }[]>(kinds: Kinds): NodeSchemas<Kinds> {
  // map() cannot say that it keeps the tuple's positions; it does.
  return kinds.map((kind) => kind.schema) as NodeSchemas<Kinds>;
}

export const workflowNodeSchema = z
  .discriminatedUnion('kind', nodeSchemas(NODE_KINDS), { error: discriminatorError })
  .describe('One step of the workflow, by `kind`.');

export type WorkflowNode = z.output<typeof workflowNodeSchema>;
export type WorkflowNodeKind = WorkflowNode['kind'];

type RegisteredKind = (typeof NODE_KINDS)[number];
/** Kinds the engine computes itself (`template`). */
export type EngineRenderedKind = Extract<RegisteredKind, { render: unknown }>['kind'];
/** Every node of a kind that runs through NodeServices (all but the engine-rendered ones). */
export type ExecutableNode = Exclude<WorkflowNode, { kind: EngineRenderedKind }>;

/**
 * Runs one node. `resolved` is the node with every template field rendered from variables and
 * upstream outputs; switching on `resolved.kind` narrows both. Throw a PorchError for a failure
 * the caller may see.
 */
export type ExecuteNode = (node: ExecutableNode, resolved: ExecutableNode, ctx: NodeExecutionContext) => Promise<NodeExecutionResult>;

const kindsByName = new Map<string, NodeKind<WorkflowNode>>(NODE_KINDS.map((kind) => [kind.kind, kind]));

/** The kind of a node; throws for a kind the registry does not hold (a definition that skipped validation). */
export function nodeKindOf(kind: string): NodeKind<WorkflowNode> {
  const found = kindsByName.get(kind);
  if (found === undefined) throw new TypeError(`unknown workflow node kind "${kind}"`);
  return found;
}

export function isExecutableNode(node: WorkflowNode): node is ExecutableNode {
  return nodeKindOf(node.kind).execute !== undefined;
}

/**
 * The model choice of each metered node, before the run starts. A node whose choice cannot be
 * known (it names a resource that is gone) is left out: running it fails with that error.
 */
export async function meteredModelChoices(nodes: readonly WorkflowNode[], lookups: ResourceLookups): Promise<ModelChoice[]> {
  const choices: ModelChoice[] = [];
  for (const node of nodes) {
    const kind = nodeKindOf(node.kind);
    if (!kind.metered || kind.modelChoice === undefined) continue;
    try {
      choices.push(await kind.modelChoice(node, lookups));
    } catch {
      // The node fails when it runs, naming what is missing.
    }
  }
  return choices;
}

/** Whether running the node calls a model, and so spends credits. */
export function isMeteredNode(node: WorkflowNode): boolean {
  return nodeKindOf(node.kind).metered;
}

/** The ExecuteNode that runs each node by its kind's `execute`, with one run's services. */
export function executeNodeWith(services: NodeServices): ExecuteNode {
  return (_node, resolved, ctx) => {
    const kind: NodeKind<WorkflowNode> = nodeKindOf(resolved.kind);
    if (kind.execute === undefined) {
      return Promise.reject(new TypeError(`node kind "${resolved.kind}" is rendered by the engine, not executed`));
    }
    return kind.execute(resolved, services, ctx);
  };
}
