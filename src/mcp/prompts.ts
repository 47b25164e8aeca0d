/**
 * MCP prompts: each of the caller's compositions and personas, so IDE users get them as slash
 * commands. `prompts/get` renders the messages with the same pure builders executions use, and
 * never calls a model. Rendering a prompt reveals the template, so it needs the read scope of
 * the resource kind (`read:<kind>` or `execute:<kind>`), like listing it over REST.
 */
import type { GetPromptResult, Prompt, PromptMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '../core/access/caller.js';
import { grantsAny, readScopes, type Scope } from '../core/access/scopes.js';
import type { Core } from '../core/core.js';
import { PorchError } from '../core/errors.js';
import type { ChatMessage } from '../core/ai/tokenizer.js';
import { compositionMessages, personaMessages } from '../core/execution/prompt-builders.js';
import type { CompositionRecord, ContextCardRecord } from '../db/store.js';

/** Prompt names become slash commands (`/mcp__porch__ticket-reply`); long names help nobody. */
const MAX_SLUG_LENGTH = 48;

/** The random tail of a uuid v7: enough to tell two same-named resources apart. */
const ID_SUFFIX_LENGTH = 8;

/** The prefix that keeps a persona's command apart from a composition of the same name. */
const PERSONA_PREFIX = 'persona-';

interface PromptEntry {
  prompt: Prompt;
  render(args: Readonly<Record<string, string>>): GetPromptResult;
}

export const COMPOSITION_PROMPT_SCOPES = readScopes('composition');
export const PERSONA_PROMPT_SCOPES = readScopes('persona');

/** `Ticket reply!` → `ticket-reply`: lower-case ASCII letters, digits and dashes. */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/^-+|-+$/g, '');
}

/**
 * MCP prompt messages have no system role; a system message (a persona's prompt) is sent as the
 * first user message, which is how a client inserting the prompt into a chat can carry it.
 */
function toPromptMessages(messages: readonly ChatMessage[]): PromptMessage[] {
  return messages.map((message) => ({
    role: message.role === 'assistant' ? 'assistant' : 'user',
    content: { type: 'text', text: message.content },
  }));
}

function compositionEntry(composition: CompositionRecord, name: string): PromptEntry {
  return {
    prompt: {
      name,
      title: composition.name,
      description: composition.description || `Composition "${composition.name}".`,
      arguments: composition.variables.map((variable) => ({
        name: variable.name,
        ...(variable.description || variable.default !== undefined
          ? { description: [variable.description, variable.default === undefined ? '' : `(default: ${variable.default})`].filter(Boolean).join(' ') }
          : {}),
        required: variable.required && variable.default === undefined,
      })),
    },
    render: (args) => ({
      description: composition.description,
      messages: toPromptMessages(compositionMessages(composition, args)),
    }),
  };
}

function personaEntry(persona: ContextCardRecord, name: string): PromptEntry {
  return {
    prompt: {
      name,
      title: persona.emoji ? `${persona.emoji} ${persona.title}` : persona.title,
      description: persona.description || `Persona "${persona.title}".`,
      arguments: [
        { name: 'input', description: 'What to ask the persona (the user message).', required: true },
        { name: 'context', description: 'Optional context, appended to the input after a blank line.', required: false },
      ],
    },
    render: (args) => {
      const input = args.input;
      if (input === undefined || input.trim() === '') throw new PorchError('VALIDATION_ERROR', 'Invalid request: input: the persona needs an input.');
      return {
        description: persona.description ?? undefined,
        messages: toPromptMessages(personaMessages(persona, input, args.context)),
      };
    },
  };
}

/**
 * Names are stable: a name that two resources would share gets each one's id suffix, so adding
 * a namesake never silently points an existing command at a different resource.
 */
function withUniqueNames<Item extends { id: string }>(items: readonly Item[], baseName: (item: Item) => string): Array<{ item: Item; name: string }> {
  const bases = items.map((item) => ({ item, base: baseName(item) }));
  const counts = new Map<string, number>();
  for (const { base } of bases) counts.set(base, (counts.get(base) ?? 0) + 1);
  return bases.map(({ item, base }) => ({ item, name: (counts.get(base) ?? 0) > 1 ? `${base}-${item.id.slice(-ID_SUFFIX_LENGTH)}` : base }));
}

async function promptEntries(core: Core, caller: Caller): Promise<PromptEntry[]> {
  const scopes = caller.credential.scopes;
  const [compositions, personas] = await Promise.all([
    grantsAny(scopes, COMPOSITION_PROMPT_SCOPES) ? core.catalog.allCompositions(caller.account.id) : Promise.resolve([]),
    grantsAny(scopes, PERSONA_PROMPT_SCOPES) ? core.catalog.allPersonas(caller.account.id) : Promise.resolve([]),
  ]);
  return [
    ...withUniqueNames(compositions, (composition) => slugify(composition.name) || 'composition').map(({ item, name }) => compositionEntry(item, name)),
    ...withUniqueNames(personas, (persona) => `${PERSONA_PREFIX}${slugify(persona.title) || 'unnamed'}`).map(({ item, name }) => personaEntry(item, name)),
  ];
}

/** The scopes that would let a key see any prompt, for the refusal message. */
const ANY_PROMPT_SCOPES: readonly Scope[] = [...COMPOSITION_PROMPT_SCOPES, ...PERSONA_PROMPT_SCOPES];

export function mayUsePrompts(caller: Caller): boolean {
  return grantsAny(caller.credential.scopes, ANY_PROMPT_SCOPES);
}

export function promptScopeError(): PorchError {
  return new PorchError('INSUFFICIENT_PERMISSIONS', `Prompts need a key with one of the scopes: ${ANY_PROMPT_SCOPES.join(', ')}.`);
}

export async function listPrompts(core: Core, caller: Caller): Promise<Prompt[]> {
  return (await promptEntries(core, caller)).map((entry) => entry.prompt);
}

export async function getPrompt(core: Core, caller: Caller, name: string, args: Readonly<Record<string, string>>): Promise<GetPromptResult> {
  const entry = (await promptEntries(core, caller)).find((candidate) => candidate.prompt.name === name);
  if (!entry) throw new PorchError('RESOURCE_NOT_FOUND', `Prompt ${name} was not found.`);
  return entry.render(args);
}
