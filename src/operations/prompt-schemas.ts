/**
 * The caller's compositions and personas as prompts (the MCP prompts capability). Rendering a
 * prompt reveals the template, so each kind needs its read scope (`read:<kind>` or
 * `execute:<kind>`), as listing it over REST does; a key with one of the two sees that kind only.
 */
import { z } from 'zod';
import type { Caller } from '../core/access/caller.js';
import { grantsAny, readScopes } from '../core/access/scopes.js';
import type { PromptKinds } from '../core/catalog/prompt-catalog.js';

export const COMPOSITION_PROMPT_SCOPES = readScopes('composition');
export const PERSONA_PROMPT_SCOPES = readScopes('persona');
export const promptScopes = [...COMPOSITION_PROMPT_SCOPES, ...PERSONA_PROMPT_SCOPES];
export const promptTag = 'Prompts';

/** The kinds of prompt the caller's key may see. */
export function promptKindsOf(caller: Caller): PromptKinds {
  return { compositions: grantsAny(caller.credential.scopes, COMPOSITION_PROMPT_SCOPES), personas: grantsAny(caller.credential.scopes, PERSONA_PROMPT_SCOPES) };
}

export const promptNameSchema = z.string().min(1).max(200).describe('Prompt name, as list_prompts gives it (e.g. "ticket-reply", "persona-reviewer").');

export const promptListingSchema = z.object({
  name: promptNameSchema,
  title: z.string().describe('The composition or persona name.'),
  description: z.string().describe('What the prompt is for.'),
  arguments: z
    .array(
      z.object({
        name: z.string().describe('Argument name: a composition variable, or `input` / `context` for a persona.'),
        description: z.string().optional().describe('What to put in it, with its default when it has one.'),
        required: z.boolean().describe('Whether the prompt cannot render without it.'),
      }),
    )
    .describe('The values the prompt takes.'),
});

export const renderedPromptSchema = z.object({
  description: z.string().nullable().describe('The resource description, if any.'),
  messages: z
    .array(
      z.object({
        role: z.enum(['system', 'user', 'assistant']).describe('Chat role.'),
        content: z.string().describe('Message text.'),
      }),
    )
    .describe('The chat messages an execution would send, rendered with the arguments; no model is called.'),
});
