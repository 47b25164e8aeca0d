/**
 * Each versioned kind's definition: what an author writes (the bundle entry format, which the API's
 * create and update bodies share) and what a version of the resource holds (its record's content
 * fields). Import, the API and export convert through these functions only, so a definition is
 * checked the same way whichever door it came through, with the same field paths in messages.
 */
import type { z } from 'zod';
import type { CompositionRecord, CompositionVariable, ContextCardRecord, SkillRecord, WorkflowRecord } from '../../db/store.js';
import type { ExecutableResource } from '../access/scopes.js';
import { PERSONA_CATEGORY } from '../context-cards/context-cards.js';
import { templateReferences } from '../engine/template.js';
import {
  definitionResourceRefs,
  mapResourceRefs,
  validateWorkflowDefinition,
  WorkflowDefinitionError,
  type ResourceRef,
  type WorkflowDefinition,
} from '../engine/workflow-definition.js';
import type { ValidationIssue } from '../validation.js';
import {
  BUNDLE_LIMITS,
  type compositionEntrySchema,
  type personaEntrySchema,
  type skillEntrySchema,
  type workflowEntrySchema,
} from '../bundle/bundle-schema.js';

export type PersonaEntry = Omit<z.output<typeof personaEntrySchema>, 'key'>;
export type CompositionEntry = Omit<z.output<typeof compositionEntrySchema>, 'key'>;
export type SkillEntry = Omit<z.output<typeof skillEntrySchema>, 'key'>;
export type WorkflowEntry = Omit<z.output<typeof workflowEntrySchema>, 'key' | 'dangling_refs'>;

export type PersonaContent = Pick<ContextCardRecord, 'title' | 'content' | 'category' | 'tags' | 'description' | 'emoji'>;
export type CompositionContent = Pick<CompositionRecord, 'name' | 'description' | 'tags' | 'template' | 'variables' | 'defaultModel'>;
export type SkillContent = Pick<SkillRecord, 'name' | 'description' | 'category' | 'instructions' | 'model'>;
export type WorkflowContent = Pick<WorkflowRecord, 'name' | 'description' | 'category' | 'definition'>;

/** The models a definition may name: the configured ones (the AI gateway's registry). */
export interface KnownModels {
  has(modelId: string): boolean;
  /** For messages: the ids there are. */
  list(): readonly string[];
}

/**
 * A definition naming a model the server does not offer would run on the default model
 * (DECISIONS: refused at import and update instead, never a silent fallback).
 */
export function unknownModelIssues(models: KnownModels, path: readonly PropertyKey[], modelId: string | undefined): ValidationIssue[] {
  if (modelId === undefined || models.has(modelId)) return [];
  return [{ path, message: `unknown model "${modelId}" (available: ${models.list().join(', ')})` }];
}

const optional = <Value>(name: string, value: Value | null | undefined) => (value === null || value === undefined ? {} : { [name]: value });

export function personaContent(entry: PersonaEntry): PersonaContent {
  return {
    title: entry.name,
    content: entry.content,
    category: PERSONA_CATEGORY,
    tags: entry.tags,
    description: entry.description,
    emoji: entry.emoji ?? null,
  };
}

export function personaEntry(card: PersonaContent): PersonaEntry {
  return { name: card.title, description: card.description ?? '', ...optional('emoji', card.emoji), content: card.content, tags: card.tags };
}

/**
 * A composition's variables are its declared ones and every other placeholder of its template
 * (compositionContent), and what it stores must be what its definition's `variables` accepts
 * (at most BUNDLE_LIMITS.compositionVariables): else its GET could not be sent back as a PATCH,
 * nor its export imported (regression: a template of 150 placeholders was saved). The template
 * is what brings the count over, so the issue is at `template`. `path`: where the entry sits.
 */
export function tooManyVariablesIssues(entry: Pick<CompositionEntry, 'template' | 'variables'>, path: readonly PropertyKey[]): ValidationIssue[] {
  const placeholders = new Set(templateReferences(entry.template));
  const unused = new Set(entry.variables.map((variable) => variable.name).filter((name) => !placeholders.has(name)));
  const total = placeholders.size + unused.size;
  const limit = BUNDLE_LIMITS.compositionVariables;
  if (total <= limit) return [];
  const message =
    unused.size === 0
      ? `has ${placeholders.size} distinct placeholders; a composition may have at most ${limit} variables (one per placeholder)`
      : `has ${placeholders.size} distinct placeholders, which with the ${unused.size} declared variables it does not use make ${total} variables; a composition may have at most ${limit}`;
  return [{ path: [...path, 'template'], message }];
}

/** Every placeholder of a composition becomes a variable: declared ones keep their settings, others are required. */
export function compositionContent(entry: CompositionEntry): CompositionContent {
  const variables: CompositionVariable[] = entry.variables.map((variable) => ({
    name: variable.name,
    required: variable.required,
    ...(variable.default === undefined ? {} : { default: String(variable.default) }),
    ...(variable.description === undefined ? {} : { description: variable.description }),
  }));
  for (const name of templateReferences(entry.template)) {
    if (!variables.some((variable) => variable.name === name)) variables.push({ name, required: true });
  }
  return {
    name: entry.name,
    description: entry.description,
    tags: entry.tags,
    template: entry.template,
    variables,
    defaultModel: entry.model ?? null,
  };
}

/**
 * A composition entry after a PATCH that changed its template without sending `variables`: the
 * variables only the old template implied (required, no default, no description: what
 * `compositionContent` adds for a placeholder) go when the new template no longer uses them.
 * Kept, they stayed required, and every execution was refused for a value nothing reads.
 */
export function withoutUnusedPlaceholders(entry: CompositionEntry): CompositionEntry {
  const used = new Set(templateReferences(entry.template));
  const implied = (variable: CompositionEntry['variables'][number]) =>
    variable.required && variable.default === undefined && variable.description === undefined;
  return { ...entry, variables: entry.variables.filter((variable) => used.has(variable.name) || !implied(variable)) };
}

export function compositionEntry(composition: CompositionContent): CompositionEntry {
  return {
    name: composition.name,
    description: composition.description,
    tags: composition.tags,
    template: composition.template,
    variables: composition.variables.map((variable) => ({ ...variable })),
    ...optional('model', composition.defaultModel),
  };
}

export function skillContent(entry: SkillEntry): SkillContent {
  return { name: entry.name, description: entry.description, category: entry.category, instructions: entry.instructions, model: entry.model ?? null };
}

export function skillEntry(skill: SkillContent): SkillEntry {
  return { name: skill.name, description: skill.description, category: skill.category, instructions: skill.instructions, ...optional('model', skill.model) };
}

/** A stored definition as an author writes it: references stay ids (`mapRef` turns them into bundle keys). */
export function workflowEntry(workflow: WorkflowContent, mapRef: (ref: ResourceRef) => string = (ref) => ref.ref): WorkflowEntry {
  const definition = mapResourceRefs(workflow.definition as WorkflowDefinition, mapRef);
  return { name: workflow.name, description: workflow.description, category: workflow.category, ...definition };
}

/** Finds what a workflow's reference names: a bundle key of the right kind, or an id of the account's; null when nothing. */
export type RefResolver = (ref: ResourceRef) => Promise<string | null>;

export interface WorkflowCheck {
  models: KnownModels;
  resolveRef: RefResolver;
  /** Where the definition sits, for issue paths (`['workflows', 2]` in a bundle; `[]` for a request body). */
  root: readonly PropertyKey[];
  /** Nodes whose references are kept as they are although they resolve to nothing (an export's `dangling_refs`). */
  danglingNodes?: readonly string[];
  /** Where references are looked for, for messages: `the bundle or the account` on import, else `the account`. */
  lookedIn: string;
}

/**
 * Checks a workflow entry the way import always has: the definition's schema and graph (cycles,
 * unknown names), its models, and its references, each resolved to an id. Answers the content to
 * store, or the issues, rooted at `check.root`.
 */
export async function checkWorkflowEntry(entry: WorkflowEntry, check: WorkflowCheck): Promise<{ content: WorkflowContent } | { issues: ValidationIssue[] }> {
  const { name, description, category, ...definitionInput } = entry;
  let definition: WorkflowDefinition;
  try {
    definition = validateWorkflowDefinition(definitionInput, { root: check.root });
  } catch (err) {
    if (err instanceof WorkflowDefinitionError) return { issues: [...err.issues] };
    throw err;
  }
  const issues: ValidationIssue[] = [];
  for (const [nodeIndex, node] of definition.nodes.entries()) {
    if ('model' in node) issues.push(...unknownModelIssues(check.models, [...check.root, 'nodes', nodeIndex, 'model'], node.model));
  }
  const dangling = check.danglingNodes ?? [];
  const resolved = new Map<string, string>();
  for (const ref of definitionResourceRefs(definition)) {
    const id = await check.resolveRef(ref);
    const nodeIndex = definition.nodes.findIndex((node) => node.id === ref.nodeId);
    // A reference the exporting account had already lost stays as it was (an id), so the
    // workflow moves whole and fails at that node as it did there.
    if (id === null && dangling.includes(ref.nodeId)) continue;
    if (id === null) issues.push({ path: [...check.root, 'nodes', nodeIndex, ref.kind], message: `no ${ref.kind} "${ref.ref}" in ${check.lookedIn}` });
    else resolved.set(`${ref.kind}:${ref.ref}`, id);
  }
  if (issues.length > 0) return { issues };
  return { content: { name, description, category, definition: mapResourceRefs(definition, (ref) => resolved.get(`${ref.kind}:${ref.ref}`) ?? ref.ref) } };
}

/** How each executable kind is named in messages and stored. */
export const RESOURCE_NOUNS: Record<ExecutableResource, string> = {
  workflow: 'Workflow',
  composition: 'Composition',
  skill: 'Skill',
  persona: 'Persona',
};
