/**
 * The parts of docs/ that are rendered from code, so the documentation says exactly what the
 * server does: the error table of docs/errors.md (from ERROR_TABLE) and the tool table of
 * docs/mcp.md (from the operations exposed as MCP tools). Each sits between two markers;
 * `npm run build:docs` rewrites it and a test fails when a committed file differs.
 */
import { ERROR_CODES, ERROR_TABLE, type ErrorDefinition } from '../../core/errors.js';
import { describeScopes, exposedOn, type Operation } from '../../operations/operation.js';

export interface GeneratedBlock {
  /** The document it lives in, relative to the package root. */
  file: string;
  /** The marker name: `<!-- BEGIN GENERATED {name} (npm run build:docs) -->`. */
  name: string;
  render(operations: readonly Operation[]): string;
}

function renderErrorTable(): string {
  const codes = [...ERROR_CODES].sort((a, b) => ERROR_TABLE[a].status - ERROR_TABLE[b].status || a.localeCompare(b));
  const rows = codes.map((code) => {
    const definition: ErrorDefinition = ERROR_TABLE[code];
    return `| ${definition.status} | \`${code}\` | ${definition.setB ? `\`${definition.setB}\`` : 'same'} | ${definition.summary}. | ${definition.hint} |`;
  });
  return ['| Status | Code | With `PORCH_ERROR_CODES=b` | Meaning | What to do |', '|---|---|---|---|---|', ...rows].join('\n');
}

function renderToolTable(operations: readonly Operation[]): string {
  const rows = exposedOn(operations, 'mcp-tool').map((operation) => {
    const scopes = operation.access === 'keyed' ? describeScopes(operation) : 'none';
    return `| \`${operation.name}\` | ${operation.title} | ${scopes} | ${operation.effect} |`;
  });
  return ['| Tool | What it does | Scopes (any of) | Effect |', '|---|---|---|---|', ...rows].join('\n');
}

export const GENERATED_BLOCKS: readonly GeneratedBlock[] = [
  { file: 'docs/errors.md', name: 'ERROR TABLE', render: renderErrorTable },
  { file: 'docs/mcp.md', name: 'TOOL TABLE', render: renderToolTable },
];

/** The document with the block's content rendered anew; throws when its markers are missing. */
export function withGeneratedBlock(markdown: string, block: GeneratedBlock, operations: readonly Operation[]): string {
  const beginMarker = `<!-- BEGIN GENERATED ${block.name} (npm run build:docs) -->`;
  const endMarker = `<!-- END GENERATED ${block.name} -->`;
  const begin = markdown.indexOf(beginMarker);
  const end = markdown.indexOf(endMarker);
  if (begin < 0 || end < begin) throw new Error(`${block.file} lacks the markers of its generated ${block.name.toLowerCase()}.`);
  return `${markdown.slice(0, begin + beginMarker.length)}\n${block.render(operations)}\n${markdown.slice(end)}`;
}
