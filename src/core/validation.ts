/**
 * The one way Porch words validation problems, whatever was validated: a request, the config
 * file, a bundle, a workflow definition, a custom rule, a SKILL.md, a judge reply. Every message
 * names each problem by its path in one syntax, `body.nodes[2].prompt`: dots before names,
 * brackets around array indices, the root (`body`, `ai`, `workflows[1].definition`) first.
 */
import { z } from 'zod';

/** A JSON object (not an array, not null): what a parsed body, reply or stored payload must be to be read by field. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One problem: where (path segments below the root) and what. */
export interface ValidationIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

export interface FormatIssuesOptions {
  /** What the paths are relative to (`body`, `ai`, `workflows[2].definition`); none for top-level names. */
  root?: string;
  /** How a problem of the whole value is named when there is no root (`arguments`, `front matter`). */
  whole?: string;
  /** At most this many problems are listed; the rest are counted ("and 3 more"). */
  limit?: number;
}

/**
 * A character that shows: not whitespace, nor a control or format character (zero-width spaces
 * and joiners, U+2060, U+FEFF, bidi controls), nor another that renders as nothing (Hangul
 * fillers, variation selectors: Unicode's default-ignorable code points).
 */
const VISIBLE_CHARACTER = /[^\s\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/u;

/**
 * VISIBLE_CHARACTER as the OpenAPI document states it: the same characters of the Basic
 * Multilingual Plane, as code-point ranges written with `\xHH` and `\uHHHH` escapes only. Clients
 * compile `pattern` with their own engines, and the expression itself reached none of them whole:
 * Python's `re` (jsonschema) cannot compile `\p{...}`, Go's RE2 knows no
 * Default_Ignorable_Code_Point, and JavaScript without the `u` flag reads `\p` as a `p`, so that
 * "Code" failed (regression). These escapes mean the same in JavaScript with or without `u` and in
 * Python; RE2 has no `\u`, and Go's OpenAPI validators rewrite `\uHHHH` written in capitals to its
 * `\x{HHHH}`. Characters beyond the BMP are left out, because JavaScript without `u` reads each as
 * two halves of a surrogate pair: no class that named them would read the same in both. Every
 * engine then takes any of them for visible, and the server alone refuses a text of nothing but
 * invisible ones beyond the BMP (tag characters, a few format controls), with the message that
 * says why. A test holds the ranges to VISIBLE_CHARACTER on every BMP code point.
 */
const VISIBLE_CHARACTER_PATTERN = String.raw`[^\x00-\x20\x7F-\xA0\u00AD\u034F\u0600-\u0605\u061C\u06DD\u070F\u0890\u0891\u08E2\u115F\u1160\u1680\u17B4\u17B5\u180B-\u180F\u2000-\u200F\u2028-\u202F\u205F-\u206F\u3000\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB]`;

/**
 * A character that is not whitespace as `trim()` reads it, as the OpenAPI document states it:
 * written out as VISIBLE_CHARACTER_PATTERN is, since `\S` is another class in each engine
 * (Python's leaves out U+001C-U+001F and U+0085 and takes in U+FEFF, RE2's takes in U+00A0 and U+3000).
 */
const NON_WHITESPACE_PATTERN = String.raw`[^\x09-\x0D\x20\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF]`;

/**
 * Text that must hold more than whitespace, at most `maxLength` characters as sent. The length is
 * checked before trimming, so the OpenAPI document's `maxLength` and `minLength` accept exactly
 * what the server does (regressions: a whitespace-only title, a name over the limit only by its
 * surrounding spaces stored cut to the limit, were judged differently by the two).
 */
function trimmedText(maxLength: number) {
  return z.string().max(maxLength).trim().min(1, { error: 'must not be empty', abort: true });
}

/**
 * A name or a title: text that must hold something visible, at most `maxLength` characters as
 * sent. A name of only invisible characters (`"\u200b"`) made an item that looked blank in lists
 * and the console (regression), as a whitespace-only one would; a blank text is told only that it
 * is empty (`abort`), not also that it holds nothing visible. `pattern` says "a visible
 * character" (VISIBLE_CHARACTER_PATTERN).
 */
export function nonBlankText(maxLength: number) {
  return trimmedText(maxLength)
    .refine((text) => VISIBLE_CHARACTER.test(text), 'must hold a visible character (it holds only invisible ones, such as zero-width spaces)')
    .meta({ pattern: VISIBLE_CHARACTER_PATTERN });
}

/**
 * Text a model reads, not a label shown in a list (a prompt to judge): it must hold more than
 * whitespace, but may be made of invisible characters. They are part of what a model is given
 * (zero-width characters, tag characters that spell hidden instructions), and such a prompt is
 * worth judging; nothing shows it as a name.
 */
export function nonBlankContent(maxLength: number) {
  return trimmedText(maxLength).meta({ pattern: NON_WHITESPACE_PATTERN });
}

/** A message listing every problem of a large bad input would bury the first one. */
export const DEFAULT_REPORTED_ISSUES = 10;

/** `['nodes', 2, 'prompt']` under root `body` → `body.nodes[2].prompt`. */
export function formatPath(path: readonly PropertyKey[], root = ''): string {
  let text = root;
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text;
}

/** `body.nodes[2].prompt: must not be empty`; a problem of the whole value reads as its name. */
export function formatIssue(issue: ValidationIssue, options: Pick<FormatIssuesOptions, 'root' | 'whole'> = {}): string {
  const path = formatPath(issue.path, options.root);
  const where = path === '' ? options.whole : path;
  return where === undefined || where === '' ? issue.message : `${where}: ${issue.message}`;
}

/** Every problem, `; `-separated, capped at `limit` with a count of the rest. */
export function formatIssues(issues: readonly ValidationIssue[], options: FormatIssuesOptions = {}): string {
  const limit = options.limit ?? DEFAULT_REPORTED_ISSUES;
  const shown = issues.slice(0, limit).map((issue) => formatIssue(issue, options));
  const hidden = issues.length - shown.length;
  return `${shown.join('; ')}${hidden > 0 ? `; and ${hidden} more` : ''}`;
}

/** The issues of a failed zod parse, formatted as above. */
export function formatZodError(error: z.ZodError, options: FormatIssuesOptions = {}): string {
  return formatIssues(plainIssues(error), options);
}

/** The issues of a failed zod parse in Porch's words, for a caller that keeps them apart (a workflow definition's, each shown at its field). */
export function plainIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map(plainIssue);
}

/** zod's words for a field that is missing altogether, which say nothing a person can act on. */
const MISSING_FIELD = /^Invalid input: expected [\w ]+, received undefined$/;
/** zod's own messages (a schema's message of its own is kept as written). */
const ZOD_DEFAULT = /^(Too small:|Too big:|Invalid option:|Invalid input:|Invalid discriminator value\.)/;

const ARTICLE = (noun: string) => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);
const UNITS: Readonly<Record<string, string>> = { string: 'characters', array: 'items', set: 'items', file: 'bytes' };

/** A bound in the words the rest of Porch's messages use: `must be at least 3 characters`. */
function boundMessage(side: 'least' | 'most', issue: { origin?: string; inclusive?: boolean }, bound: unknown): string | undefined {
  const unit = issue.origin === undefined ? undefined : UNITS[issue.origin];
  if (unit !== undefined) {
    if (side === 'least' && Number(bound) === 1) return 'must not be empty';
    return `must ${issue.origin === 'string' ? 'be' : 'have'} at ${side} ${String(bound)} ${unit}`;
  }
  if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint') {
    if (issue.inclusive === false) return `must be ${side === 'least' ? 'more' : 'less'} than ${String(bound)}`;
    return `must be at ${side} ${String(bound)}`;
  }
  return undefined;
}

/**
 * zod's default words, which read like a parser's ("Too small: expected string to have >=1
 * characters", `Invalid option: expected one of "a"|"b"`), in the words of Porch's own messages:
 * `is required`, `must not be empty`, `must be one of a, b`, `must be a number`.
 */
function plainIssue(issue: z.core.$ZodIssue): ValidationIssue {
  if (!ZOD_DEFAULT.test(issue.message)) return issue;
  const plain = (message: string | undefined): ValidationIssue => (message === undefined ? issue : { path: issue.path, message });
  switch (issue.code) {
    case 'invalid_type':
      return plain(MISSING_FIELD.test(issue.message) ? 'is required' : `must be ${ARTICLE(issue.expected)}`);
    case 'too_small':
      return plain(boundMessage('least', issue, issue.minimum));
    case 'too_big':
      return plain(boundMessage('most', issue, issue.maximum));
    case 'invalid_value':
      return plain(issue.values.length === 1 ? `must be ${JSON.stringify(issue.values[0])}` : choiceMessage(issue.values, false));
    case 'invalid_union':
      // A discriminated union given no discriminatorError: whether the key was missing is no longer known here.
      return plain('options' in issue && issue.options !== undefined ? choiceMessage(issue.options, false) : undefined);
    default:
      return issue;
  }
}

/** A value that must be one of `choices`: `is required: one of a, b` when it is missing, else `must be one of a, b`. */
function choiceMessage(choices: readonly unknown[], missing: boolean): string {
  return `${missing ? 'is required: one' : 'must be one'} of ${choices.map(String).join(', ')}`;
}

/**
 * The `error` option of a discriminated union (`z.discriminatedUnion('kind', [...], { error:
 * discriminatorError })`): a missing discriminator `is required: one of model, template`, a wrong
 * one `must be one of model, template` (regression: zod's `Invalid discriminator value. Expected
 * 'model' | 'template'` reached REST and the console). Given to the union, since only there is the
 * input at hand: the issue a parse reports no longer says whether the key was sent.
 */
export function discriminatorError(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== 'invalid_union' || !('options' in issue) || !Array.isArray(issue.options) || issue.discriminator === undefined) return undefined;
  return choiceMessage(issue.options, !isRecord(issue.input) || issue.input[issue.discriminator] === undefined);
}

/** The fields a partial update sent: undefined means "not sent", so merging keeps the current value. */
export function definedFields<Changes extends object>(changes: Changes): Partial<Changes> {
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<Changes>;
}

/**
 * Applies a partial update as JSON Merge Patch (RFC 7396) does at the top level: a field left
 * out (or undefined) keeps its value, `null` removes the field, any other value replaces it.
 */
export function mergePatch<Current extends object>(current: Current, changes: object): Current {
  const merged: Record<string, unknown> = { ...(current as Record<string, unknown>) };
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) delete merged[name];
    else if (value !== undefined) merged[name] = value;
  }
  return merged as Current;
}

/**
 * The message for a string or name holding the NUL character (U+0000). PostgreSQL text can
 * neither store nor compare it, so no input accepts it on either engine: a value SQLite would
 * store and PostgreSQL refuse would make the same request succeed on one and fail on the other.
 */
export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';

/**
 * The message for an object key `__proto__`. JSON.parse makes it an ordinary own key, which a
 * strict schema did not see as unknown (regression), and copying it with an assignment would set
 * the copy's prototype instead; no input has a use for it.
 */
export const PROTO_KEY_MESSAGE = 'is not a name any input may use (__proto__)';

/**
 * The message for a string or name holding a lone surrogate (`"\ud800"` in JSON): not text in
 * any encoding. SQLite stored it as three U+FFFD and PostgreSQL as one, while the create answered
 * it as sent, so what was read back differed from what was written, and by engine.
 */
export const LONE_SURROGATE_MESSAGE = 'must be valid Unicode text (it holds a lone surrogate, such as \\ud800 without its pair)';

/**
 * What no input accepts whatever its schema: nesting deeper than a limit, or (at `path`, with its
 * message) a NUL character, a lone surrogate or a `__proto__` key.
 */
export type JsonValueProblem = { kind: 'too-deep' } | { kind: 'value'; path: PropertyKey[]; message: string };

interface Visit {
  readonly value: unknown;
  readonly depth: number;
  /** The visit of the value holding this one, and this one's name or index in it: the path, built only for a problem. */
  readonly parent: Visit | undefined;
  readonly segment: PropertyKey | undefined;
}

function pathOf(visit: Visit): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let current: Visit | undefined = visit; current?.segment !== undefined; current = current.parent) path.unshift(current.segment);
  return path;
}

/**
 * The first problem of a parsed JSON (or YAML) value: an object or array deeper than
 * `depthLimit`, or a NUL character or a lone surrogate in a string or a name. Walked without recursion, so a deep
 * value cannot overflow the stack; undefined when there is neither.
 */
export function jsonValueProblem(value: unknown, depthLimit: number): JsonValueProblem | undefined {
  const stack: Visit[] = [{ value, depth: 0, parent: undefined, segment: undefined }];
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    if (typeof visit.value === 'string') {
      if (visit.value.includes('\u0000')) return { kind: 'value', path: pathOf(visit), message: NUL_MESSAGE };
      if (!visit.value.isWellFormed()) return { kind: 'value', path: pathOf(visit), message: LONE_SURROGATE_MESSAGE };
      continue;
    }
    if (visit.value === null || typeof visit.value !== 'object') continue;
    if (visit.depth >= depthLimit) return { kind: 'too-deep' };
    const isArray = Array.isArray(visit.value);
    for (const [name, child] of Object.entries(visit.value)) {
      const next: Visit = { value: child, depth: visit.depth + 1, parent: visit, segment: isArray ? Number(name) : name };
      if (!isArray && name.includes('\u0000')) return { kind: 'value', path: pathOf(next), message: NUL_MESSAGE };
      if (!isArray && !name.isWellFormed()) return { kind: 'value', path: pathOf(next), message: LONE_SURROGATE_MESSAGE };
      if (!isArray && name === '__proto__') return { kind: 'value', path: pathOf(next), message: PROTO_KEY_MESSAGE };
      if (typeof child === 'string' || (child !== null && typeof child === 'object')) stack.push(next);
    }
  }
  return undefined;
}
