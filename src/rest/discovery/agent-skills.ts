/**
 * The Agent Skills discovery index (schema v0.2.0) and the files it points at, built from the
 * skills/ folder. A skill with only a SKILL.md is listed as `skill-md`; a skill with scripts is
 * listed as an `archive` (a deterministic .tar.gz of its folder). Every digest is the sha256 of
 * the exact bytes served. scripts/build-skills-index.ts writes the same index to
 * .well-known/agent-skills/index.json, and a test fails when the committed copy is stale.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseSkillMd } from '../../core/skills-bridge/index.js';
import { SITE_PATHS } from '../../operations/site-paths.js';
import { tarGzip, type ArchiveEntry } from './tar-gzip.js';

export const AGENT_SKILLS_SCHEMA_URL = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';
export const SKILLS_FOLDER = 'skills';
export const COMMITTED_INDEX_PATH = '.well-known/agent-skills/index.json';

export interface AgentSkillsIndexEntry {
  name: string;
  type: 'skill-md' | 'archive';
  description: string;
  /**
   * Relative to the index (`porch-run.tar.gz`, `porch-judge/SKILL.md`): clients resolve it against
   * the index's URL, so the committed index is valid on any host and under any path a proxy puts
   * Porch at (regression: `/.well-known/...` led outside a proxy that strips `/porch`).
   */
  url: string;
  digest: string;
}

export interface AgentSkillsIndex {
  $schema: typeof AGENT_SKILLS_SCHEMA_URL;
  skills: AgentSkillsIndexEntry[];
}

export interface ServedFile {
  bytes: Uint8Array;
  contentType: string;
  /** `sha256:<hex>` of `bytes`; also the strong ETag. */
  digest: string;
}

export interface AgentSkillsCatalog {
  index: AgentSkillsIndex;
  /** Every servable file by site path: the index, each skill's files and the archives. */
  files: Map<string, ServedFile>;
}

const CONTENT_TYPES: Array<[RegExp, string]> = [
  [/\.md$/i, 'text/markdown; charset=utf-8'],
  [/\.(mjs|js)$/i, 'text/javascript; charset=utf-8'],
  [/\.json$/i, 'application/json'],
  [/\.tar\.gz$/i, 'application/gzip'],
  [/\.(txt|sh|ya?ml)$/i, 'text/plain; charset=utf-8'],
];

/** Characters the discovery draft allows in file paths (printable ASCII without \ ? # [ ]). */
const SAFE_PATH = /^[\x20-\x7e]+$/;
const UNSAFE_PATH_CHARACTERS = /[\\?#[\]]/;

export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

function contentTypeOf(path: string): string {
  return CONTENT_TYPES.find(([pattern]) => pattern.test(path))?.[1] ?? 'application/octet-stream';
}

function served(bytes: Uint8Array, path: string): ServedFile {
  return { bytes, contentType: contentTypeOf(path), digest: sha256Digest(bytes) };
}

/** Files of a skill folder, relative, sorted byte-wise; hidden files (.DS_Store, editor swap files) are skipped. */
function listFiles(folder: string, prefix = ''): string[] {
  const files: string[] = [];
  for (const name of readdirSync(join(folder, prefix)).sort()) {
    if (name.startsWith('.')) continue;
    const relative = prefix ? `${prefix}/${name}` : name;
    if (statSync(join(folder, relative)).isDirectory()) files.push(...listFiles(folder, relative));
    else files.push(relative);
  }
  return files;
}

export function serializeIndex(index: AgentSkillsIndex): string {
  return `${JSON.stringify(index, null, 2)}\n`;
}

/**
 * Reads skills/ under `rootDir`. A malformed skill (bad front matter, a name that is not its
 * folder's, an unsafe file name) is an error, so a broken skill never ships silently.
 */
export function loadAgentSkills(rootDir: string): AgentSkillsCatalog {
  const skillsDir = join(rootDir, SKILLS_FOLDER);
  const files = new Map<string, ServedFile>();
  const skills: AgentSkillsIndexEntry[] = [];
  const folders = readdirSync(skillsDir)
    .filter((name) => !name.startsWith('.') && statSync(join(skillsDir, name)).isDirectory())
    .sort();
  for (const folder of folders) {
    const skillDir = join(skillsDir, folder);
    const skillMd = readFileSync(join(skillDir, 'SKILL.md'));
    const document = parseSkillMd(skillMd.toString('utf8'));
    if (document.name !== folder) throw new Error(`skills/${folder}/SKILL.md is named "${document.name}"; the name must equal its folder.`);
    const paths = listFiles(skillDir);
    const entries: ArchiveEntry[] = [];
    for (const path of paths) {
      if (!SAFE_PATH.test(path) || UNSAFE_PATH_CHARACTERS.test(path))
        throw new Error(`skills/${folder}/${path}: file names must be printable ASCII without \\ ? # [ ].`);
      const bytes = path === 'SKILL.md' ? skillMd : readFileSync(join(skillDir, path));
      files.set(`${SITE_PATHS.agentSkillsBase}/${folder}/${path}`, served(bytes, path));
      entries.push({ path, bytes, mode: path.startsWith('scripts/') ? 0o755 : 0o644 });
    }
    const hasScripts = paths.some((path) => path.startsWith('scripts/'));
    if (hasScripts) {
      // SKILL.md first (the draft's recommendation), then the rest in byte order.
      const ordered = [...entries].sort((a, b) => (a.path === 'SKILL.md' ? -1 : b.path === 'SKILL.md' ? 1 : a.path < b.path ? -1 : 1));
      const url = `${folder}.tar.gz`;
      const archive = served(tarGzip(ordered), url);
      files.set(`${SITE_PATHS.agentSkillsBase}/${url}`, archive);
      skills.push({ name: folder, type: 'archive', description: document.description, url, digest: archive.digest });
    } else {
      skills.push({ name: folder, type: 'skill-md', description: document.description, url: `${folder}/SKILL.md`, digest: sha256Digest(skillMd) });
    }
  }
  const index: AgentSkillsIndex = { $schema: AGENT_SKILLS_SCHEMA_URL, skills };
  files.set(SITE_PATHS.agentSkillsIndex, served(Buffer.from(serializeIndex(index), 'utf8'), SITE_PATHS.agentSkillsIndex));
  return { index, files };
}
