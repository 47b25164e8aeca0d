/**
 * The Agent Skills SKILL.md format (agentskills.io/specification): YAML front matter with `name`
 * and `description` (plus optional `license`, `compatibility`, `metadata`, `allowed-tools`),
 * then Markdown instructions. Parsing is strict about what the format requires and tolerant of
 * extra front-matter keys other tools add.
 */
import { describeYamlError, parseYaml, yaml } from '../yaml.js';
import { z } from 'zod';
import { PorchError } from '../errors.js';
import { formatZodError } from '../validation.js';

/** The specification's limits. */
export const SKILL_NAME_MAX_LENGTH = 64;
export const SKILL_DESCRIPTION_MAX_LENGTH = 1024;
export const SKILL_COMPATIBILITY_MAX_LENGTH = 500;
/** Lowercase letters, digits and single hyphens, not at either end. */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

export const skillNameSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(SKILL_NAME_MAX_LENGTH, `must be at most ${SKILL_NAME_MAX_LENGTH} characters`)
  .regex(SKILL_NAME_PATTERN, 'must be lowercase letters, digits and single hyphens, not starting or ending with a hyphen');

const frontMatterSchema = z.looseObject({
  name: skillNameSchema,
  description: z.string().trim().min(1, 'must not be empty').max(SKILL_DESCRIPTION_MAX_LENGTH, `must be at most ${SKILL_DESCRIPTION_MAX_LENGTH} characters`),
  license: z.string().optional(),
  compatibility: z.string().max(SKILL_COMPATIBILITY_MAX_LENGTH).optional(),
  // The format says string → string; numbers and booleans written without quotes are accepted as text.
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String)).optional(),
  'allowed-tools': z.string().optional(),
});

export interface AgentSkillDocument {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  metadata: Record<string, string>;
  allowedTools?: string;
  /** The Markdown instructions, without the blank lines that separate them from the front matter. */
  body: string;
}

function invalid(message: string): PorchError {
  return new PorchError('VALIDATION_ERROR', `Invalid SKILL.md: ${message}`);
}

/** Leading blank lines and trailing whitespace carry no meaning in a SKILL.md body. */
export function normaliseBody(body: string): string {
  return body.replace(/^(?:[ \t]*\r?\n)+/, '').trimEnd();
}

export function parseSkillMd(text: string): AgentSkillDocument {
  const match = FRONT_MATTER.exec(text);
  if (!match) throw invalid('it must start with YAML front matter between two "---" lines.');
  let raw: unknown;
  try {
    raw = parseYaml(match[1] ?? '', { maxAliasCount: 10 });
  } catch (err) {
    throw invalid(`the front matter is not valid YAML: ${describeYamlError(err)}`);
  }
  const parsed = frontMatterSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    throw invalid(formatZodError(parsed.error, { whole: 'front matter' }));
  }
  const body = normaliseBody(text.slice(match[0].length));
  if (body.length === 0) throw invalid('the instructions after the front matter are empty.');
  const { name, description, license, compatibility, metadata } = parsed.data;
  const allowedTools = parsed.data['allowed-tools'];
  return {
    name,
    description,
    ...(license === undefined ? {} : { license }),
    ...(compatibility === undefined ? {} : { compatibility }),
    metadata: metadata ?? {},
    ...(allowedTools === undefined ? {} : { allowedTools }),
    body,
  };
}

/** Renders a document; `parseSkillMd(renderSkillMd(doc))` gives the document back. */
export function renderSkillMd(document: AgentSkillDocument): string {
  const frontMatter: Record<string, unknown> = { name: document.name, description: document.description };
  if (document.license !== undefined) frontMatter.license = document.license;
  if (document.compatibility !== undefined) frontMatter.compatibility = document.compatibility;
  if (Object.keys(document.metadata).length > 0) frontMatter.metadata = document.metadata;
  if (document.allowedTools !== undefined) frontMatter['allowed-tools'] = document.allowedTools;
  // lineWidth 0: never fold long descriptions, so the text stays greppable.
  return `---\n${yaml().stringify(frontMatter, { lineWidth: 0 })}---\n\n${normaliseBody(document.body)}\n`;
}
