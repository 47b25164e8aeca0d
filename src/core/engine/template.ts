/**
 * The `{{ name }}` template language shared by compositions, skills and workflows.
 *
 * Syntax:
 * - `{{ name }}` inserts the value of `name`; whitespace inside the braces is allowed.
 *   A name is an identifier (`[A-Za-z_][A-Za-z0-9_-]*`), optionally followed by a property path
 *   (`{{ review.score }}`) that picks a field out of an object value.
 * - `\{{` renders a literal `{{` (the backslash is dropped). Only a backslash directly before
 *   `{{` is special; backslashes anywhere else are ordinary text.
 * - Anything else is literal text: an unterminated `{{`, or braces around something that is not a
 *   name (`{{ not a name }}`, `{{}}`), renders as written. Templates are user text, so parsing
 *   never throws.
 *
 * Values render as: strings as they are, numbers and booleans with String(), objects and arrays
 * as JSON, null as the empty string. A reference whose value is missing (the lookup answers
 * undefined, or the property path does not exist) makes rendering throw one
 * MissingVariableError naming every missing reference, so callers can answer 400 before any
 * tokens are spent.
 *
 * Parsing and rendering are linear in the template's length: the parser looks at each `{{` once
 * and the text it scans after one never contains another `{`, so no character is scanned twice
 * (apart from the brace that a failed match hands back).
 */
import { PorchError } from '../errors.js';

/** A root name and its property path, as written between the braces. */
export interface TemplateReference {
  /** The name the lookup is asked for (`review` in `{{ review.score }}`). */
  readonly root: string;
  /** Property names walked from the root value (`['score']`); empty for a plain name. */
  readonly path: readonly string[];
  /** The whole reference as written without whitespace (`review.score`), used in messages. */
  readonly name: string;
}

export type TemplateSegment = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'reference'; readonly reference: TemplateReference };

/** A template parsed once and rendered many times. */
export interface CompiledTemplate {
  readonly source: string;
  readonly segments: readonly TemplateSegment[];
  /** Unique root names in order of first appearance. */
  readonly references: readonly string[];
}

/** What a lookup answers for a name it does not know. */
export type TemplateLookup = (name: string) => unknown;

/**
 * Thrown when a template references names that have no value. It is a VALIDATION_ERROR, so a
 * caller that lets it propagate answers 400 with a message naming every missing variable.
 */
export class MissingVariableError extends PorchError {
  /** Each missing reference once, in order of first appearance (`topic`, `review.score`). */
  readonly missing: readonly string[];

  constructor(missing: readonly string[]) {
    const label = missing.length === 1 ? 'variable' : 'variables';
    super('VALIDATION_ERROR', `Missing required ${label}: ${missing.join(', ')}`);
    this.missing = missing;
  }
}

const OPEN = '{{';
const CLOSE = '}}';
const ESCAPE = '\\';

function isIdentifierStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95; // A-Z a-z _
}

function isIdentifierPart(code: number): boolean {
  return isIdentifierStart(code) || (code >= 48 && code <= 57) || code === 45; // 0-9 -
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/** Reads an identifier starting at `start`; answers its end index, or -1 when there is none. */
function scanIdentifier(source: string, start: number): number {
  if (start >= source.length || !isIdentifierStart(source.charCodeAt(start))) return -1;
  let index = start + 1;
  while (index < source.length && isIdentifierPart(source.charCodeAt(index))) index += 1;
  return index;
}

/**
 * Tries to read a reference whose `{{` starts at `open`. Answers the reference and the index
 * after its `}}`, or undefined when the text there is not a reference.
 */
function scanReference(source: string, open: number): { reference: TemplateReference; end: number } | undefined {
  let index = open + OPEN.length;
  while (index < source.length && isSpace(source.charCodeAt(index))) index += 1;
  const rootEnd = scanIdentifier(source, index);
  if (rootEnd < 0) return undefined;
  const root = source.slice(index, rootEnd);
  const path: string[] = [];
  index = rootEnd;
  while (source.charCodeAt(index) === 46 /* . */) {
    const partEnd = scanIdentifier(source, index + 1);
    if (partEnd < 0) return undefined;
    path.push(source.slice(index + 1, partEnd));
    index = partEnd;
  }
  while (index < source.length && isSpace(source.charCodeAt(index))) index += 1;
  if (!source.startsWith(CLOSE, index)) return undefined;
  const name = path.length === 0 ? root : `${root}.${path.join('.')}`;
  return { reference: { root, path, name }, end: index + CLOSE.length };
}

/** Parses a template once; the result renders any number of times. Never throws. */
export function parseTemplate(template: string): CompiledTemplate {
  const segments: TemplateSegment[] = [];
  const references: string[] = [];
  const seenRoots = new Set<string>();
  // Literal text accumulates in pieces so escapes and failed matches do not split segments.
  let text = '';
  let cursor = 0;
  let searchFrom = 0;

  while (searchFrom < template.length) {
    const open = template.indexOf(OPEN, searchFrom);
    if (open < 0) break;
    if (open > 0 && template[open - 1] === ESCAPE) {
      // `\{{` is a literal `{{`: keep the text before the backslash, drop the backslash.
      text += template.slice(cursor, open - 1) + OPEN;
      cursor = open + OPEN.length;
      searchFrom = cursor;
      continue;
    }
    const match = scanReference(template, open);
    if (match === undefined) {
      // Not a reference: the first brace is literal, and `{{{name}}}` still finds `{{name}}`.
      searchFrom = open + 1;
      continue;
    }
    text += template.slice(cursor, open);
    if (text.length > 0) segments.push({ kind: 'text', text });
    text = '';
    segments.push({ kind: 'reference', reference: match.reference });
    if (!seenRoots.has(match.reference.root)) {
      seenRoots.add(match.reference.root);
      references.push(match.reference.root);
    }
    cursor = match.end;
    searchFrom = cursor;
  }
  text += template.slice(cursor);
  if (text.length > 0) segments.push({ kind: 'text', text });
  return { source: template, segments, references };
}

/** Unique root names a template references, in order of first appearance. */
export function templateReferences(template: string | CompiledTemplate): readonly string[] {
  return (typeof template === 'string' ? parseTemplate(template) : template).references;
}

const MISSING = Symbol('missing');

function resolveReference(reference: TemplateReference, lookup: TemplateLookup): unknown {
  let value: unknown = lookup(reference.root);
  if (value === undefined) return MISSING;
  for (const property of reference.path) {
    // Only own fields of plain objects: a path must not reach `constructor` or `__proto__`.
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return MISSING;
    if (!Object.hasOwn(value, property)) return MISSING;
    value = (value as Record<string, unknown>)[property];
    if (value === undefined) return MISSING;
  }
  return value;
}

/** How a value looks inside rendered text. */
export function formatTemplateValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null) return '';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  return JSON.stringify(value) ?? '';
}

/**
 * The longest text a template may render to: twice the largest request body, far more than any
 * model reads. Without a bound a short template repeating a large value (`{{v}}{{v}}...`), or a
 * workflow whose nodes each double the one before, renders gigabytes from a few kilobytes.
 */
export const MAX_RENDERED_CHARACTERS = 2_000_000;

/**
 * Renders a template with values from `lookup`. Throws MissingVariableError naming every
 * reference whose value is missing, and VALIDATION_ERROR when the text would be longer than
 * MAX_RENDERED_CHARACTERS (checked before the text is built); renders nothing partial.
 */
export function renderTemplate(template: string | CompiledTemplate, lookup: TemplateLookup): string {
  const compiled = typeof template === 'string' ? parseTemplate(template) : template;
  const parts: string[] = [];
  let length = 0;
  let missing: Set<string> | undefined;
  for (const segment of compiled.segments) {
    let text: string;
    if (segment.kind === 'text') {
      text = segment.text;
    } else {
      const value = resolveReference(segment.reference, lookup);
      if (value === MISSING) {
        missing ??= new Set();
        missing.add(segment.reference.name);
        continue;
      }
      text = formatTemplateValue(value);
    }
    length += text.length;
    if (length > MAX_RENDERED_CHARACTERS) {
      throw new PorchError(
        'VALIDATION_ERROR',
        `The template renders to more than ${MAX_RENDERED_CHARACTERS.toLocaleString('en')} characters; shorten the values it repeats.`,
      );
    }
    parts.push(text);
  }
  if (missing !== undefined) throw new MissingVariableError([...missing]);
  return parts.join('');
}
