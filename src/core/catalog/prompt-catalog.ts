/**
 * The caller's compositions and personas as named prompts: what MCP hosts offer as slash
 * commands. Rendering uses the same pure builders executions use and never calls a model.
 * Names are stable: a name two resources would share gets each one's id suffix, so adding a
 * namesake never silently points an existing command at a different resource.
 */
import type { CompositionRecord, ContextCardRecord } from '../../db/store.js';
import type { ChatMessage } from '../ai/tokenizer.js';
import { PorchError } from '../errors.js';
import { compositionMessages, personaMessages } from '../execution/prompt-builders.js';
import type { CatalogService } from './catalog.js';

/** Prompt names become slash commands (`/mcp__porch__ticket-reply`); long names help nobody. */
const MAX_SLUG_LENGTH = 48;

/** The random tail of a uuid v7: enough to tell two same-named resources apart. */
const ID_SUFFIX_LENGTH = 8;

/** The prefix that keeps a persona's command apart from a composition of the same name. */
const PERSONA_PREFIX = 'persona-';

export interface PromptArgument {
  name: string;
  description?: string;
  required: boolean;
}

export interface PromptListing {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgument[];
}

export interface RenderedPrompt {
  description: string | null;
  messages: ChatMessage[];
}

/** Which kinds of prompt the caller may see (each needs the kind's read scope). */
export interface PromptKinds {
  compositions: boolean;
  personas: boolean;
}

interface PromptEntry {
  listing: PromptListing;
  render(args: Readonly<Record<string, string>>): RenderedPrompt;
}

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

function compositionEntry(composition: CompositionRecord, name: string): PromptEntry {
  return {
    listing: {
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
    render: (args) => ({ description: composition.description, messages: compositionMessages(composition, args) }),
  };
}

function personaEntry(persona: ContextCardRecord, name: string): PromptEntry {
  return {
    listing: {
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
      return { description: persona.description, messages: personaMessages(persona, input, args.context) };
    },
  };
}

function withUniqueNames<Item extends { id: string }>(items: readonly Item[], baseName: (item: Item) => string): Array<{ item: Item; name: string }> {
  const bases = items.map((item) => ({ item, base: baseName(item) }));
  const counts = new Map<string, number>();
  for (const { base } of bases) counts.set(base, (counts.get(base) ?? 0) + 1);
  return bases.map(({ item, base }) => ({ item, name: (counts.get(base) ?? 0) > 1 ? `${base}-${item.id.slice(-ID_SUFFIX_LENGTH)}` : base }));
}

export function createPromptCatalog(catalog: Pick<CatalogService, 'allCompositions' | 'allPersonas'>) {
  async function entries(accountId: string, kinds: PromptKinds): Promise<PromptEntry[]> {
    const [compositions, personas] = await Promise.all([
      kinds.compositions ? catalog.allCompositions(accountId) : Promise.resolve([]),
      kinds.personas ? catalog.allPersonas(accountId) : Promise.resolve([]),
    ]);
    return [
      ...withUniqueNames(compositions, (composition) => slugify(composition.name) || 'composition').map(({ item, name }) => compositionEntry(item, name)),
      ...withUniqueNames(personas, (persona) => `${PERSONA_PREFIX}${slugify(persona.title) || 'unnamed'}`).map(({ item, name }) => personaEntry(item, name)),
    ];
  }

  return {
    async list(accountId: string, kinds: PromptKinds): Promise<PromptListing[]> {
      return (await entries(accountId, kinds)).map((entry) => entry.listing);
    },
    async render(accountId: string, kinds: PromptKinds, name: string, args: Readonly<Record<string, string>>): Promise<RenderedPrompt> {
      const entry = (await entries(accountId, kinds)).find((candidate) => candidate.listing.name === name);
      if (!entry) throw new PorchError('RESOURCE_NOT_FOUND', `Prompt ${name} was not found.`);
      return entry.render(args);
    },
  };
}

export type PromptCatalog = ReturnType<typeof createPromptCatalog>;
