/**
 * Pieces every catalog editor shares: reading an operation's validation message back into the
 * fields it names, and the labelled inputs that show those messages beside themselves.
 */
import type { ComponentChildren, JSX } from 'preact';
import type { PorchError } from '../../../core/errors.js';
import { textareaContent } from '../format.js';

/** One problem of a validation message: the field path it names (`nodes[1].prompt`), or null for the whole request. */
export interface FieldIssue {
  path: string | null;
  message: string;
}

/** `name`, `variables[0].default`, `nodes[2].prompt`: the path syntax of src/core/validation.ts. */
const ISSUE_PATTERN = /^([A-Za-z_][\w-]*(?:\[\d+\]|\.[A-Za-z_][\w-]*)*): (.+)$/s;

/**
 * The operations word every problem as `path: message`, `; `-separated (formatIssues), with
 * `Invalid request: ` before a request's schema problems. Errors carry no structured issues, so
 * the console reads the message back into its parts; a part with no path stays whole.
 */
export function issuesOf(error: PorchError | undefined): FieldIssue[] {
  if (error === undefined || error.code !== 'VALIDATION_ERROR') return [];
  const text = error.message.replace(/^Invalid request: /, '').replace(/\.$/, '');
  return text.split('; ').map((part) => {
    const match = ISSUE_PATTERN.exec(part);
    return match?.[1] !== undefined && match[2] !== undefined ? { path: match[1], message: match[2] } : { path: null, message: part };
  });
}

/** Whether `path` is `field` or a path inside it (`tags[1]` is inside `tags`, `variables[0].name` inside `variables[0]`). */
export function isPathWithin(path: string | null, field: string): boolean {
  return path !== null && (path === field || path.startsWith(`${field}[`) || path.startsWith(`${field}.`));
}

/**
 * The messages a field shows: those naming it or a path inside it, so a problem with one tag
 * (`tags[1]: must be at most 64 characters`) is shown at the Tags field (regression: at no field,
 * though the notice said each problem was shown at its field).
 */
export function messagesAt(issues: readonly FieldIssue[], path: string): string[] {
  return issues.filter((issue) => isPathWithin(issue.path, path)).map((issue) => issue.message);
}

/**
 * What a form's error notice adds about the problems shown at their fields: that each is, only
 * when each is (regression: it said so when none was), else how many are; nothing when none is.
 */
export function shownBelow(issues: readonly FieldIssue[], isShown: (path: string) => boolean): string {
  const shown = issues.filter((issue) => issue.path !== null && isShown(issue.path)).length;
  if (shown === 0) return '';
  if (shown === issues.length) return ' Each problem is shown at its field below.';
  return ` ${shown} of these ${issues.length} problems ${shown === 1 ? 'is' : 'are'} also shown at ${shown === 1 ? 'its field' : 'their fields'} below.`;
}

/**
 * A form's error notice: the operation's message, then what shownBelow adds, as a sentence of its
 * own. A message made of problems alone (`nodes[0].template: references unknown name "x"`, as
 * formatIssues words them) ends without a full stop, so one is put between (regression: "…nodes
 * and outputs Each problem is shown at its field below.").
 */
export function errorNoticeText(message: string, issues: readonly FieldIssue[], isShown: (path: string) => boolean): string {
  const below = shownBelow(issues, isShown);
  return below === '' || /[.!?]$/.test(message) ? `${message}${below}` : `${message}.${below}`;
}

/** `variables[0].default` → `f-variables-0-default`: an id a label and aria-describedby can name. */
export function fieldId(path: string): string {
  return `f-${path.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/-+$/, '')}`;
}

export function FieldErrors({ id, messages }: { id: string; messages: readonly string[] }): JSX.Element | null {
  if (messages.length === 0) return null;
  return (
    <ul class="field-errors" id={id}>
      {messages.map((message) => (
        <li key={message}>{message}</li>
      ))}
    </ul>
  );
}

interface InputProps {
  path: string;
  label: string;
  value: string;
  issues: readonly FieldIssue[];
  hint?: string;
  required?: boolean;
  maxLength?: number;
  /** A textarea of this many rows instead of a one-line input. */
  rows?: number;
  /** The one-line input's type (text by default). */
  type?: 'text' | 'number' | 'datetime-local';
  /** The least value of a number input. */
  min?: number;
  code?: boolean;
  placeholder?: string;
  /** Problems shown by the children (a YAML field's list of paths inside it). */
  invalid?: boolean;
  describedBy?: string;
  children?: ComponentChildren;
}

/** An input's type attributes; Preact types each input type apart, so the choice is made here. */
function inputType(type: NonNullable<InputProps['type']>, min: number | undefined) {
  if (type === 'number') return { type: 'number' as const, min };
  if (type === 'datetime-local') return { type: 'datetime-local' as const };
  return { type: 'text' as const };
}

/** A labelled input or textarea named by its field path, with its hint and the messages that name it. */
export function Field({
  path,
  label,
  value,
  issues,
  hint,
  required,
  maxLength,
  rows,
  type = 'text',
  min,
  code,
  placeholder,
  invalid,
  describedBy: extra,
  children,
}: InputProps): JSX.Element {
  const id = fieldId(path);
  const messages = messagesAt(issues, path);
  const isInvalid = messages.length > 0 || invalid === true;
  const describedBy =
    [hint ? `${id}-hint` : '', messages.length > 0 ? `${id}-errors` : '', invalid && extra ? extra : ''].filter((part) => part !== '').join(' ') || undefined;
  const common = {
    id,
    name: path,
    required,
    maxLength,
    placeholder,
    'aria-invalid': isInvalid ? ('true' as const) : undefined,
    'aria-describedby': describedBy,
  };
  return (
    <div class={isInvalid ? 'field field-invalid' : 'field'}>
      <label for={id}>{label}</label>
      {rows === undefined ? (
        <input {...inputType(type, min)} value={value} {...common} />
      ) : (
        <textarea rows={rows} class={code ? 'code' : undefined} spellcheck={!code} {...common}>
          {textareaContent(value)}
        </textarea>
      )}
      {hint ? (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      <FieldErrors id={`${id}-errors`} messages={messages} />
      {children}
    </div>
  );
}

/** Comma-separated tags as the operations take them. */
export function tagsOf(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

/** The search box above a catalog list: a GET form, so a search is an address to keep or share. */
export function CatalogSearch({ action, label, query, placeholder }: { action: string; label: string; query: string; placeholder: string }): JSX.Element {
  return (
    <search>
      <form method="get" action={action} class="search">
        <label for="catalog-search">{label}</label>
        <input id="catalog-search" type="search" name="q" value={query} placeholder={placeholder} />
        <button type="submit" class="secondary">
          Search
        </button>
      </form>
    </search>
  );
}
