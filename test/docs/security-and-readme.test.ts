/**
 * README.md, SECURITY.md and docs/ state what the server does about MCP: which tools answer
 * without a key, that compressed bodies are refused over MCP too, how a bad key is refused, and
 * stdio snippets a user can paste as they are. Each claim is read from the docs and checked
 * against the code it describes (regressions: each said something the server did not do).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { operations } from '../../src/operations/index.js';
import { isOperationAllowed } from '../../src/operations/invoke.js';
import { exposedOn } from '../../src/operations/operation.js';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

const PUBLIC_TOOLS = exposedOn(operations, 'mcp-tool')
  .filter((operation) => operation.access === 'public')
  .map((operation) => operation.name);

/** The paragraphs, list items and table rows of a document that say what MCP serves without a key. */
function keylessLines(text: string): string[] {
  return text.split(/\n(?=\s*\n|- |\| )/).filter((block) => /without a key|`, no key\)/i.test(block) && /MCP|tool|listed/i.test(block));
}

describe('what works without a key', () => {
  it.each(['README.md', 'SECURITY.md', 'docs/mcp.md', 'docs/decisions.md'])('%s names every public MCP tool where it says what needs no key', (file) => {
    const lines = keylessLines(read(file)).join('\n');
    expect(lines, `${file} has no line on key-less MCP`).not.toBe('');
    for (const tool of PUBLIC_TOOLS) expect(lines, `${file} does not name ${tool} among the key-less tools`).toContain(tool);
  });
});

describe('what a key with one scope sees', () => {
  it('docs/mcp.md names exactly the tools tools/list shows a key whose only scope is api:sanitiser (regression: list_models left out)', () => {
    const visible = exposedOn(operations, 'mcp-tool')
      .filter((operation) => isOperationAllowed(operation, ['api:sanitiser']))
      .map((operation) => operation.name);
    const sentence = /a key whose only scope is `api:sanitiser` sees ([^.]*)\./.exec(read('docs/mcp.md').replace(/\s+/g, ' '))?.[1] ?? '';
    expect(sentence, 'docs/mcp.md says what an api:sanitiser key sees').not.toBe('');
    const named = [...sentence.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]);
    expect(named.sort()).toEqual(visible.sort());
  });
});

describe('compressed bodies and refused keys over MCP', () => {
  it('README.md and SECURITY.md say compressed bodies are refused over MCP as well as REST', () => {
    for (const file of ['README.md', 'SECURITY.md']) {
      const row = read(file)
        .split('\n')
        .find((line) => line.startsWith('| Compressed request bodies'));
      expect(row, file).toContain('MCP');
      expect(row, file).toContain('415');
    }
  });

  it('docs/decisions.md says an MCP 401 carries WWW-Authenticate and a JSON-RPC error, not the REST envelope', () => {
    const decisions = read('docs/decisions.md');
    expect(decisions).not.toContain('refused (HTTP 401 with the error envelope');
    expect(decisions).toContain('`WWW-Authenticate: Bearer`');
    expect(decisions).toContain('JSON-RPC error body');
  });
});

describe('stdio client snippets', () => {
  /** JSON blocks that start `porch mcp`, and `claude mcp add` commands for stdio. */
  function stdioSnippets(text: string): string[] {
    const json = [...text.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1] ?? '').filter((block) => block.includes('"mcp"]'));
    const commands = [...text.matchAll(/claude mcp add --env(?:[^\n]*\\\n)*[^\n]*/g)].map((match) => match[0]);
    return [...json, ...commands];
  }

  it.each(['README.md', 'docs/mcp.md'])('%s: every stdio snippet is complete: key, absolute database, public URL', (file) => {
    const snippets = stdioSnippets(read(file));
    expect(snippets.length, `${file} has no stdio snippet`).toBeGreaterThan(0);
    for (const snippet of snippets) {
      expect(snippet).toContain('PORCH_API_KEY');
      expect(snippet).toMatch(/DATABASE_URL["=:\s]+"?file:\//);
      expect(snippet).toContain('PORCH_PUBLIC_URL');
    }
  });
});
