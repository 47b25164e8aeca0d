/**
 * The fields of a node that the definition format gives a meaning, read from each kind's
 * declaration in the registry: template fields (rendered before a run, and the source of every
 * dependency) and resource references (a resource id or a bundle key, rewritten at import).
 */
import type { ResourceRefKind } from './node-kinds/node-kind.js';
import { nodeKindOf, type WorkflowNode } from './node-kinds/index.js';
import type { WorkflowDefinition } from './workflow-schema.js';

/** Where a template sits in its node: a text field, or one entry of a map field (`variables.tone`). */
export type TemplatePath = readonly [field: string] | readonly [field: string, name: string];

/**
 * A copy of the node with each template field replaced by `render(template, field, name)`, in the
 * kind's declared order; `name` is the entry's name in a map field. The node is not modified.
 */
function renderTemplateFields(node: WorkflowNode, render: (template: string, field: string, name: string | undefined) => string): WorkflowNode {
  const copy = { ...node };
  // The kind's declaration names only fields that hold a template or a map of them.
  const fields: Record<string, unknown> = copy;
  for (const field of nodeKindOf(node.kind).templateFields) {
    const value = fields[field];
    if (typeof value === 'string') {
      fields[field] = render(value, field, undefined);
    } else if (typeof value === 'object' && value !== null) {
      const rendered: Record<string, string> = {};
      for (const [name, template] of Object.entries(value)) {
        if (typeof template !== 'string') throw new TypeError(`${node.kind}.${field}.${name} is not a template`);
        rendered[name] = render(template, field, name);
      }
      fields[field] = rendered;
    }
  }
  return copy;
}

/**
 * Visits every template field of a node in a fixed order and builds a copy of the node with each
 * one replaced by `render(template, path)`. `path` names the field inside the node (`prompt`,
 * `variables.tone`).
 */
export function mapNodeTemplates(node: WorkflowNode, render: (template: string, path: string) => string): WorkflowNode {
  return renderTemplateFields(node, (template, field, name) => render(template, name === undefined ? field : `${field}.${name}`));
}

export interface NodeTemplateField {
  /** `prompt`, `variables.tone`. */
  path: string;
  /** The same path as segments, for validation issues. */
  segments: TemplatePath;
  template: string;
}

/** Every template field of a node, in the order mapNodeTemplates visits them. */
export function nodeTemplateFields(node: WorkflowNode): NodeTemplateField[] {
  const fields: NodeTemplateField[] = [];
  renderTemplateFields(node, (template, field, name) => {
    fields.push(name === undefined ? { path: field, segments: [field], template } : { path: `${field}.${name}`, segments: [field, name], template });
    return template;
  });
  return fields;
}

export interface ResourceRef {
  nodeId: string;
  kind: ResourceRefKind;
  ref: string;
}

/** Every resource a definition refers to, in node order. */
export function definitionResourceRefs(definition: WorkflowDefinition): ResourceRef[] {
  const refs: ResourceRef[] = [];
  for (const node of definition.nodes) {
    const fields: Readonly<Record<string, unknown>> = node;
    for (const { field, kind } of nodeKindOf(node.kind).resourceRefs) {
      const ref = fields[field];
      if (typeof ref === 'string') refs.push({ nodeId: node.id, kind, ref });
    }
  }
  return refs;
}

/**
 * A copy of the definition with every resource reference replaced by `replace(ref)`; the input is
 * not modified. Used at import time to turn bundle keys into resource ids.
 */
export function mapResourceRefs(definition: WorkflowDefinition, replace: (ref: ResourceRef) => string): WorkflowDefinition {
  const nodes = definition.nodes.map((node): WorkflowNode => {
    const copy = { ...node };
    // The kind's declaration names only fields that hold a resource reference.
    const fields: Record<string, unknown> = copy;
    for (const { field, kind } of nodeKindOf(node.kind).resourceRefs) {
      const ref = fields[field];
      if (typeof ref === 'string') fields[field] = replace({ nodeId: node.id, kind, ref });
    }
    return copy;
  });
  return { ...definition, nodes };
}
