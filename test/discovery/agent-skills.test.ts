/** The Agent Skills index: committed copy in sync, digests equal to the bytes served, archives sound, 404s. */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSkillMd } from '../../src/core/skills-bridge/index.js';
import {
  AGENT_SKILLS_SCHEMA_URL,
  COMMITTED_INDEX_PATH,
  loadAgentSkills,
  serializeIndex,
  type AgentSkillsIndex,
} from '../../src/rest/discovery/agent-skills.js';
import { PACKAGE_ROOT } from '../../src/rest/discovery/package-root.js';
import { crc32, gzipStored, readTarGzip, tarGzip } from '../../src/rest/discovery/tar-gzip.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

const run = promisify(execFile);
/** The format's advice: keep SKILL.md bodies under about 500 lines (long material goes elsewhere). */
const MAX_SKILL_MD_LINES = 500;

let harness: Harness;
let index: AgentSkillsIndex;
beforeAll(async () => {
  harness = await createHarness();
  index = (await harness.site<AgentSkillsIndex>('GET', '/.well-known/agent-skills/index.json')).body;
});
afterAll(() => harness.close());

/** A site path, or a skill's url as the index gives it: relative to the index, as a client resolves it. */
const urlOf = (path: string) => new URL(path, `${harness.url}/.well-known/agent-skills/index.json`);

async function fetchBytes(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(urlOf(path), { headers });
  return { response, bytes: new Uint8Array(await response.arrayBuffer()) };
}

function rawGet(path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(harness.url);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ hostname, port, path, method: 'GET' }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

describe('the Agent Skills index', () => {
  it('is the committed .well-known/agent-skills/index.json, regenerated from skills/ (run npm run build:skills-index when this fails)', async () => {
    const committed = await readFile(join(PACKAGE_ROOT, COMMITTED_INDEX_PATH), 'utf8');
    expect(committed).toBe(serializeIndex(loadAgentSkills(PACKAGE_ROOT).index));
    const served = await harness.site('GET', '/.well-known/agent-skills/index.json');
    expect(served.text).toBe(committed);
  });

  it('follows discovery schema v0.2.0 and has a skill for every area', () => {
    expect(index.$schema).toBe(AGENT_SKILLS_SCHEMA_URL);
    expect(index.skills.map((skill) => skill.name)).toEqual(['porch-api', 'porch-context-cards', 'porch-judge', 'porch-run', 'porch-sanitise']);
    for (const skill of index.skills) {
      expect(skill.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(skill.description.length).toBeGreaterThan(40);
      expect(skill.description.length).toBeLessThanOrEqual(1024);
      expect(skill.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(skill.type).toBe(skill.url.endsWith('.tar.gz') ? 'archive' : 'skill-md');
    }
  });

  it('gives each skill a digest equal to the sha256 of the bytes served at its url, on GET and HEAD', async () => {
    for (const skill of index.skills) {
      const { response, bytes } = await fetchBytes(skill.url);
      expect(response.status, skill.url).toBe(200);
      expect(sha256(bytes), skill.url).toBe(skill.digest);
      expect(response.headers.get('etag')).toBe(`"${skill.digest}"`);
      expect(response.headers.get('cache-control')).toMatch(/max-age=\d+/);
      expect(response.headers.get('content-type')).toBe(skill.type === 'archive' ? 'application/gzip' : 'text/markdown; charset=utf-8');
      const head = await fetch(urlOf(skill.url), { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('etag')).toBe(`"${skill.digest}"`);
      expect(await head.text()).toBe('');
    }
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const skill = index.skills[0];
    if (!skill) throw new Error('no skills');
    const { response } = await fetchBytes(skill.url, { 'if-none-match': `"${skill.digest}"` });
    expect(response.status).toBe(304);
    // A weak tag matches too (weak comparison, RFC 9110), and so does `*` (regression: both got 200).
    for (const header of [`W/"${skill.digest}"`, '*', `"other", W/"${skill.digest}"`]) {
      expect((await fetchBytes(skill.url, { 'if-none-match': header })).response.status, header).toBe(304);
    }
    expect((await fetchBytes(skill.url, { 'if-none-match': '"other"' })).response.status).toBe(200);
  });

  it('packs every file of a skill with scripts into its archive, SKILL.md first, readable by tar', async () => {
    for (const skill of index.skills.filter((entry) => entry.type === 'archive')) {
      const { bytes } = await fetchBytes(skill.url);
      const entries = readTarGzip(bytes);
      expect(entries[0]?.path).toBe('SKILL.md');
      for (const entry of entries) {
        const { response, bytes: file } = await fetchBytes(`/.well-known/agent-skills/${skill.name}/${entry.path}`);
        expect(response.status, entry.path).toBe(200);
        expect(Buffer.from(file).equals(Buffer.from(entry.bytes)), `${skill.name}/${entry.path} differs from the archive`).toBe(true);
        expect(entry.mode).toBe(entry.path.startsWith('scripts/') ? 0o755 : 0o644);
      }
      expect(entries.some((entry) => entry.path.startsWith('scripts/'))).toBe(true);
      const directory = await mkdtemp(join(tmpdir(), 'porch-archive-'));
      try {
        await writeFile(join(directory, 'skill.tar.gz'), bytes);
        const { stdout } = await run('tar', ['-tzf', join(directory, 'skill.tar.gz')]);
        expect(stdout.trim().split('\n')).toEqual(entries.map((entry) => entry.path));
      } finally {
        await rm(directory, { recursive: true, force: true });
      }
    }
  });

  it('builds archives byte for byte the same every time (so digests stay valid)', () => {
    const first = loadAgentSkills(PACKAGE_ROOT);
    const second = loadAgentSkills(PACKAGE_ROOT);
    for (const [path, file] of first.files) expect(second.files.get(path)?.digest, path).toBe(file.digest);
    // The stored-block gzip round-trips through zlib and carries the right CRC.
    const data = new TextEncoder().encode('x'.repeat(70_000));
    expect(readTarGzip(tarGzip([{ path: 'a.txt', bytes: data, mode: 0o644 }]))[0]?.bytes).toEqual(data);
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
    expect(gzipStored(new Uint8Array()).length).toBe(10 + 5 + 8);
  });

  it('answers 404 for unknown skills, unknown files and path tricks', async () => {
    for (const path of [
      '/.well-known/agent-skills/no-such-skill/SKILL.md',
      '/.well-known/agent-skills/porch-api/scripts/missing.mjs',
      '/.well-known/agent-skills/no-such-skill.tar.gz',
      '/.well-known/agent-skills/porch-api/../../../package.json',
      '/.well-known/agent-skills/porch-api/%2e%2e/%2e%2e/package.json',
      '/.well-known/agent-skills/%2e%2e%2fpackage.json',
      '/.well-known/agent-skills/',
    ]) {
      // Sent raw: fetch would resolve the dot segments before the server saw them.
      const response = await rawGet(path);
      expect(response.status, path).toBe(404);
      expect(response.body).not.toContain('"dependencies"');
    }
  });

  it('keeps each SKILL.md valid: name equals folder, a what-and-when description, body under 500 lines', async () => {
    for (const skill of index.skills) {
      const text = (await harness.site('GET', `/.well-known/agent-skills/${skill.name}/SKILL.md`)).text;
      const document = parseSkillMd(text);
      expect(document.name).toBe(skill.name);
      expect(document.description).toMatch(/\bUse (when|whenever|before)\b/);
      expect(text.split('\n').length).toBeLessThan(MAX_SKILL_MD_LINES);
    }
  });

  it('sends an agent that needs a field no skill lists to the Markdown API reference, not to the OpenAPI document (regression: 1.26 MB of JSON to read)', async () => {
    const reference = await harness.site('GET', '/docs/api-reference.md');
    expect(reference.status).toBe(200);
    expect(reference.headers.get('content-type')).toMatch(/^text\/markdown/);
    for (const skill of index.skills) {
      const text = (await harness.site('GET', `/.well-known/agent-skills/${skill.name}/SKILL.md`)).text;
      for (const sentence of text.split(/(?<=[.;:])\s+/).filter((candidate) => /field/i.test(candidate) && /read/i.test(candidate))) {
        expect(sentence, skill.name).not.toContain('openapi.json');
      }
    }
    const api = (await harness.site('GET', '/.well-known/agent-skills/porch-api/SKILL.md')).text;
    expect(api).toMatch(/field this page does not list, read[^.]*`\$PORCH_URL\/docs\/api-reference\.md`/);
  });

  it('ships one and the same porch.mjs client in every skill that has one', async () => {
    const canonical = await readFile(join(PACKAGE_ROOT, 'skills/porch-api/scripts/porch.mjs'));
    for (const skill of ['porch-run', 'porch-sanitise']) {
      const copy = await readFile(join(PACKAGE_ROOT, `skills/${skill}/scripts/porch.mjs`));
      expect(copy.equals(canonical), `skills/${skill}/scripts/porch.mjs differs from skills/porch-api/scripts/porch.mjs`).toBe(true);
    }
  });

  it('refuses to build an index from a skill whose name is not its folder', async () => {
    const root = await mkdtemp(join(tmpdir(), 'porch-skills-'));
    try {
      await run('mkdir', ['-p', join(root, 'skills/right-name')]);
      await writeFile(join(root, 'skills/right-name/SKILL.md'), '---\nname: wrong-name\ndescription: Does a thing. Use when testing.\n---\n\nBody.\n');
      expect(() => loadAgentSkills(root)).toThrow(/must equal its folder/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('the index response', () => {
  it('has a JSON content type, cache headers and open CORS (a public document)', async () => {
    const response = await harness.site('GET', '/.well-known/agent-skills/index.json');
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('cache-control')).toMatch(/public, max-age=\d+/);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers the CORS preflight of the public documents (regression: 404, which blocked the GET in a browser)', async () => {
    const markdown = ['/docs/quick-start.md', '/index.md', '/api/public/markdown-gateway'];
    for (const path of ['/.well-known/agent-skills/index.json', '/openapi.json', '/llms.txt', '/.well-known/api-catalog', ...markdown]) {
      const response = await harness.site('OPTIONS', path, {
        headers: { origin: 'https://tool.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'mcp-protocol-version' },
      });
      expect(response.status, `${path}: ${describeResponse(response)}`).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-headers')).toBe('mcp-protocol-version');
    }
    // The Markdown the preflight opens the way to (regression: no Access-Control-Allow-Origin).
    for (const path of ['/docs/quick-start.md', '/api/public/markdown-gateway?path=/docs/quick-start']) {
      expect((await harness.site('GET', path)).headers.get('access-control-allow-origin'), path).toBe('*');
    }
  });
});
