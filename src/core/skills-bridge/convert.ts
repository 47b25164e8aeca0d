/**
 * The bridge between Agent Skills and Porch custom skills. A Porch skill is a name, a
 * description, a category, instructions (its system prompt) and an optional model; a SKILL.md is
 * a slug name, a description and Markdown instructions. What has no place in the other format
 * travels in SKILL.md `metadata` under `porch-*` keys, so export → import gives the same skill.
 */
import type { SkillRecord } from '../../db/store.js';
import { IDENTIFIER_PATTERN } from '../engine/workflow-definition.js';
import type { BundleService } from '../bundle/bundles.js';
import { BUNDLE_LIMITS } from '../bundle/bundle-schema.js';
import { PorchError } from '../errors.js';
import { normaliseBody, parseSkillMd, SKILL_DESCRIPTION_MAX_LENGTH, SKILL_NAME_MAX_LENGTH, type AgentSkillDocument } from './skill-md.js';

export const PORCH_METADATA_KEYS = {
  /** The Porch display name ("Summarise for executives"); the SKILL.md name is its slug. */
  name: 'porch-name',
  category: 'porch-category',
  model: 'porch-model',
  /** The id of the exported skill, so an agent can execute it through the API. */
  id: 'porch-skill-id',
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
    description: document.description,
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
  return { name: slugifySkillName(skill.name), description: describeForAgents(skill), metadata, body: normaliseBody(skill.instructions) };
}

export interface ImportedAgentSkill {
  id: string;
  name: string;
  category: string;
  account_id: string;
}

/**
 * Creates (or, for a name imported before, updates) a Porch custom skill from SKILL.md text
 * through the bundle importer, so the same validation and the same all-or-nothing write apply
 * as for `porch import`.
 */
export async function importAgentSkill(
  bundles: Pick<BundleService, 'importBundle'>,
  accountId: string,
  skillMdText: string,
  options: { expectedName?: string; category?: string; model?: string } = {},
): Promise<ImportedAgentSkill> {
  const document = parseSkillMd(skillMdText);
  if (options.expectedName !== undefined && options.expectedName !== document.name) {
    throw new PorchError('VALIDATION_ERROR', `Invalid SKILL.md: its name "${document.name}" must equal its folder name "${options.expectedName}".`);
  }
  const entry = agentSkillToPorchSkill(document, options);
  // The skill's name is its key, so importing a SKILL.md again updates the skill (as a new
  // version when it changed) rather than adding a second one.
  const key = IDENTIFIER_PATTERN.test(document.name) ? document.name : `skill-${document.name}`;
  const summary = await bundles.importBundle(accountId, { skills: [{ key, ...entry }] });
  const id = summary.ids[`skill:${key}`];
  if (!id) throw new PorchError('INTERNAL_ERROR', 'The skill was imported but its id was not reported.');
  return { id, name: entry.name, category: entry.category, account_id: summary.account_id };
}
