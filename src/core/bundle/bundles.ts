/**
 * `porch import` and `porch export`. An import upserts by each item's key (DECISIONS, "Catalog
 * lifecycle"): an item whose key the account already has is updated, as a new version, only
 * when its content changed; a new key is created; with `prune`, what the bundle no longer holds
 * is deleted. Everything is checked first and written in one transaction, so importing the
 * same bundle twice changes nothing, and a bad bundle writes nothing.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { CatalogChanges, CatalogItem, CatalogUpdate, ContentKind, ContentQuotas, ContextCardRecord, Store } from '../../db/store.js';
import { VERSIONED_CONTENT_FIELDS } from '../../db/store.js';
import {
  checkWorkflowEntry,
  compositionContent,
  compositionEntry,
  personaContent,
  personaEntry,
  skillContent,
  skillEntry,
  tooManyVariablesIssues,
  unknownModelIssues,
  workflowEntry,
  type KnownModels,
} from '../catalog/definitions.js';
import type { Clock } from '../clock.js';
import { PERSONA_CATEGORY } from '../context-cards/context-cards.js';
import { definitionResourceRefs, requiredWithDefaultIssues, type ResourceRef, type WorkflowDefinition } from '../engine/workflow-definition.js';
import { PorchError } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import { quotaExceededError } from '../quotas/quotas.js';
import { formatIssues, isRecord, jsonValueProblem, type ValidationIssue } from '../validation.js';
import { parseYaml, stringifyYamlForAnyParser, YamlAliasLimitError } from '../yaml.js';
import { BUNDLE_VERSION, bundleSchema, EXPORT_MARKER, type Bundle } from './bundle-schema.js';
import { MAX_WRITE_ATTEMPTS, pauseBeforeRetry } from '../catalog/write-retry.js';

export type { KnownModels } from '../catalog/definitions.js';

type SectionName = 'personas' | 'context_cards' | 'compositions' | 'skills' | 'workflows';
const SECTIONS: readonly SectionName[] = ['personas', 'context_cards', 'compositions', 'skills', 'workflows'];
type SectionCounts = Record<SectionName, number>;

export interface ImportSummary extends SectionCounts {
  account_id: string;
  /** What the import did to each section's items. */
  created: SectionCounts;
  updated: SectionCounts;
  unchanged: SectionCounts;
  /** Items the bundle no longer holds, removed because `prune` was asked for. */
  deleted: SectionCounts;
  /** The id of each item, by `<kind>:<key>` (kind: persona, context_card, composition, skill, workflow). */
  ids: Record<string, string>;
}

export interface ImportOptions {
  /** Delete the account's personas, cards, compositions, skills and workflows that the bundle does not hold. */
  prune?: boolean;
}

function invalid(issues: readonly ValidationIssue[]): PorchError {
  return new PorchError('VALIDATION_ERROR', `Invalid bundle: ${formatIssues(issues, { whole: '(root)' })}`);
}

/**
 * How many times a YAML bundle may use each anchored part: where it is anchored (`&name`) and each
 * alias (`*name`) of it, an alias inside an anchored part counting once for each use of that part.
 * The bound on alias bombs.
 */
export const MAX_BUNDLE_ALIASES = 100;

/** Text that begins as `porch export` writes a bundle, in YAML or JSON. */
const EXPORT_START = /^\s*(?:\{\s*"exported_by"|exported_by)\s*:/;

/** Parses bundle text: JSON when it looks like JSON (or the file says so), YAML otherwise. */
export function parseBundleText(text: string, format: 'json' | 'yaml' | 'auto' = 'auto'): unknown {
  // Editors on Windows may start a UTF-8 file with a byte order mark, which JSON.parse refuses
  // as an invisible "Unexpected token" (the YAML parser skips it).
  const content = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const asJson = format === 'json' || (format === 'auto' && /^\s*[[{]/.test(content));
  try {
    return asJson ? parseJson(content) : parseYaml(content, { maxAliasCount: MAX_BUNDLE_ALIASES });
  } catch (err) {
    if (err instanceof YamlAliasLimitError) {
      throw new PorchError(
        'VALIDATION_ERROR',
        `The bundle uses an anchored part (&name) more than ${MAX_BUNDLE_ALIASES} times, counting where it is anchored and each alias (*name) of it, the most a YAML bundle may (an alias inside an anchored part counts once for each use of that part); write some of the repeated parts out.`,
      );
    }
    const cutShort = EXPORT_START.test(content) ? ' (it begins as `porch export` writes a bundle, so it looks cut short: export it again)' : '';
    throw new PorchError('VALIDATION_ERROR', `The bundle is not valid ${asJson ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}${cutShort}`);
  }
}

/** JSON.parse, but a key an object repeats is refused, as in YAML, where JSON.parse would keep the last silently. */
function parseJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  const repeated = repeatedJsonKey(text);
  if (repeated) throw new Error(`Object keys must be unique: "${repeated.key}" appears twice in one object at line ${repeated.line}`);
  return value;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;

/**
 * The first key an object of `text` repeats, with its line. `text` is valid JSON (JSON.parse read
 * it), so a string is a key exactly when it comes first in an object or after a comma in one,
 * and line breaks occur only between tokens.
 */
function repeatedJsonKey(text: string): { key: string; line: number } | null {
  /** Per open bracket: the keys of an object so far, or null for an array. */
  const open: Array<Set<string> | null> = [];
  let line = 1;
  let keyNext = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === NEWLINE) line += 1;
    else if (code === 0x7b /* { */) {
      open.push(new Set());
      keyNext = true;
    } else if (code === 0x5b /* [ */) {
      open.push(null);
      keyNext = false;
    } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) {
      open.pop();
      keyNext = false;
    } else if (code === 0x2c /* , */) keyNext = open.at(-1) instanceof Set;
    else if (code === QUOTE) {
      const start = index;
      let escaped = false;
      for (index += 1; text.charCodeAt(index) !== QUOTE; index += 1) {
        if (text.charCodeAt(index) === BACKSLASH) {
          escaped = true;
          index += 1;
        }
      }
      const keys = open.at(-1);
      if (!keyNext || !(keys instanceof Set)) continue;
      keyNext = false;
      const key = escaped ? (JSON.parse(text.slice(start, index + 1)) as string) : text.slice(start + 1, index);
      if (keys.has(key)) return { key, line };
      keys.add(key);
    }
  }
  return null;
}

const emptyCounts = (): SectionCounts => ({ personas: 0, context_cards: 0, compositions: 0, skills: 0, workflows: 0 });

/** The section's kind as `ids` and workflow references name it. */
const REF_KINDS: Record<SectionName, string> = {
  personas: 'persona',
  context_cards: 'context_card',
  compositions: 'composition',
  skills: 'skill',
  workflows: 'workflow',
};

/** Where each section is stored; personas and context cards share the cards table, and so one key space. */
const STORE_KINDS: Record<SectionName, ContentKind> = {
  personas: 'contextCards',
  context_cards: 'contextCards',
  compositions: 'compositions',
  skills: 'skills',
  workflows: 'workflows',
};

/**
 * Keys for items that have none, derived from their names: lowercase, dashes, at most 56
 * characters, `-2`, `-3` ... for repeats. Deterministic in file order, so a keyless bundle
 * imported twice matches itself. A name with letters a key cannot hold (日本語, Café) also gets
 * a short digest of the name, so such names keep keys of their own, whatever their order in the
 * file (regression: every name without a Latin letter was `skill`, `skill-2` ..., by position).
 */
/** The lowercase, dashed form of a name that a key is made from (`Hello, world!` and `Hello World`: `hello-world`). */
function slugOf(name: string, fallback: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || fallback
  ).replace(/^(\d)/, `${fallback}-$1`);
}

/** Whether a key cannot spell the name: then its key also carries a digest of the name. */
function hasLettersBeyondKeys(name: string): boolean {
  return /[\u0080-\uffff]/.test(name);
}

/** A name as a person reads it: case and runs of blanks aside (renaming `Hello world` to `Hello World` is the same item). */
function sameName(a: string, b: string): boolean {
  const plain = (name: string) => name.trim().replace(/\s+/g, ' ').toLowerCase();
  return plain(a) === plain(b);
}

function createKeyMaker(kindOfKey: (space: ContentKind) => Set<string>) {
  const nextSuffix = new Map<string, number>();
  return (space: ContentKind, fallback: string, name: string): string => {
    const used = kindOfKey(space);
    const slug = slugOf(name, fallback);
    const digest = hasLettersBeyondKeys(name) ? `-${createHash('sha256').update(name.normalize('NFC')).digest('hex').slice(0, 8)}` : '';
    const base = `${slug.slice(0, 56 - digest.length)}${digest}`;
    let key = base;
    let suffix = nextSuffix.get(`${space}:${base}`) ?? 2;
    for (; used.has(key); suffix += 1) key = `${base}-${suffix}`;
    nextSuffix.set(`${space}:${base}`, suffix);
    used.add(key);
    return key;
  };
}

/** Whether two records hold the same content for their kind (what a version holds). */
function sameContent(kind: ContentKind, stored: object, incoming: object): boolean {
  const pick = (record: object) =>
    JSON.parse(
      JSON.stringify(
        // No value and an empty one are the same content: a persona without a description is "" in a hand-written bundle and in earlier exports (regression: a version per import).
        Object.fromEntries(VERSIONED_CONTENT_FIELDS[kind].map((field) => [field, (record as Record<string, unknown>)[field] ?? ''])),
      ),
    );
  return isDeepStrictEqual(pick(stored), pick(incoming));
}

interface Existing {
  byKey: Map<string, { id: string; version: number; record: object; name: string; bundleKey: string | null }>;
  /** Resources imported before keys existed, which an item of the same name adopts. */
  keyless: Array<{ id: string; version: number; record: object; name: string; bundleKey: string | null }>;
}

/** Finds the account's resource a workflow reference names, by id or by key (the catalog lifecycle's rule). */
export type AccountRefResolver = (accountId: string, ref: ResourceRef) => Promise<string | null>;

/**
 * Refuses an export cut short: one that begins with `exported_by` but lacks the `end_of_export`
 * an export ends with, or whose sections do not hold the items it counts (bundle-schema.ts).
 */
function refuseCutShortExport(raw: unknown): void {
  if (!isRecord(raw)) return;
  const exported = raw.exported_by === EXPORT_MARKER;
  const end = raw.end_of_export;
  if (!exported && end === undefined) return;
  const sections = SECTIONS.map((section) => {
    const items = raw[section];
    return { section, held: Array.isArray(items) ? items.length : 0, counted: isRecord(end) ? end[section] : undefined };
  });
  if (!sections.every(({ counted }) => typeof counted === 'number')) {
    // Without `exported_by` it is no export: the schema says what is wrong with `end_of_export`.
    if (!exported) return;
    throw new PorchError(
      'VALIDATION_ERROR',
      'The bundle looks cut short: it begins with `exported_by`, as `porch export` writes it, but does not end with the whole `end_of_export` (the number of items in each section) that an export writes last. Nothing was imported; export it again.',
    );
  }
  const wrong = sections.filter(({ held, counted }) => held !== counted);
  if (wrong.length > 0) {
    const counts = wrong.map(({ section, held, counted }) => `${section}: ${String(counted)} counted, ${held} held`).join('; ');
    throw new PorchError(
      'VALIDATION_ERROR',
      `The bundle looks cut short or edited: its sections do not hold the items its \`end_of_export\` counts (${counts}). Nothing was imported; export it again, or, for an export edited by hand, correct \`end_of_export\` or remove it and \`exported_by\`.`,
    );
  }
}

export function createBundleService(store: Store, clock: Clock, quotas: ContentQuotas, models: KnownModels, resolveAccountRef: AccountRefResolver) {
  /** Reads the account's catalog and turns the bundle into one catalog write. */
  async function plan(accountId: string, bundle: Bundle, options: ImportOptions) {
    const issues: ValidationIssue[] = [];
    const now = clock.now();
    const all = await store.catalog.exportAll(accountId);
    const existing = new Map<ContentKind, Existing>();
    const index = <Row extends { id: string; version: number; bundleKey: string | null }>(
      kind: ContentKind,
      records: readonly Row[],
      name: (record: Row) => string,
    ) => {
      const entry: Existing = { byKey: new Map(), keyless: [] };
      for (const record of records) {
        const item = { id: record.id, version: record.version, record, name: name(record), bundleKey: record.bundleKey };
        if (record.bundleKey === null) entry.keyless.push(item);
        else entry.byKey.set(record.bundleKey, item);
      }
      existing.set(kind, entry);
    };
    // A persona adopts only a persona, a card only a card.
    const cardName = (persona: boolean, title: string) => `${persona ? 'persona' : 'card'}:${title}`;
    index('contextCards', all.contextCards, (card) => cardName(card.category === PERSONA_CATEGORY, card.title));
    index('compositions', all.compositions, (record) => record.name);
    index('skills', all.skills, (record) => record.name);
    index('workflows', all.workflows, (record) => record.name);

    // Explicit keys first (duplicates are errors), then derived ones that avoid them.
    const keysBySpace = new Map<ContentKind, Set<string>>();
    const space = (kind: ContentKind) => keysBySpace.get(kind) ?? keysBySpace.set(kind, new Set()).get(kind) ?? new Set<string>();
    for (const section of SECTIONS) {
      for (const [position, entry] of (bundle[section] as Array<{ key?: string | undefined }>).entries()) {
        if (entry.key === undefined) continue;
        if (space(STORE_KINDS[section]).has(entry.key)) {
          const scope = STORE_KINDS[section] === 'contextCards' ? 'personas and context cards' : section;
          issues.push({ path: [section, position, 'key'], message: `duplicate key "${entry.key}" (keys are unique across ${scope})` });
        }
        space(STORE_KINDS[section]).add(entry.key);
      }
    }
    const makeKey = createKeyMaker(space);
    /** Keys this import derived from names, by `${kind}:${key}`, with the item's place for messages. */
    const derived = new Map<string, { section: SectionName; position: number }>();
    const keyOf = (section: SectionName, entry: { key?: string | undefined }, name: string, position: number) => {
      if (entry.key !== undefined) return entry.key;
      const key = makeKey(STORE_KINDS[section], REF_KINDS[section].replace('_', '-'), name);
      derived.set(`${STORE_KINDS[section]}:${key}`, { section, position });
      return key;
    };
    const keys: NonNullable<CatalogChanges['keys']> = [];

    const creates: CatalogItem[] = [];
    const updates: CatalogUpdate[] = [];
    const matched = new Set<string>();
    const ids = new Map<string, string>();
    const summary = { created: emptyCounts(), updated: emptyCounts(), unchanged: emptyCounts(), deleted: emptyCounts() };

    /** Matches an item to the resource imported under its key (or a keyless one of its name), and says what to write. */
    const upsert = (section: SectionName, derivedOrGiven: string, name: string, content: object, counters: object) => {
      const kind = STORE_KINDS[section];
      const known = existing.get(kind);
      const place = derived.get(`${kind}:${derivedOrGiven}`);
      const fallback = REF_KINDS[section].replace('_', '-');
      const plainName = (stored: string) => stored.replace(/^(?:persona|card):/, '');
      let key = derivedOrGiven;
      let found = known?.byKey.get(key);
      // A name with letters a key cannot spell was keyed by its slug alone before its keys carried
      // a digest (`caf`, `skill-2`): the resource of that name under such a key is this item's.
      if (!found && known && place !== undefined && hasLettersBeyondKeys(plainName(name))) {
        const legacy = new RegExp(
          `^${slugOf(plainName(name), fallback)
            .slice(0, 56)
            .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:-\\d+)?$`,
        );
        found = [...known.byKey.values()].find(
          (candidate) => candidate.bundleKey !== null && legacy.test(candidate.bundleKey) && candidate.name === name && !matched.has(candidate.id),
        );
        if (found?.bundleKey) key = found.bundleKey;
      }
      if (!found && known) {
        const adoptable = known.keyless.findIndex((candidate) => candidate.name === name && !matched.has(candidate.id));
        found = adoptable >= 0 ? known.keyless[adoptable] : undefined;
      }
      if (found && matched.has(found.id)) found = undefined;
      // An item without a key is its name: one whose name only gives the key of a resource whose
      // own name gives it too, another name, is not that resource (regression: "Hello, world!"
      // silently replaced "Hello World"). The same name in other case, or a resource renamed since
      // it was imported (its name gives another key), is this item's.
      const collides = (stored: string) =>
        !sameName(plainName(stored), plainName(name)) && slugOf(plainName(stored), fallback) === slugOf(plainName(name), fallback);
      if (found && place !== undefined && found.bundleKey === key && collides(found.name)) {
        issues.push({
          path: [place.section, place.position, 'key'],
          message: `has no key, and the key its name gives, "${key}", is that of another ${REF_KINDS[section].replace('_', ' ')} of this account, named "${found.name.replace(/^(?:persona|card):/, '')}"; give the item a key ("${key}" to update that one)`,
        });
        return;
      }
      if (found) {
        matched.add(found.id);
        ids.set(`${REF_KINDS[section]}:${key}`, found.id);
        ids.set(`${REF_KINDS[section]}:${derivedOrGiven}`, found.id);
        // Same content: no new version. A resource made without a key takes the item's key
        // (without a version), so workflows and later bundles find it by that key
        // (regression: the import said it had the key, and a reference to it was refused).
        if ((found.bundleKey === key || found.bundleKey === null) && sameContent(kind, found.record, content)) {
          if (found.bundleKey === null) keys.push({ kind, id: found.id, key, baseVersion: found.version });
          summary.unchanged[section] += 1;
          return;
        }
        const record = { ...found.record, ...content, bundleKey: key, version: found.version + 1, updatedAt: now };
        updates.push({ kind, record, baseVersion: found.version } as CatalogUpdate);
        summary.updated[section] += 1;
        return;
      }
      const id = newId();
      ids.set(`${REF_KINDS[section]}:${key}`, id);
      creates.push({ kind, record: { id, accountId, ...content, ...counters, version: 1, bundleKey: key, createdAt: now, updatedAt: now } } as CatalogItem);
      summary.created[section] += 1;
    };

    /**
     * Personas and context cards share one key space, but an item never turns one into the other:
     * a workflow step using a persona would lose it (regression: an import made it a plain card).
     */
    const crossesKind = (section: 'personas' | 'context_cards', position: number, key: string, persona: boolean): boolean => {
      const found = existing.get('contextCards')?.byKey.get(key);
      if (found === undefined || ((found.record as ContextCardRecord).category === PERSONA_CATEGORY) === persona) return false;
      const held = persona ? 'a context card' : 'a persona';
      issues.push({ path: [section, position, 'key'], message: `"${key}" is the key of ${held} of this account; use another key, or delete that one first` });
      return true;
    };
    /** Keys of the cards of category "persona" in `context_cards`: a persona step may name them, as it may a persona (regression: "no persona"). */
    const personaCardKeys = new Set<string>();
    for (const [position, entry] of bundle.personas.entries()) {
      const key = keyOf('personas', entry, entry.name, position);
      // A null description stays null (the bundle's persona may have none), rather than "".
      const content = { ...personaContent({ ...entry, description: entry.description ?? '' }), description: entry.description };
      if (!crossesKind('personas', position, key, true)) upsert('personas', key, cardName(true, entry.name), content, {});
    }
    for (const [position, entry] of bundle.context_cards.entries()) {
      const content = {
        title: entry.title,
        content: entry.content,
        category: entry.category ?? null,
        tags: entry.tags,
        description: entry.description ?? null,
        emoji: entry.emoji ?? null,
      };
      const key = keyOf('context_cards', entry, entry.title, position);
      const persona = entry.category === PERSONA_CATEGORY;
      if (!crossesKind('context_cards', position, key, persona)) upsert('context_cards', key, cardName(persona, entry.title), content, {});
      if (persona) personaCardKeys.add(key);
    }
    for (const [position, entry] of bundle.compositions.entries()) {
      issues.push(...tooManyVariablesIssues(entry, ['compositions', position]));
      issues.push(...requiredWithDefaultIssues(entry.variables, ['compositions', position, 'variables']));
      issues.push(...unknownModelIssues(models, ['compositions', position, 'model'], entry.model));
      upsert('compositions', keyOf('compositions', entry, entry.name, position), entry.name, compositionContent(entry), { timesUsed: 0 });
    }
    for (const [position, entry] of bundle.skills.entries()) {
      issues.push(...unknownModelIssues(models, ['skills', position, 'model'], entry.model));
      upsert('skills', keyOf('skills', entry, entry.name, position), entry.name, skillContent(entry), {});
    }

    /** Where the bundle's workflows use each resource (by id), so --prune never deletes one of them. */
    const referenced = new Map<string, PropertyKey[]>();
    /** A reference is a key of the bundle's, else what the API would resolve it to: the account's resource with that id or key. */
    const resolveRef = async (ref: ResourceRef): Promise<string | null> =>
      ids.get(`${ref.kind}:${ref.ref}`) ??
      (ref.kind === 'persona' && personaCardKeys.has(ref.ref) ? ids.get(`context_card:${ref.ref}`) : undefined) ??
      resolveAccountRef(accountId, ref);
    for (const [position, entry] of bundle.workflows.entries()) {
      const { key, dangling_refs: danglingNodes = [], ...definition } = entry;
      const root = ['workflows', position];
      const checked = await checkWorkflowEntry(definition, {
        models,
        root,
        lookedIn: 'the bundle or the account',
        resolveRef,
        // Only an id can be kept as it is: a bundle key names nothing outside the bundle.
        danglingNodes: danglingNodes.filter((nodeId) => definition.nodes.some((node) => node.id === nodeId)),
      });
      if ('issues' in checked) {
        issues.push(...checked.issues);
        continue;
      }
      // References that resolved are ids now; one that did not is as written.
      const refs = definitionResourceRefs(checked.content.definition as WorkflowDefinition);
      for (const ref of refs) {
        const nodeIndex = definition.nodes.findIndex((node) => node.id === ref.nodeId);
        if (!referenced.has(ref.ref)) referenced.set(ref.ref, [...root, 'nodes', nodeIndex, ref.kind]);
      }
      for (const [danglingIndex, nodeId] of danglingNodes.entries()) {
        const ref = refs.find((candidate) => candidate.nodeId === nodeId);
        if (!ref)
          issues.push({ path: [...root, 'dangling_refs', danglingIndex], message: `no node "${nodeId}" that refers to a skill, composition or persona` });
        else if (!isUuid(ref.ref))
          issues.push({ path: [...root, 'dangling_refs', danglingIndex], message: `node "${nodeId}" refers by key; only an id can be kept dangling` });
      }
      upsert('workflows', keyOf('workflows', { key }, entry.name, position), entry.name, checked.content, { usageCount: 0 });
    }
    if (issues.length > 0) throw invalid(issues);

    const deletes: Array<{ kind: ContentKind; id: string }> = [];
    if (options.prune) {
      const pruned = (kind: ContentKind, section: (record: object) => SectionName) => {
        const known = existing.get(kind);
        for (const item of [...(known?.byKey.values() ?? []), ...(known?.keyless ?? [])]) {
          if (matched.has(item.id)) continue;
          const usedAt = referenced.get(item.id);
          if (usedAt !== undefined) {
            // The workflow would arrive broken: its step names what this import deletes.
            issues.push({
              path: usedAt,
              message: `refers to ${item.id}, which --prune would delete as it is not in the bundle; add it to the bundle or refer to another`,
            });
            continue;
          }
          deletes.push({ kind, id: item.id });
          summary.deleted[section(item.record)] += 1;
        }
      };
      pruned('contextCards', (record) => ((record as ContextCardRecord).category === PERSONA_CATEGORY ? 'personas' : 'context_cards'));
      pruned('compositions', () => 'compositions');
      pruned('skills', () => 'skills');
      pruned('workflows', () => 'workflows');
      if (issues.length > 0) throw invalid(issues);
    }
    return { changes: { accountId, creates, updates, deletes, keys, at: now, authorKeyId: null, quotas }, summary, ids };
  }

  return {
    /**
     * Validates the whole bundle first, then writes it in one transaction: on any error nothing is
     * written and the message names the bad path.
     */
    async importBundle(accountId: string, raw: unknown, options: ImportOptions = {}): Promise<ImportSummary> {
      const account = await store.accounts.findById(accountId);
      if (!account) throw new PorchError('RESOURCE_NOT_FOUND', `No account with id ${accountId}.`);
      // Depth is the schema's to judge here; the walk only looks for NUL characters and __proto__ keys.
      const problem = jsonValueProblem(raw, Number.POSITIVE_INFINITY);
      if (problem?.kind === 'value') throw invalid([{ path: problem.path, message: problem.message }]);
      // Before the schema, whose complaints about a half item would hide why it is half.
      refuseCutShortExport(raw);
      const parsed = bundleSchema.safeParse(raw);
      if (!parsed.success) throw invalid(parsed.error.issues);
      const bundle = parsed.data;

      for (let attempt = 1; ; attempt++) {
        const { changes, summary, ids } = await plan(accountId, bundle, options);
        const outcome =
          changes.creates.length + changes.updates.length + changes.deletes.length + (changes.keys?.length ?? 0) === 0
            ? ({ ok: true } as const)
            : await store.catalog.write(changes);
        if (outcome.ok) {
          return {
            account_id: accountId,
            ...Object.fromEntries(SECTIONS.map((section) => [section, bundle[section].length])),
            ...summary,
            ids: Object.fromEntries(ids),
          } as ImportSummary;
        }
        if ('excess' in outcome) throw quotaExceededError(outcome.excess);
        // The account's catalog changed between reading and writing: read it again.
        if (attempt >= MAX_WRITE_ATTEMPTS)
          throw new PorchError('CONFLICT', 'The account’s catalog kept changing during the import; nothing was written. Try again.');
        // As an update does: a random pause, so writers that collided do not collide again.
        await pauseBeforeRetry(attempt);
      }
    },

    /** Everything the account owns, in the import format, with each item's key; references become keys. */
    async exportBundle(accountId: string): Promise<Bundle> {
      const account = await store.accounts.findById(accountId);
      if (!account) throw new PorchError('RESOURCE_NOT_FOUND', `No account with id ${accountId}.`);
      const all = await store.catalog.exportAll(accountId);
      const keysBySpace = new Map<ContentKind, Set<string>>();
      const space = (kind: ContentKind) => keysBySpace.get(kind) ?? keysBySpace.set(kind, new Set()).get(kind) ?? new Set<string>();
      for (const kind of ['contextCards', 'compositions', 'skills', 'workflows'] as const) {
        for (const record of all[kind]) if (record.bundleKey !== null) space(kind).add(record.bundleKey);
      }
      const makeKey = createKeyMaker(space);
      const keys = new Map<string, string>();
      const keyFor = (refKind: string, kind: ContentKind, record: { id: string; bundleKey: string | null }, name: string) => {
        const key = record.bundleKey ?? makeKey(kind, refKind.replace('_', '-'), name);
        keys.set(`${refKind}:${record.id}`, key);
        return key;
      };
      const personas = all.contextCards.filter((card) => card.category === PERSONA_CATEGORY);
      const cards = all.contextCards.filter((card) => card.category !== PERSONA_CATEGORY);
      const optional = <Value>(name: string, value: Value | null | undefined) => (value === null || value === undefined ? {} : { [name]: value });
      const bundle = {
        // First and last (end_of_export, below): an import can then tell this bundle cut short.
        exported_by: EXPORT_MARKER,
        version: BUNDLE_VERSION,
        personas: personas.map((card) => ({
          key: keyFor('persona', 'contextCards', card, card.title),
          ...personaEntry(card),
          // No description stays none (personaEntry gives the API's "").
          ...(card.description === null ? { description: null } : {}),
        })),
        context_cards: cards.map((card) => ({
          key: keyFor('context_card', 'contextCards', card, card.title),
          title: card.title,
          content: card.content,
          ...optional('category', card.category),
          tags: card.tags,
          ...optional('description', card.description),
          ...optional('emoji', card.emoji),
        })),
        compositions: all.compositions.map((composition) => ({
          key: keyFor('composition', 'compositions', composition, composition.name),
          ...compositionEntry(composition),
        })),
        skills: all.skills.map((skill) => ({ key: keyFor('skill', 'skills', skill, skill.name), ...skillEntry(skill) })),
        workflows: all.workflows.map((workflow) => {
          const stored = workflow.definition as WorkflowDefinition;
          // Every owned persona, skill and composition has a key by now; a reference without one
          // is to something the account no longer has, and the bundle says so (`dangling_refs`).
          const dangling = definitionResourceRefs(stored)
            .filter((ref) => !keys.has(`${ref.kind}:${ref.ref}`))
            .map((ref) => ref.nodeId);
          return {
            key: keyFor('workflow', 'workflows', workflow, workflow.name),
            ...workflowEntry(workflow, (ref) => keys.get(`${ref.kind}:${ref.ref}`) ?? ref.ref),
            ...(dangling.length > 0 ? { dangling_refs: [...new Set(dangling)] } : {}),
          };
        }),
      };
      const counts = Object.fromEntries(SECTIONS.map((section) => [section, bundle[section].length])) as SectionCounts;
      return { ...bundle, end_of_export: counts } as Bundle;
    },

    formatBundle(bundle: Bundle, format: 'json' | 'yaml'): string {
      // Every parser must read it back as written: YAML 1.1 ones, strict ones (regression: a raw DEL that PyYAML refuses).
      return format === 'json' ? `${JSON.stringify(bundle, null, 2)}\n` : stringifyYamlForAnyParser(bundle, { lineWidth: 0 });
    },
  };
}

export type BundleService = ReturnType<typeof createBundleService>;
