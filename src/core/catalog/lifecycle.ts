/**
 * The catalog lifecycle of compositions, skills, personas and workflows: create, read, update,
 * delete, versions and labels (DECISIONS, "Catalog lifecycle"). Every create and update is an
 * immutable, numbered version; labels name versions; executions resolve one through `resolve`.
 *
 * Updates are optimistic: the resource is read, the change is checked against it, and the write
 * lands only if nobody wrote a newer version meanwhile; otherwise it is read and checked again.
 * Concurrent updates therefore each get their own version number, and none is lost.
 */
import { isDeepStrictEqual } from 'node:util';
import type {
  CatalogItem,
  CatalogWriteOutcome,
  CompositionRecord,
  ContentKind,
  ContentQuotas,
  ContextCardRecord,
  Labelled,
  LabelRecord,
  PageRequest,
  SkillRecord,
  Store,
  VersionRecord,
  WorkflowRecord,
} from '../../db/store.js';
import type { Caller } from '../access/caller.js';
import type { ExecutableResource } from '../access/scopes.js';
import type { Clock } from '../clock.js';
import { definitionResourceRefs, requiredWithDefaultIssues, validateWorkflowDefinition, type WorkflowDefinition } from '../engine/workflow-definition.js';
import { PERSONA_CATEGORY } from '../context-cards/context-cards.js';
import { PorchError } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import { quotaExceededError } from '../quotas/quotas.js';
import { formatIssues, mergePatch, type ValidationIssue } from '../validation.js';
import { MAX_WRITE_ATTEMPTS, pauseBeforeRetry } from './write-retry.js';
import { toIsoTimestamp } from '../views.js';
import {
  checkWorkflowEntry,
  compositionContent,
  compositionEntry,
  personaContent,
  personaEntry,
  RESOURCE_NOUNS,
  skillContent,
  skillEntry,
  tooManyVariablesIssues,
  unknownModelIssues,
  withoutUnusedPlaceholders,
  workflowEntry,
  type CompositionEntry,
  type KnownModels,
  type PersonaEntry,
  type SkillEntry,
  type WorkflowEntry,
} from './definitions.js';
import {
  checkExpectedVersion,
  checkSettableLabel,
  describePersonaVersions,
  describeVersions,
  LATEST_LABEL,
  PRODUCTION_LABEL,
  selectVersion,
  type VersionSelector,
} from './versions.js';

/** Each kind's stored record and authored definition. */
export interface KindModel {
  composition: { record: CompositionRecord; entry: CompositionEntry };
  skill: { record: SkillRecord; entry: SkillEntry };
  persona: { record: ContextCardRecord; entry: PersonaEntry };
  workflow: { record: WorkflowRecord; entry: WorkflowEntry };
}
export type RecordOf<Kind extends ExecutableResource> = KindModel[Kind]['record'];
export type EntryOf<Kind extends ExecutableResource> = KindModel[Kind]['entry'];

/** Where each kind is stored: personas are context cards of category "persona". */
export const STORE_KINDS = {
  composition: 'compositions',
  skill: 'skills',
  persona: 'contextCards',
  workflow: 'workflows',
} as const satisfies Record<ExecutableResource, ContentKind>;

/** A resource as the API shows it: its newest definition, with what the resource itself records. */
export type ResourceDetail<Kind extends ExecutableResource> = EntryOf<Kind> & {
  id: string;
  key: string | null;
  version: number;
  labels: Record<string, number>;
  created_at: string;
  updated_at: string;
} & (Kind extends 'composition' ? { times_used: number } : Kind extends 'workflow' ? { usage_count: number } : unknown);

export interface VersionSummary {
  version: number;
  labels: string[];
  created_at: string;
}

export type VersionDetail<Kind extends ExecutableResource> = VersionSummary & { definition: EntryOf<Kind> };

export interface LabelsView {
  id: string;
  labels: Record<string, number>;
}

export interface VersionPage {
  items: VersionSummary[];
  count: number;
  next_cursor?: string | null;
}

/** A resource at the version a request selected. */
export interface ResolvedResource<Kind extends ExecutableResource> {
  record: RecordOf<Kind>;
  version: number;
}

/** Who wrote a version: the calling key, when there is one. */
export type Author = Pick<Caller, 'credential'> | null;

function notFound(kind: ExecutableResource, id: string): PorchError {
  return new PorchError('RESOURCE_NOT_FOUND', `${RESOURCE_NOUNS[kind]} ${id} was not found.`);
}

function invalid(issues: readonly ValidationIssue[]): PorchError {
  return new PorchError('VALIDATION_ERROR', formatIssues(issues, { whole: '(body)' }));
}

function entryOf<Kind extends ExecutableResource>(kind: Kind, record: RecordOf<Kind>): EntryOf<Kind>;
function entryOf(kind: ExecutableResource, record: RecordOf<ExecutableResource>): EntryOf<ExecutableResource> {
  switch (kind) {
    case 'composition':
      return compositionEntry(record as CompositionRecord);
    case 'skill':
      return skillEntry(record as SkillRecord);
    case 'persona':
      return personaEntry(record as ContextCardRecord);
    case 'workflow':
      return workflowEntry(record as WorkflowRecord);
  }
}

/**
 * A workflow entry after a PATCH that sent `nodes` without `outputs`: outputs the stored
 * definition only had by default (each node no other reads, under its own id) are left to the
 * new nodes' default. Kept, they named nodes the PATCH removed, and it was refused for a field
 * the caller never wrote.
 */
function withoutDefaultOutputs(stored: WorkflowRecord, entry: WorkflowEntry): WorkflowEntry {
  const definition = stored.definition as WorkflowDefinition;
  let byDefault: WorkflowDefinition['outputs'];
  try {
    byDefault = validateWorkflowDefinition({ ...definition, outputs: undefined }).outputs;
  } catch {
    // A stored definition an older release accepted and this one would not: its outputs stay.
    return entry;
  }
  if (!isDeepStrictEqual(byDefault, definition.outputs)) return entry;
  const { outputs: _byDefault, ...rest } = entry;
  return rest;
}

/** The nodes of `entry` whose resource reference is the one `stored` already holds (same node, kind and id). */
function unchangedRefNodes(stored: WorkflowRecord, entry: WorkflowEntry): string[] {
  const storedRefs = new Set(definitionResourceRefs(stored.definition as WorkflowDefinition).map((ref) => `${ref.nodeId}\u0000${ref.kind}\u0000${ref.ref}`));
  const nodes: string[] = [];
  for (const node of entry.nodes) {
    const fields: Readonly<Record<string, unknown>> = node;
    if (['skill', 'composition', 'persona'].some((kind) => storedRefs.has(`${node.id}\u0000${kind}\u0000${String(fields[kind])}`))) nodes.push(node.id);
  }
  return nodes;
}

function catalogItem(kind: ExecutableResource, record: RecordOf<ExecutableResource>): CatalogItem {
  return { kind: STORE_KINDS[kind], record } as CatalogItem;
}

export function labelMap(version: number, labels: readonly LabelRecord[]): Record<string, number> {
  return { [LATEST_LABEL]: version, ...Object.fromEntries(labels.map((label) => [label.label, label.version])) };
}

const MS_PER_DAY = 24 * 60 * 60 * 1000;

/** How many version rows a persona's listing reads at a time while it skips those its card wrote as another category. */
const VERSION_SCAN_PAGE = 100;

/**
 * Whether a stored version is one of `kind`'s. A persona is a context card of category persona,
 * and a card can change category: a version it wrote as another category (facts) was never a
 * persona's (regression: such a version was listed, labelled and run as the persona's).
 */
function isVersionOf(kind: ExecutableResource, version: Pick<VersionRecord, 'content'>): boolean {
  return kind !== 'persona' || version.content.category === PERSONA_CATEGORY;
}

/**
 * `retentionDays`: how long a deleted resource's versions stay for the audit trail
 * (`retention.run_days`, like run payloads).
 */
export function createLifecycleService(store: Store, clock: Clock, quotas: ContentQuotas, models: KnownModels, retentionDays: number) {
  async function find<Kind extends ExecutableResource>(kind: Kind, accountId: string, id: string): Promise<Labelled<RecordOf<Kind>> | null>;
  async function find(kind: ExecutableResource, accountId: string, id: string): Promise<Labelled<RecordOf<ExecutableResource>> | null> {
    switch (kind) {
      case 'composition':
        return store.catalog.findComposition({ accountId, id });
      case 'skill':
        return store.catalog.findSkill({ accountId, id });
      case 'workflow':
        return store.catalog.findWorkflow({ accountId, id });
      case 'persona': {
        const card = await store.contextCards.findOwned({ accountId, id });
        return card?.category === PERSONA_CATEGORY ? card : null;
      }
    }
  }

  async function require<Kind extends ExecutableResource>(kind: Kind, accountId: string, id: string): Promise<Labelled<RecordOf<Kind>>> {
    return (await find(kind, accountId, id)) ?? Promise.reject(notFound(kind, id));
  }

  /** A workflow node's reference: a bundle key of the account's resource of that kind, or its id. */
  async function resolveRef(accountId: string, ref: { kind: 'skill' | 'composition' | 'persona'; ref: string }): Promise<string | null> {
    if (isUuid(ref.ref)) {
      // Stored in lower case; a uuid means the same in either (regression: an upper-case id was "no skill").
      const id = ref.ref.toLowerCase();
      return (await find(ref.kind, accountId, id)) ? id : null;
    }
    const id = await store.catalog.findIdByKey({ accountId, kind: STORE_KINDS[ref.kind], key: ref.ref });
    return id !== null && (await find(ref.kind, accountId, id)) ? id : null;
  }

  /**
   * What an update leaves as it is stored, which is not checked again, instead of refusing every
   * change to the resource: `refs` names workflow nodes whose reference is the one already stored,
   * which may name a resource deleted since (as import keeps an export's `dangling_refs`);
   * `template` and `variables` say a composition's template or variables were not sent. One
   * stored over the cap of variables before it was enforced can still be renamed or retagged
   * (review), and one stored with a required variable that has a default before that was refused
   * can still change anything but its variables.
   */
  interface KeptAsStored {
    refs?: readonly string[];
    template?: boolean;
    variables?: boolean;
  }

  /** The content a definition stores, after the checks import makes (models, a workflow's graph and references). */
  async function contentOf<Kind extends ExecutableResource>(
    kind: Kind,
    accountId: string,
    entry: EntryOf<Kind>,
    kept?: KeptAsStored,
  ): Promise<Partial<RecordOf<Kind>>>;
  async function contentOf(kind: ExecutableResource, accountId: string, entry: EntryOf<ExecutableResource>, kept: KeptAsStored = {}): Promise<object> {
    switch (kind) {
      case 'composition': {
        const composition = entry as CompositionEntry;
        const issues = [
          ...(kept.template === true && kept.variables === true ? [] : tooManyVariablesIssues(composition, [])),
          ...(kept.variables === true ? [] : requiredWithDefaultIssues(composition.variables, ['variables'])),
          ...unknownModelIssues(models, ['model'], composition.model),
        ];
        if (issues.length > 0) throw invalid(issues);
        return compositionContent(composition);
      }
      case 'skill': {
        const skill = entry as SkillEntry;
        const issues = unknownModelIssues(models, ['model'], skill.model);
        if (issues.length > 0) throw invalid(issues);
        return skillContent(skill);
      }
      case 'persona':
        return personaContent(entry as PersonaEntry);
      case 'workflow': {
        const checked = await checkWorkflowEntry(entry as WorkflowEntry, {
          models,
          root: [],
          lookedIn: 'the account',
          resolveRef: (ref) => resolveRef(accountId, ref),
          danglingNodes: kept.refs ?? [],
        });
        if ('issues' in checked) throw invalid(checked.issues);
        return checked.content;
      }
    }
  }

  /** Turns a refused write into the error a caller sees; answers whether to read again and retry. */
  function refusal(kind: ExecutableResource, outcome: Exclude<CatalogWriteOutcome, { ok: true }>): 'retry' {
    if ('excess' in outcome) throw quotaExceededError(outcome.excess);
    if ('keyTaken' in outcome) {
      // Personas are context cards, and share their keys (regression: a card's key was "another persona's").
      const holders = kind === 'persona' ? 'persona or context card' : RESOURCE_NOUNS[kind].toLowerCase();
      throw new PorchError('CONFLICT', `key: another ${holders} of this account already has the key "${outcome.keyTaken.key}".`, {
        hint: 'Choose another key, or update the resource that has this one.',
      });
    }
    if (outcome.stale.version === null) throw notFound(kind, outcome.stale.id);
    return 'retry';
  }

  /**
   * The resource's versions after `page.cursor`, newest first, at most `page.limit` of them: for
   * a persona, only those written while its card was a persona (isVersionOf).
   */
  async function versionRows(kind: ExecutableResource, accountId: string, id: string, page: PageRequest): Promise<VersionRecord[]> {
    if (kind !== 'persona') return store.catalog.listVersions({ accountId, id, page });
    const kept: VersionRecord[] = [];
    let cursor = page.cursor;
    for (;;) {
      const rows = await store.catalog.listVersions({
        accountId,
        id,
        page: cursor === undefined ? { limit: VERSION_SCAN_PAGE } : { cursor, limit: VERSION_SCAN_PAGE },
      });
      kept.push(...rows.filter((row) => isVersionOf(kind, row)));
      const last = rows.at(-1);
      if (last === undefined || rows.length < VERSION_SCAN_PAGE || (page.limit !== undefined && kept.length >= page.limit)) break;
      cursor = String(last.version);
    }
    return page.limit === undefined ? kept : kept.slice(0, page.limit);
  }

  async function personaVersionsText(accountId: string, id: string): Promise<string> {
    return describePersonaVersions((await versionRows('persona', accountId, id, {})).map((row) => row.version));
  }

  /** The versions a resource has, for a message naming one it has not (`its versions are 1 to 3`). */
  function heldVersions(kind: ExecutableResource, accountId: string, id: string, latest: number): Promise<string> {
    return kind === 'persona' ? personaVersionsText(accountId, id) : Promise.resolve(describeVersions(latest));
  }

  /** The refusal of a version its card wrote as another category, by how the request named it. */
  async function notAPersonaVersion(accountId: string, id: string, version: number, selector: VersionSelector): Promise<PorchError> {
    const persona = `${RESOURCE_NOUNS.persona} ${id}`;
    const named =
      selector.version !== undefined
        ? `version: ${persona} has no version ${version} as a persona`
        : selector.label !== undefined
          ? `label: ${persona}'s label "${selector.label}" names version ${version}, which it has not as a persona`
          : `${persona}'s label "${PRODUCTION_LABEL}" names version ${version}, which it has not as a persona`;
    return new PorchError('VALIDATION_ERROR', `${named} (the card had another category then); ${await personaVersionsText(accountId, id)}.`);
  }

  async function detail<Kind extends ExecutableResource>(kind: Kind, record: RecordOf<Kind>): Promise<ResourceDetail<Kind>> {
    const labels = await store.catalog.listLabels({ accountId: record.accountId, id: record.id });
    const counters =
      kind === 'composition'
        ? { times_used: (record as CompositionRecord).timesUsed }
        : kind === 'workflow'
          ? { usage_count: (record as WorkflowRecord).usageCount }
          : {};
    return {
      id: record.id,
      key: record.bundleKey,
      version: record.version,
      labels: labelMap(record.version, labels),
      ...entryOf(kind, record),
      ...counters,
      created_at: toIsoTimestamp(record.createdAt),
      updated_at: toIsoTimestamp(record.updatedAt),
    } as ResourceDetail<Kind>;
  }

  function versionSummary(version: Pick<VersionRecord, 'version' | 'createdAt'>, labels: readonly LabelRecord[]): VersionSummary {
    return {
      version: version.version,
      labels: labels.filter((label) => label.version === version.version).map((label) => label.label),
      created_at: toIsoTimestamp(version.createdAt),
    };
  }

  return {
    find,
    require,
    resolveRef,

    /** The version numbers a request may name, newest first: a persona's are those its card wrote as a persona. */
    async versionNumbers(kind: ExecutableResource, accountId: string, id: string, latest: number): Promise<number[]> {
      if (kind !== 'persona') return Array.from({ length: latest }, (_, index) => latest - index);
      return (await versionRows(kind, accountId, id, {})).map((row) => row.version);
    },

    /** The labels set on a resource (not the implicit `latest`), by name. */
    listLabels: (accountId: string, id: string): Promise<LabelRecord[]> => store.catalog.listLabels({ accountId, id }),

    /**
     * The resource at the version `selector` names (see versions.ts). The newest version is the
     * row itself; an older one is its stored content over the row.
     */
    async resolve<Kind extends ExecutableResource>(kind: Kind, accountId: string, id: string, selector: VersionSelector = {}): Promise<ResolvedResource<Kind>> {
      const current = await require(kind, accountId, id);
      const version = await selectVersion(
        current,
        selector,
        { noun: RESOURCE_NOUNS[kind], id },
        () => store.catalog.listLabels({ accountId, id }),
        () => heldVersions(kind, accountId, id, current.version),
      );
      if (version === current.version) return { record: current, version };
      const stored = await store.catalog.findVersion({ accountId, id, version });
      if (!stored) throw new PorchError('INTERNAL_ERROR', `${RESOURCE_NOUNS[kind]} ${id} is missing its version ${version}.`);
      if (!isVersionOf(kind, stored)) throw await notAPersonaVersion(accountId, id, version, selector);
      return { record: { ...current, ...stored.content, version } as RecordOf<Kind>, version };
    },

    async create<Kind extends ExecutableResource>(
      author: Author,
      kind: Kind,
      accountId: string,
      input: EntryOf<Kind> & { key?: string | undefined },
    ): Promise<ResourceDetail<Kind>> {
      const { key, ...entry } = input;
      const content = await contentOf(kind, accountId, entry as EntryOf<Kind>);
      const now = clock.now();
      const counters = kind === 'composition' ? { timesUsed: 0 } : kind === 'workflow' ? { usageCount: 0 } : {};
      const record = { id: newId(), accountId, ...content, ...counters, version: 1, bundleKey: key ?? null, createdAt: now, updatedAt: now } as RecordOf<Kind>;
      const outcome = await store.catalog.write({
        accountId,
        creates: [catalogItem(kind, record)],
        updates: [],
        deletes: [],
        at: now,
        authorKeyId: author?.credential.id ?? null,
        quotas,
      });
      if (!outcome.ok) refusal(kind, outcome);
      return detail(kind, record);
    },

    async get<Kind extends ExecutableResource>(kind: Kind, accountId: string, id: string): Promise<ResourceDetail<Kind>> {
      return detail(kind, await require(kind, accountId, id));
    },

    /**
     * A partial update: the fields sent replace the newest version's, and the whole is checked as
     * a create would be. With `expectedVersion` it lands only on that version (else 409).
     */
    async update<Kind extends ExecutableResource>(
      author: Author,
      kind: Kind,
      accountId: string,
      id: string,
      changes: Partial<EntryOf<Kind>>,
      expectedVersion?: number,
    ): Promise<ResourceDetail<Kind>> {
      for (let attempt = 1; ; attempt++) {
        const current = await require(kind, accountId, id);
        checkExpectedVersion({ noun: RESOURCE_NOUNS[kind], id }, current.version, expectedVersion);
        const merged = mergePatch(entryOf(kind, current), changes);
        const newTemplate = kind === 'composition' && 'template' in changes && !('variables' in changes);
        const newNodes = kind === 'workflow' && 'nodes' in changes && !('outputs' in changes);
        const entry = newTemplate
          ? (withoutUnusedPlaceholders(merged as CompositionEntry) as EntryOf<Kind>)
          : newNodes
            ? (withoutDefaultOutputs(current as WorkflowRecord, merged as WorkflowEntry) as EntryOf<Kind>)
            : merged;
        const content = await contentOf(kind, accountId, entry, {
          refs: kind === 'workflow' ? unchangedRefNodes(current as WorkflowRecord, entry as WorkflowEntry) : [],
          template: !('template' in changes),
          variables: !('variables' in changes),
        });
        const now = clock.now();
        const stored = { ...withoutLabels(current), ...content, version: current.version + 1, updatedAt: now } as RecordOf<Kind>;
        const outcome = await store.catalog.write({
          accountId,
          creates: [],
          updates: [{ ...catalogItem(kind, stored), baseVersion: current.version }],
          deletes: [],
          at: now,
          authorKeyId: author?.credential.id ?? null,
          quotas,
        });
        if (outcome.ok) return detail(kind, stored);
        refusal(kind, outcome);
        if (attempt >= MAX_WRITE_ATTEMPTS) {
          throw new PorchError('CONFLICT', `${RESOURCE_NOUNS[kind]} ${id} is being changed by other writers; read it again and retry.`);
        }
        await pauseBeforeRetry(attempt);
      }
    },

    async delete(kind: ExecutableResource, accountId: string, id: string): Promise<void> {
      await require(kind, accountId, id);
      const outcome = await store.catalog.write({
        accountId,
        creates: [],
        updates: [],
        deletes: [{ kind: STORE_KINDS[kind], id }],
        at: clock.now(),
        authorKeyId: null,
        quotas,
      });
      if (!outcome.ok) refusal(kind, outcome);
    },

    async listVersions(kind: ExecutableResource, accountId: string, id: string, page: PageRequest): Promise<VersionPage> {
      await require(kind, accountId, id);
      const labels = await store.catalog.listLabels({ accountId, id });
      const rows = await versionRows(kind, accountId, id, page.limit === undefined ? page : { ...page, limit: page.limit + 1 });
      const kept = page.limit !== undefined && rows.length > page.limit ? rows.slice(0, page.limit) : rows;
      const items = kept.map((row) => versionSummary(row, labels));
      if (page.limit === undefined) return { items, count: items.length };
      const last = kept.at(-1);
      return { items, count: items.length, next_cursor: rows.length > kept.length && last ? String(last.version) : null };
    },

    async getVersion<Kind extends ExecutableResource>(kind: Kind, accountId: string, id: string, version: number): Promise<VersionDetail<Kind>> {
      const current = await require(kind, accountId, id);
      const labels = await store.catalog.listLabels({ accountId, id });
      const stored = version >= 1 && version <= current.version ? await store.catalog.findVersion({ accountId, id, version }) : null;
      if (!stored || !isVersionOf(kind, stored)) {
        const held = await heldVersions(kind, accountId, id, current.version);
        throw new PorchError('RESOURCE_NOT_FOUND', `${RESOURCE_NOUNS[kind]} ${id} has no version ${version}${stored ? ' as a persona' : ''}; ${held}.`);
      }
      const record = { ...current, ...stored.content } as RecordOf<Kind>;
      return { ...versionSummary(stored, labels), definition: entryOf(kind, record) };
    },

    /** Removes the versions of resources deleted longer ago than the retention period; answers how many. */
    pruneDeletedVersions(): Promise<number> {
      return store.catalog.pruneDeletedVersions(clock.now() - retentionDays * MS_PER_DAY);
    },

    /** Points a label at a version (rollback: point `production` at an older one). */
    async setLabel(kind: ExecutableResource, accountId: string, id: string, label: string, version: number): Promise<LabelsView> {
      checkSettableLabel(label);
      await require(kind, accountId, id);
      // Versions never change, so a version checked here is still the same when the label is set.
      const stored = kind === 'persona' ? await store.catalog.findVersion({ accountId, id, version }) : null;
      if (stored && !isVersionOf(kind, stored)) throw await notAPersonaVersion(accountId, id, version, { version });
      const outcome = await store.catalog.setLabel({ accountId, id, kind: STORE_KINDS[kind], label, version, at: clock.now() });
      const current = outcome === 'no_resource' ? null : await find(kind, accountId, id);
      if (!current) throw notFound(kind, id);
      if (outcome === 'no_version') {
        throw new PorchError(
          'VALIDATION_ERROR',
          `version: ${RESOURCE_NOUNS[kind]} ${id} has no version ${version}; ${await heldVersions(kind, accountId, id, current.version)}.`,
        );
      }
      return { id, labels: labelMap(current.version, await store.catalog.listLabels({ accountId, id })) };
    },

    async removeLabel(kind: ExecutableResource, accountId: string, id: string, label: string): Promise<LabelsView> {
      checkSettableLabel(label);
      const current = await require(kind, accountId, id);
      if (!(await store.catalog.removeLabel({ accountId, id, label }))) {
        throw new PorchError('RESOURCE_NOT_FOUND', `${RESOURCE_NOUNS[kind]} ${id} has no label "${label}".`);
      }
      return { id, labels: labelMap(current.version, await store.catalog.listLabels({ accountId, id })) };
    },
  };
}

/** The record without what a find adds to it (the `production` label's version), as a write stores it. */
function withoutLabels<Record extends object>(record: Labelled<Record>): Record {
  const { productionVersion: _production, ...rest } = record;
  return rest as unknown as Record;
}

export type LifecycleService = ReturnType<typeof createLifecycleService>;
