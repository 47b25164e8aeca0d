/**
 * How each executable resource becomes chat messages. Pure functions, shared by execution and by
 * the MCP prompts (which render without calling a model).
 */
import type { CompositionRecord, CompositionVariable, ContextCardRecord, SkillRecord } from '../../db/store.js';
import type { ChatMessage } from '../ai/tokenizer.js';
import { renderTemplate } from '../engine/template.js';
import { PorchError } from '../errors.js';

export type VariableValues = Readonly<Record<string, unknown>>;

/**
 * Declared defaults first, then the caller's values; null counts as not sent. A declared optional
 * variable without a default renders as the empty string, as in a workflow, so a template may
 * mention it unconditionally.
 */
function withDefaults(declared: readonly CompositionVariable[], values: VariableValues): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const variable of declared) {
    if (variable.default !== undefined) merged[variable.name] = variable.default;
    else if (!variable.required) merged[variable.name] = '';
  }
  for (const [name, value] of Object.entries(values)) if (value !== null && value !== undefined) merged[name] = value;
  return merged;
}

function lookupIn(values: Record<string, unknown>) {
  return (name: string): unknown => (Object.hasOwn(values, name) ? values[name] : undefined);
}

/**
 * A composition's template rendered with the caller's variables. Missing required variables are
 * a 400 naming all of them, raised before any tokens are spent.
 */
export function renderComposition(composition: CompositionRecord, values: VariableValues): string {
  const merged = withDefaults(composition.variables, values);
  const missing = composition.variables.filter((variable) => merged[variable.name] === undefined).map((variable) => variable.name);
  if (missing.length > 0) {
    throw new PorchError('VALIDATION_ERROR', `Missing required variable${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}.`);
  }
  return renderTemplate(composition.template, lookupIn(merged));
}

export function compositionMessages(composition: CompositionRecord, values: VariableValues): ChatMessage[] {
  return [{ role: 'user', content: renderComposition(composition, values) }];
}

/** A skill's instructions (with variables) are the system message; the input is the user message. */
export function skillMessages(skill: SkillRecord, input: string, values: VariableValues): ChatMessage[] {
  return [
    { role: 'system', content: renderTemplate(skill.instructions, lookupIn({ ...values })) },
    { role: 'user', content: input },
  ];
}

/** DECISIONS.md: system = the persona's content; user = input, then a blank line and context. */
export function personaMessages(persona: ContextCardRecord, input: string, context?: string): ChatMessage[] {
  return [
    { role: 'system', content: persona.content },
    { role: 'user', content: context === undefined || context === '' ? input : `${input}\n\n${context}` },
  ];
}
