/**
 * The caller's compositions and personas as named prompts: what MCP hosts offer as slash
 * commands. Rendering uses the same pure builders executions use and never calls a model.
 * Names are stable: a name two resources would share gets each one's id suffix, so adding a
 * namesake never silently points an existing command at a different resource.
 */
import type { CompositionRecord, ContextCardRecord, LabelRecord } from '../../db/store.js';
import type { ChatMessage } from '../ai/tokenizer.js';
import { PorchError } from '../errors.js';
import { compositionMessages, personaMessages } from '../execution/prompt-builders.js';
import type { CatalogService } from './catalog.js';
import type { LifecycleService } from './lifecycle.js';
import { defaultVersion, PRODUCTION_LABEL, selectableLabels, type VersionSelector } from './versions.js';

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

/** A prompt before rendering: the resource behind the name (at its newest version when listed). */
type PromptSource = { name: string } & ({ kind: 'composition'; record: CompositionRecord } | { kind: 'persona'; record: ContextCardRecord });

/** What picks the version to render: arguments named like the executes' `version` and `label`. */
interface SelectorNames {
  version: string;
  label: string;
}

/**
 * A composition variable keeps its name (a `version` variable is common: release notes); the
 * selector argument it would shadow takes this prefix instead, for that prompt only.
 */
const SHADOWED_SELECTOR_PREFIX = 'porch_';

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

function compositionArguments(composition: CompositionRecord): PromptArgument[] {
  return composition.variables.map((variable) => ({
    name: variable.name,
    ...(variable.description || variable.default !== undefined
      ? { description: [variable.description, variable.default === undefined ? '' : `(default: ${variable.default})`].filter(Boolean).join(' ') }
      : {}),
    required: variable.required && variable.default === undefined,
  }));
}

const PERSONA_ARGUMENTS: PromptArgument[] = [
  { name: 'input', description: 'What to ask the persona (the user message).', required: true },
  { name: 'context', description: 'Optional context, appended to the input after a blank line.', required: false },
];

function ownArguments(source: PromptSource): PromptArgument[] {
  return source.kind === 'composition' ? compositionArguments(source.record) : PERSONA_ARGUMENTS;
}

/**
 * The selector arguments' names beside `own`, the arguments of the version rendered by default
 * (the ones listed): `version` and `label`, each prefixed until no argument has that name.
 */
function selectorNames(own: readonly PromptArgument[]): SelectorNames {
  const taken = new Set(own.map((argument) => argument.name));
  const free = (name: string): string => {
    let candidate = name;
    while (taken.has(candidate)) candidate = `${SHADOWED_SELECTOR_PREFIX}${candidate}`;
    return candidate;
  };
  return { version: free('version'), label: free('label') };
}

/**
 * A selector refusal names the field `version` or `label`; where the prompt renamed its selector
 * argument (a variable of its own holds that name) it names the argument the client sent
 * (regression: "version: ... has no version 9" for a `porch_version` of 9, beside a variable
 * `version`).
 */
function namingSelectorArgument(err: unknown, names: SelectorNames): unknown {
  if (!(err instanceof PorchError) || err.code !== 'VALIDATION_ERROR') return err;
  for (const field of ['version', 'label'] as const) {
    if (names[field] !== field && err.message.startsWith(`${field}: `)) {
      return new PorchError('VALIDATION_ERROR', `${names[field]}: ${err.message.slice(field.length + 2)}`);
    }
  }
  return err;
}

/** The two optional arguments that pick a version, described with what the resource has now. */
function selectorArguments(kind: PromptSource['kind'], names: SelectorNames, latest: number, labels: readonly LabelRecord[]): PromptArgument[] {
  const byDefault = defaultVersion(latest, labels);
  const hasProduction = labels.some((label) => label.label === PRODUCTION_LABEL);
  const defaultText = hasProduction ? `${PRODUCTION_LABEL} (v${byDefault})` : `the newest (v${byDefault})`;
  const choices = selectableLabels(latest, labels).map(({ label, version }) => `${label} (v${version})`);
  return [
    {
      name: names.version,
      // A persona's versions are those its card wrote as a persona, not every number up to the newest (completion lists them).
      description: `Version to render: ${kind === 'persona' ? `one the card wrote as a persona, at most ${latest}` : latest === 1 ? '1' : `1 to ${latest}`}. Without ${names.version} or ${names.label}: ${defaultText}.`,
      required: false,
    },
    { name: names.label, description: `Label to render: ${choices.join(', ')}.`, required: false },
  ];
}

function describe(source: PromptSource): Pick<PromptListing, 'name' | 'title' | 'description'> {
  if (source.kind === 'composition') {
    const composition = source.record;
    return { name: source.name, title: composition.name, description: composition.description || `Composition "${composition.name}".` };
  }
  const persona = source.record;
  return {
    name: source.name,
    title: persona.emoji ? `${persona.emoji} ${persona.title}` : persona.title,
    description: persona.description || `Persona "${persona.title}".`,
  };
}

function renderSource(source: PromptSource, args: Readonly<Record<string, string>>): RenderedPrompt {
  // The description prompts/list gave, at the version rendered.
  const { description } = describe(source);
  if (source.kind === 'composition') return { description, messages: compositionMessages(source.record, args) };
  const persona = source.record;
  const input = args.input;
  if (input === undefined || input.trim() === '') throw new PorchError('VALIDATION_ERROR', 'Invalid request: input: the persona needs an input.');
  return { description, messages: personaMessages(persona, input, args.context) };
}

/** A blank selector counts as none: clients fill optional arguments they were not given with "". */
function given(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function selectorOf(names: SelectorNames, args: Readonly<Record<string, string>>): VersionSelector {
  const version = given(args[names.version]);
  if (version !== undefined && !/^\d{1,9}$/.test(version)) {
    throw new PorchError('VALIDATION_ERROR', `Invalid request: ${names.version}: must be a version number (1, 2, 3...), not "${version.slice(0, 40)}".`);
  }
  return { version: version === undefined ? undefined : Number(version), label: given(args[names.label]) };
}

function withUniqueNames<Item extends { id: string }>(items: readonly Item[], baseName: (item: Item) => string): Array<{ item: Item; name: string }> {
  const bases = items.map((item) => ({ item, base: baseName(item) }));
  const counts = new Map<string, number>();
  for (const { base } of bases) counts.set(base, (counts.get(base) ?? 0) + 1);
  return bases.map(({ item, base }) => ({ item, name: (counts.get(base) ?? 0) > 1 ? `${base}-${item.id.slice(-ID_SUFFIX_LENGTH)}` : base }));
}

export function createPromptCatalog(
  catalog: Pick<CatalogService, 'allCompositions' | 'allPersonas'>,
  lifecycle: Pick<LifecycleService, 'resolve' | 'listLabels' | 'versionNumbers'>,
) {
  async function sources(accountId: string, kinds: PromptKinds): Promise<PromptSource[]> {
    const [compositions, personas] = await Promise.all([
      kinds.compositions ? catalog.allCompositions(accountId) : Promise.resolve([]),
      kinds.personas ? catalog.allPersonas(accountId) : Promise.resolve([]),
    ]);
    const unnamed = [
      ...compositions.map((record) => ({ id: record.id, base: slugify(record.name) || 'composition', source: { kind: 'composition' as const, record } })),
      ...personas.map((record) => ({
        id: record.id,
        base: `${PERSONA_PREFIX}${slugify(record.title) || 'unnamed'}`,
        source: { kind: 'persona' as const, record },
      })),
    ];
    // One namespace for both kinds: a composition named "Persona X" and persona X both get suffixes.
    return withUniqueNames(unnamed, (entry) => entry.base).map(({ item, name }): PromptSource => ({ ...item.source, name }));
  }

  /** The same prompt at the version `selector` names, by the executes' rule (versions.ts). */
  async function atVersion(source: PromptSource, accountId: string, selector: VersionSelector): Promise<PromptSource> {
    if (source.kind === 'composition') return { ...source, record: (await lifecycle.resolve('composition', accountId, source.record.id, selector)).record };
    return { ...source, record: (await lifecycle.resolve('persona', accountId, source.record.id, selector)).record };
  }

  async function source(accountId: string, kinds: PromptKinds, name: string): Promise<PromptSource | undefined> {
    return (await sources(accountId, kinds)).find((candidate) => candidate.name === name);
  }

  /**
   * What a prompt takes without a selector: the arguments of the version rendered by default (its
   * variables may differ from the newest's), and the selectors' names beside them, the same for
   * listing, rendering and completing.
   */
  async function argumentsOf(item: PromptSource, accountId: string) {
    const latest = item.record.version;
    const labels = await lifecycle.listLabels(accountId, item.record.id);
    const byDefault = defaultVersion(latest, labels);
    // A persona's arguments are the same at every version, and its default version may be one
    // the card wrote as another category, which resolving refuses: only a composition's is read
    // (regression: one such persona failed the whole listing).
    const own = ownArguments(byDefault === latest || item.kind === 'persona' ? item : await atVersion(item, accountId, { version: byDefault }));
    return { own, names: selectorNames(own), latest, labels };
  }

  return {
    /** Each prompt with its arguments, described at the version it renders by default (as an execute runs it). */
    async list(accountId: string, kinds: PromptKinds): Promise<PromptListing[]> {
      return Promise.all(
        (await sources(accountId, kinds)).map(async (item) => {
          const { own, names, latest, labels } = await argumentsOf(item, accountId);
          return { ...describe(item), arguments: [...own, ...selectorArguments(item.kind, names, latest, labels)] };
        }),
      );
    },

    /**
     * The messages an execute with the same arguments would send: at the version the `version` or
     * `label` argument names, else `production`, else the newest (the executes' rule, versions.ts).
     */
    async render(accountId: string, kinds: PromptKinds, name: string, args: Readonly<Record<string, string>>): Promise<RenderedPrompt> {
      const found = await source(accountId, kinds, name);
      if (!found) throw new PorchError('RESOURCE_NOT_FOUND', `Prompt ${name} was not found.`);
      const { names } = await argumentsOf(found, accountId);
      const selected = await atVersion(found, accountId, selectorOf(names, args)).catch((err: unknown) => {
        throw namingSelectorArgument(err, names);
      });
      const { [names.version]: _version, [names.label]: _label, ...values } = args;
      return renderSource(selected, values);
    },

    /**
     * The values an argument of a prompt may take that start with `typed`: the labels or version
     * numbers (newest first) for the selector arguments; none for the others, nor for a prompt
     * the caller does not have.
     */
    async complete(accountId: string, kinds: PromptKinds, name: string, argument: string, typed: string): Promise<string[]> {
      const found = await source(accountId, kinds, name);
      if (!found) return [];
      const { names, latest, labels } = await argumentsOf(found, accountId);
      if (argument === names.label) {
        return selectableLabels(latest, labels)
          .map(({ label }) => label)
          .filter((label) => label.startsWith(typed.trim()));
      }
      if (argument === names.version) {
        const versions = await lifecycle.versionNumbers(found.kind, accountId, found.record.id, latest);
        return versions.map(String).filter((version) => version.startsWith(typed.trim()));
      }
      return [];
    },
  };
}

export type PromptCatalog = ReturnType<typeof createPromptCatalog>;
