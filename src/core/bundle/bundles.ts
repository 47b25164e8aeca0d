import { parseYaml, yaml } from '../yaml.js';
import type { BundleRecords, CompositionVariable, ContentQuotas, ContextCardRecord, Store } from '../../db/store.js';
import type { Clock } from '../clock.js';
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
import { PorchError } from '../errors.js';
import { quotaExceededError } from '../quotas/quotas.js';
import { isUuid, newId } from '../ids.js';
import { formatIssues, type ValidationIssue } from '../validation.js';
import { bundleSchema, BUNDLE_VERSION, type Bundle } from './bundle-schema.js';

export interface ImportSummary {
  account_id: string;
  personas: number;
  context_cards: number;
  compositions: number;
  skills: number;
  workflows: number;
  /** Ids of the created items by bundle key, for items that had one. */
  ids: Record<string, string>;
}

function invalid(issues: readonly ValidationIssue[]): PorchError {
  return new PorchError('VALIDATION_ERROR', `Invalid bundle: ${formatIssues(issues, { whole: '(root)' })}`);
}

/** Parses bundle text: JSON when it looks like JSON (or the file says so), YAML otherwise. */
export function parseBundleText(text: string, format: 'json' | 'yaml' | 'auto' = 'auto'): unknown {
  const asJson = format === 'json' || (format === 'auto' && /^\s*[[{]/.test(text));
  try {
    return asJson ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 100 });
  } catch (err) {
    throw new PorchError('VALIDATION_ERROR', `The bundle is not valid ${asJson ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Every placeholder of a composition becomes a variable: declared ones keep their settings, others are required. */
function compositionVariables(template: string, declared: Bundle['compositions'][number]['variables']): CompositionVariable[] {
  const variables: CompositionVariable[] = declared.map((variable) => ({
    name: variable.name,
    required: variable.required,
    ...(variable.default === undefined ? {} : { default: String(variable.default) }),
    ...(variable.description === undefined ? {} : { description: variable.description }),
  }));
  for (const name of templateReferences(template)) {
    if (!variables.some((variable) => variable.name === name)) variables.push({ name, required: true });
  }
  return variables;
}

function duplicateKeys(section: string, entries: readonly { key?: string | undefined }[]): ValidationIssue[] {
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  entries.forEach((entry, index) => {
    if (entry.key === undefined) return;
    if (seen.has(entry.key)) issues.push({ path: [section, index, 'key'], message: `duplicate key "${entry.key}"` });
    seen.add(entry.key);
  });
  return issues;
}

/** The models a bundle may name: the configured ones (the AI gateway's registry). */
export interface KnownModels {
  has(modelId: string): boolean;
  /** For messages: the ids there are. */
  list(): readonly string[];
}

/**
 * An item naming a model the server does not offer would run on the default model (DECISIONS:
 * refused at import instead, never a silent fallback), so every model a bundle names is checked.
 */
function unknownModelIssue(models: KnownModels, path: readonly PropertyKey[], modelId: string | undefined): ValidationIssue[] {
  if (modelId === undefined || models.has(modelId)) return [];
  return [{ path, message: `unknown model "${modelId}" (available: ${models.list().join(', ')})` }];
}

export function createBundleService(store: Store, clock: Clock, quotas: ContentQuotas, models: KnownModels) {
  return {
    /**
     * Validates the whole bundle first, then writes it in one transaction: on any error nothing is
     * written and the message names the bad path.
     */
    async importBundle(accountId: string, raw: unknown): Promise<ImportSummary> {
      const account = await store.accounts.findById(accountId);
      if (!account) throw new PorchError('RESOURCE_NOT_FOUND', `No account with id ${accountId}.`);

      const parsed = bundleSchema.safeParse(raw);
      if (!parsed.success) throw invalid(parsed.error.issues);
      const bundle = parsed.data;
      const issues = [
        ...duplicateKeys('personas', bundle.personas),
        ...duplicateKeys('compositions', bundle.compositions),
        ...duplicateKeys('skills', bundle.skills),
        ...duplicateKeys('workflows', bundle.workflows),
      ];

      const now = clock.now();
      // Items are created in file order with strictly increasing ids, so "newest first" lists the
      // last item of a section first, as if the operator had created them one by one.
      const ids = new Map<string, string>();
      const records: BundleRecords = { contextCards: [], compositions: [], skills: [], workflows: [] };
      const card = (entry: Omit<ContextCardRecord, 'id' | 'accountId' | 'createdAt' | 'updatedAt'>): ContextCardRecord => ({
        id: newId(),
        accountId,
        ...entry,
        createdAt: now,
        updatedAt: now,
      });

      for (const persona of bundle.personas) {
        const record = card({
          title: persona.name,
          content: persona.content,
          category: PERSONA_CATEGORY,
          tags: persona.tags,
          description: persona.description,
          emoji: persona.emoji ?? null,
        });
        if (persona.key) ids.set(`persona:${persona.key}`, record.id);
        records.contextCards.push(record);
      }
      for (const entry of bundle.context_cards) {
        records.contextCards.push(
          card({
            title: entry.title,
            content: entry.content,
            category: entry.category ?? null,
            tags: entry.tags,
            description: entry.description ?? null,
            emoji: entry.emoji ?? null,
          }),
        );
      }
      for (const [index, entry] of bundle.compositions.entries()) {
        issues.push(...unknownModelIssue(models, ['compositions', index, 'model'], entry.model));
        const id = newId();
        if (entry.key) ids.set(`composition:${entry.key}`, id);
        records.compositions.push({
          id,
          accountId,
          name: entry.name,
          description: entry.description,
          tags: entry.tags,
          template: entry.template,
          variables: compositionVariables(entry.template, entry.variables),
          defaultModel: entry.model ?? null,
          timesUsed: 0,
          createdAt: now,
        });
      }
      for (const [index, entry] of bundle.skills.entries()) {
        issues.push(...unknownModelIssue(models, ['skills', index, 'model'], entry.model));
        const id = newId();
        if (entry.key) ids.set(`skill:${entry.key}`, id);
        records.skills.push({
          id,
          accountId,
          name: entry.name,
          description: entry.description,
          category: entry.category,
          instructions: entry.instructions,
          model: entry.model ?? null,
          createdAt: now,
        });
      }

      /** A reference is a bundle key of the right kind, or the id of an existing resource of the account. */
      const resolveRef = async (ref: ResourceRef): Promise<string | null> => {
        const local = ids.get(`${ref.kind}:${ref.ref}`);
        if (local) return local;
        if (!isUuid(ref.ref)) return null;
        if (ref.kind === 'skill') return (await store.catalog.findSkill({ accountId, id: ref.ref })) ? ref.ref : null;
        if (ref.kind === 'composition') return (await store.catalog.findComposition({ accountId, id: ref.ref })) ? ref.ref : null;
        const persona = await store.contextCards.findOwned({ accountId, id: ref.ref });
        return persona?.category === PERSONA_CATEGORY ? ref.ref : null;
      };

      for (const [index, entry] of bundle.workflows.entries()) {
        const { key, name, description, category, dangling_refs: danglingNodes = [], ...definitionInput } = entry;
        let definition: WorkflowDefinition;
        try {
          definition = validateWorkflowDefinition(definitionInput, { root: ['workflows', index] });
        } catch (err) {
          if (err instanceof WorkflowDefinitionError) {
            issues.push(...err.issues);
            continue;
          }
          throw err;
        }
        for (const [nodeIndex, node] of definition.nodes.entries()) {
          if ('model' in node) issues.push(...unknownModelIssue(models, ['workflows', index, 'nodes', nodeIndex, 'model'], node.model));
        }
        const resolved = new Map<string, string>();
        const refs = definitionResourceRefs(definition);
        for (const [danglingIndex, nodeId] of danglingNodes.entries()) {
          if (!refs.some((ref) => ref.nodeId === nodeId))
            issues.push({
              path: ['workflows', index, 'dangling_refs', danglingIndex],
              message: `no node "${nodeId}" that refers to a skill, composition or persona`,
            });
        }
        for (const ref of refs) {
          const id = await resolveRef(ref);
          const nodeIndex = definition.nodes.findIndex((node) => node.id === ref.nodeId);
          // A reference the exporting account had already lost stays as it was (an id), so the
          // workflow moves whole and fails at that node as it did there (DECISIONS: export, then
          // import, round-trips); only an id can be kept, since a bundle key names nothing outside the bundle.
          if (id === null && danglingNodes.includes(ref.nodeId) && isUuid(ref.ref)) continue;
          if (id === null)
            issues.push({ path: ['workflows', index, 'nodes', nodeIndex, ref.kind], message: `no ${ref.kind} "${ref.ref}" in the bundle or the account` });
          else resolved.set(`${ref.kind}:${ref.ref}`, id);
        }
        const id = newId();
        if (key) ids.set(`workflow:${key}`, id);
        records.workflows.push({
          id,
          accountId,
          name,
          description,
          category,
          definition: mapResourceRefs(definition, (ref) => resolved.get(`${ref.kind}:${ref.ref}`) ?? ref.ref),
          usageCount: 0,
          createdAt: now,
        });
      }
      if (issues.length > 0) throw invalid(issues);

      const outcome = await store.catalog.insertBundle({ records, quotas });
      if (!outcome.ok) throw quotaExceededError(outcome.excess);
      return {
        account_id: accountId,
        personas: bundle.personas.length,
        context_cards: bundle.context_cards.length,
        compositions: records.compositions.length,
        skills: records.skills.length,
        workflows: records.workflows.length,
        ids: Object.fromEntries([...ids].map(([qualified, id]) => [qualified, id])),
      };
    },

    /** Everything the account owns, in the import format; references become bundle keys. */
    async exportBundle(accountId: string): Promise<Bundle> {
      const account = await store.accounts.findById(accountId);
      if (!account) throw new PorchError('RESOURCE_NOT_FOUND', `No account with id ${accountId}.`);
      const all = await store.catalog.exportAll(accountId);
      const keys = new Map<string, string>();
      const usedKeys = new Set<string>();
      // Where the search for a free suffix of each base resumes, so a thousand items of one name take linear time.
      const nextSuffix = new Map<string, number>();
      const keyFor = (kind: string, id: string, name: string): string => {
        const base = (
          name
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, '-')
            .replace(/^-+|-+$/g, '') || kind
        )
          .replace(/^(\d)/, `${kind}-$1`)
          .slice(0, 56);
        let key = base;
        let suffix = nextSuffix.get(`${kind}:${base}`) ?? 2;
        for (; usedKeys.has(`${kind}:${key}`); suffix += 1) key = `${base}-${suffix}`;
        nextSuffix.set(`${kind}:${base}`, suffix);
        usedKeys.add(`${kind}:${key}`);
        keys.set(`${kind}:${id}`, key);
        return key;
      };
      const personas = all.contextCards.filter((card) => card.category === PERSONA_CATEGORY);
      const cards = all.contextCards.filter((card) => card.category !== PERSONA_CATEGORY);
      const optional = <Value>(name: string, value: Value | null | undefined) => (value === null || value === undefined ? {} : { [name]: value });
      return {
        version: BUNDLE_VERSION,
        personas: personas.map((card) => ({
          key: keyFor('persona', card.id, card.title),
          name: card.title,
          description: card.description ?? '',
          ...optional('emoji', card.emoji),
          content: card.content,
          tags: card.tags,
        })),
        context_cards: cards.map((card) => ({
          title: card.title,
          content: card.content,
          ...optional('category', card.category),
          tags: card.tags,
          ...optional('description', card.description),
          ...optional('emoji', card.emoji),
        })),
        compositions: all.compositions.map((composition) => ({
          key: keyFor('composition', composition.id, composition.name),
          name: composition.name,
          description: composition.description,
          tags: composition.tags,
          template: composition.template,
          variables: composition.variables.map((variable) => ({ ...variable, required: variable.required })),
          ...optional('model', composition.defaultModel),
        })),
        skills: all.skills.map((skill) => ({
          key: keyFor('skill', skill.id, skill.name),
          name: skill.name,
          description: skill.description,
          category: skill.category,
          instructions: skill.instructions,
          ...optional('model', skill.model),
        })),
        workflows: all.workflows.map((workflow) => {
          const stored = workflow.definition as WorkflowDefinition;
          // Every owned persona, skill and composition has a key by now; a reference without one
          // is to something the account no longer has, and the bundle says so (`dangling_refs`).
          const dangling = definitionResourceRefs(stored)
            .filter((ref) => !keys.has(`${ref.kind}:${ref.ref}`))
            .map((ref) => ref.nodeId);
          const definition = mapResourceRefs(stored, (ref) => keys.get(`${ref.kind}:${ref.ref}`) ?? ref.ref);
          return {
            key: keyFor('workflow', workflow.id, workflow.name),
            name: workflow.name,
            description: workflow.description,
            category: workflow.category,
            ...definition,
            ...(dangling.length > 0 ? { dangling_refs: [...new Set(dangling)] } : {}),
          };
        }),
      } as Bundle;
    },

    formatBundle(bundle: Bundle, format: 'json' | 'yaml'): string {
      return format === 'json' ? `${JSON.stringify(bundle, null, 2)}\n` : yaml().stringify(bundle, { lineWidth: 0 });
    },
  };
}

export type BundleService = ReturnType<typeof createBundleService>;
