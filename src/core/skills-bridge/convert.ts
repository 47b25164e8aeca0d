/**
 * The bridge between Agent Skills and Porch custom skills. A Porch skill is a name, a
 * description, a category, instructions (its system prompt) and an optional model; a SKILL.md is
 * a slug name, a description and Markdown instructions. What has no place in the other format
 * travels in SKILL.md `metadata` under `porch-*` keys, so export → import gives the same skill.
 */
import { createHash } from 'node:crypto';
import type { SkillRecord } from '../../db/store.js';
import type { BundleService } from '../bundle/bundles.js';
import { BUNDLE_LIMITS } from '../bundle/bundle-schema.js';
import type { LifecycleService } from '../catalog/lifecycle.js';
import { isPorchError, PorchError } from '../errors.js';
import { normaliseBody, parseSkillMd, SKILL_DESCRIPTION_MAX_LENGTH, SKILL_NAME_MAX_LENGTH, type AgentSkillDocument } from './skill-md.js';

export const PORCH_METADATA_KEYS = {
  /** The Porch display name ("Summarise for executives"); the SKILL.md name is its slug. */
  name: 'porch-name',
  category: 'porch-category',
  model: 'porch-model',
  /** The id of the exported skill, so an agent can execute it through the API; importing into its account updates it. */
  id: 'porch-skill-id',
  /** The Porch description, when the format could not carry it as it is (empty, too long, or padded). */
  description: 'porch-description',
} as const;

/** Category of skills imported from agent tools that do not say one. */
export const IMPORTED_SKILL_CATEGORY = 'agent-skill';
const FALLBACK_SLUG = 'porch-skill';

/** A Porch skill as the bundle importer takes it. */
export interface PorchSkillEntry {
  name: string;
  description: string;
  category: string;
  instructions: string;
  model?: string;
}

/** "Summarise for Executives!" → "summarise-for-executives" (a valid SKILL.md name). */
export function slugifySkillName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, SKILL_NAME_MAX_LENGTH)
    .replace(/^-+|-+$/g, '');
  return slug || FALLBACK_SLUG;
}

export function agentSkillToPorchSkill(document: AgentSkillDocument, overrides: { category?: string; model?: string } = {}): PorchSkillEntry {
  const metadata = document.metadata;
  const model = overrides.model ?? metadata[PORCH_METADATA_KEYS.model];
  const name = (metadata[PORCH_METADATA_KEYS.name] ?? document.name).slice(0, BUNDLE_LIMITS.nameLength);
  return {
    name,
    description: metadata[PORCH_METADATA_KEYS.description] ?? document.description,
    category: overrides.category ?? metadata[PORCH_METADATA_KEYS.category] ?? IMPORTED_SKILL_CATEGORY,
    instructions: document.body,
    ...(model === undefined ? {} : { model }),
  };
}

function describeForAgents(skill: Pick<SkillRecord, 'name' | 'description' | 'category'>): string {
  const description = skill.description.trim() || `Applies the Porch custom skill "${skill.name}" (${skill.category}).`;
  // The format caps descriptions at 1024 characters; Porch allows longer ones.
  return description.length <= SKILL_DESCRIPTION_MAX_LENGTH ? description : `${description.slice(0, SKILL_DESCRIPTION_MAX_LENGTH - 1)}…`;
}

export function porchSkillToAgentSkill(skill: Pick<SkillRecord, 'id' | 'name' | 'description' | 'category' | 'instructions' | 'model'>): AgentSkillDocument {
  const metadata: Record<string, string> = {
    [PORCH_METADATA_KEYS.name]: skill.name,
    [PORCH_METADATA_KEYS.category]: skill.category,
    [PORCH_METADATA_KEYS.id]: skill.id,
  };
  if (skill.model) metadata[PORCH_METADATA_KEYS.model] = skill.model;
  const description = describeForAgents(skill);
  if (description !== skill.description) metadata[PORCH_METADATA_KEYS.description] = skill.description;
  return { name: slugifySkillName(skill.name), description, metadata, body: normaliseBody(skill.instructions) };
}

export interface ImportedAgentSkill {
  id: string;
  name: string;
  category: string;
  account_id: string;
  /** What the import did: a new skill, a new version of the skill it came from, or nothing (the same content). */
  outcome: 'created' | 'updated' | 'unchanged';
  version: number;
}

/** The prefix of the bundle keys agent skills are imported under, apart from the keys bundles use. */
const AGENT_SKILL_KEY_PREFIX = 'agent-skill-';
/** Bundle keys are at most this long. */
const KEY_MAX_LENGTH = 64;

/**
 * The bundle key an agent skill is imported under: its slug, in a namespace of its own, so a
 * SKILL.md that happens to share a name with a bundle's skill (the demo's `summarise`) creates
 * a skill instead of replacing that one. A slug too long for a key keeps a digest of the rest.
 */
export function agentSkillKey(slug: string): string {
  const key = `${AGENT_SKILL_KEY_PREFIX}${slug}`;
  if (key.length <= KEY_MAX_LENGTH) return key;
  const digest = createHash('sha256').update(slug).digest('hex').slice(0, 8);
  return `${key.slice(0, KEY_MAX_LENGTH - digest.length - 1)}-${digest}`;
}

type SkillEntryView = Pick<SkillRecord, 'name' | 'description' | 'category' | 'instructions'> & { model?: string | null | undefined };

/** Whether the skill already holds what the SKILL.md says (instructions compared as the format keeps them). */
function holds(skill: SkillEntryView, entry: PorchSkillEntry): boolean {
  return (
    skill.name === entry.name &&
    skill.description === entry.description &&
    skill.category === entry.category &&
    normaliseBody(skill.instructions) === entry.instructions &&
    (entry.model === undefined || skill.model === entry.model)
  );
}

/**
 * Creates or updates a Porch custom skill from SKILL.md text. A SKILL.md exported from this
 * account (its `porch-skill-id` names one of the account's skills, and its name is that skill's
 * slug) updates that skill, as a new version when it changed; any other is created, or updated when imported before, under the
 * key `agentSkillKey` gives its name. Both go through the catalog's validation and its
 * all-or-nothing write, as `porch import` does.
 */
export async function importAgentSkill(
  catalog: { bundles: Pick<BundleService, 'importBundle'>; lifecycle: Pick<LifecycleService, 'get' | 'update'> },
  accountId: string,
  skillMdText: string,
  options: { expectedName?: string; category?: string; model?: string } = {},
): Promise<ImportedAgentSkill> {
  const document = parseSkillMd(skillMdText);
  if (options.expectedName !== undefined && options.expectedName !== document.name) {
    throw new PorchError('VALIDATION_ERROR', `Invalid SKILL.md: its name "${document.name}" must equal its folder name "${options.expectedName}".`);
  }
  const entry = agentSkillToPorchSkill(document, options);
  const exported = await exportedSkill(catalog.lifecycle, accountId, document.metadata[PORCH_METADATA_KEYS.id]);
  // An id alone is no proof (ids are in every export and URL): the SKILL.md must also carry the
  // name that skill exports under, so a file written for another skill cannot take this one over.
  if (exported !== null && slugifySkillName(exported.name) === document.name) {
    const summary = { id: exported.id, name: entry.name, category: entry.category, account_id: accountId };
    if (holds(exported, entry)) return { ...summary, outcome: 'unchanged', version: exported.version };
    const updated = await catalog.lifecycle.update(null, 'skill', accountId, exported.id, entry);
    return { ...summary, outcome: 'updated', version: updated.version };
  }
  const key = agentSkillKey(document.name);
  const summary = await catalog.bundles.importBundle(accountId, { skills: [{ key, ...entry }] });
  const id = summary.ids[`skill:${key}`];
  if (!id) throw new PorchError('INTERNAL_ERROR', 'The skill was imported but its id was not reported.');
  const outcome = summary.created.skills > 0 ? 'created' : summary.updated.skills > 0 ? 'updated' : 'unchanged';
  const { version } = await catalog.lifecycle.get('skill', accountId, id);
  return { id, name: entry.name, category: entry.category, account_id: summary.account_id, outcome, version };
}

/** The account's skill a SKILL.md was exported from, or null when it names none of the account's. */
async function exportedSkill(lifecycle: Pick<LifecycleService, 'get'>, accountId: string, id: string | undefined) {
  if (id === undefined) return null;
  try {
    return await lifecycle.get('skill', accountId, id);
  } catch (err) {
    if (isPorchError(err) && (err.code === 'RESOURCE_NOT_FOUND' || err.code === 'VALIDATION_ERROR' || err.code === 'ACCESS_DENIED')) return null;
    throw err;
  }
}
