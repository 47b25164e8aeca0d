/**
 * Gates for values found by context (assignments, URL userinfo, authorization headers): is this
 * a credential, or a placeholder, a template, a variable reference or a piece of code?
 */
import { characterClassCount, isBase64OfReadableText, isPlaceholderValue, shannonEntropy } from '../validators.js';

/** Template and variable syntaxes of shells, CI systems and template engines. */
const TEMPLATE_PATTERN = /^\$|\$\{|\$\(|\{\{|\}\}|^%[A-Za-z_(]|^<[^>]*>$|^\{[^}]*\}$|^\[[^\]]*\]$|^@\{|^#\{|^&lt;/;

/** Values that read from somewhere else: environment, secret stores. */
const REFERENCE_PATTERN = /process\.env|os\.environ|getenv|\bENV\[|System\.getenv|\bsecrets\.|vault:/;

export function isTemplateOrVariable(value: string): boolean {
  return TEMPLATE_PATTERN.test(value) || REFERENCE_PATTERN.test(value);
}

/**
 * A regular expression inside quotes: an escape with a quantifier (`'^\\s*>=\\s*0$'`, `'\\d+'`) or
 * a class range (`"[A-Za-z0-9._~+/-]+=*"`). Bounded so that a long value of unclosed `[` stays
 * linear (regression: an unbounded `\[[^\]]*...` was quadratic on such values; figures in
 * bench/sanitiser-bench-notes.md). A lone `\d` is not enough: people type backslashes into
 * passwords (`"Tr0ub\dor&3"`).
 */
const QUOTED_REGEX = /\\[dDsSwWbB][*+?{]|\[[^\][]{0,64}[A-Za-z0-9]-[A-Za-z0-9]/;
/**
 * Code inside quotes that a generated secret does not contain: a call right after a name
 * (`"Math.random().toString(36)"`), an index (`'data[0].secret'`, `"window['key']"`) or an
 * alternation group (`"(foo|bar)baz"`). Passwords typed by people may well (`"Summer(2024)"`),
 * so this gates secrets only.
 */
const QUOTED_CODE = /\w\(|\w\[["']?[\w:-]*["']?\]|\(\w+\|/;

/**
 * A value that is an expression rather than a literal: an object path; unquoted, also a call or
 * an index; quoted, a regular expression or code (QUOTED_REGEX, QUOTED_CODE). Brackets alone in
 * quotes are characters of the literal (`'7D}/vYR)T;W5]E'`).
 */
export function looksLikeCode(value: string, quoted = false): boolean {
  if (isDottedIdentifierPath(value)) return true;
  return quoted ? QUOTED_REGEX.test(value) || QUOTED_CODE.test(value) : /[()[\]]/.test(value);
}

/** `a.b.c` made of word-like identifiers (an object path in code such as `config.db.password`). */
export function isDottedIdentifierPath(value: string): boolean {
  return /^[A-Za-z_$][A-Za-z_$]*\d{0,2}(?:\.[A-Za-z_$][A-Za-z_$]*\d{0,2})+$/.test(value);
}

/** Minimum length of a password found by context; shorter values are mostly examples ("123"). */
const MIN_PASSWORD_LENGTH = 6;
/** Below this many bits per character a password is a repetition ("aaaaaa", "abcabc"). */
const MIN_PASSWORD_ENTROPY = 2.0;

/**
 * roff (man page) escapes: a word set in bold or italic (`\fIstring\fR`), a hyphen (`\-`) or a
 * zero-width break (`\&`) is markup around a word, not a credential (regression: hundreds of man
 * pages blocked).
 */
const ROFF_ESCAPE = /\\f[A-Z1-4(]|\\-|\\&|\\\(/;

/** A password value: not a placeholder, not a reference, not trivially repetitive. */
export function isPlausiblePassword(value: string, quoted: boolean): boolean {
  if (value.length < MIN_PASSWORD_LENGTH || value.length > 128) return false;
  if (ROFF_ESCAPE.test(value)) return false;
  if (/\s/.test(value) && !quoted) return false;
  if (isPlaceholderValue(value) || isTemplateOrVariable(value)) return false;
  if (value.startsWith('/') || value.includes('://')) return false; // paths and URLs
  if (quoted ? QUOTED_REGEX.test(value) : looksLikeCode(value)) return false;
  // Words with an angle bracket are a message or an expression ("Must be > 8 characters", "v => !!v").
  if (quoted && /\s/.test(value) && /[<>]/.test(value)) return false;
  return shannonEntropy(value) >= MIN_PASSWORD_ENTROPY;
}

/** Minimum length of a token-like secret found by context. */
const MIN_SECRET_LENGTH = 12;
/**
 * Bits per character a generated key reaches and words or identifiers rarely do: a random
 * 12-character base62 string has about 3.4, "user_profile_v2" 3.1, "aaaa..." 0.
 */
const MIN_SECRET_ENTROPY = 3.0;
/** Stricter gates for values with no assignment operator ("vendor TOKEN value"). */
const MIN_LOOSE_SECRET_LENGTH = 16;
const MIN_LOOSE_SECRET_ENTROPY = 3.2;
/** Digits-only values shorter than this are counts, ports, timestamps or numeric ids. */
const MIN_NUMERIC_SECRET_LENGTH = 20;
/**
 * A value of a single character class (all lower-case, say) needs this many distinct-looking
 * characters to count: 16 or more distinct symbols give at least 4 bits per character.
 */
const MIN_SINGLE_CLASS_LENGTH = 20;
const MIN_SINGLE_CLASS_ENTROPY = 4.0;

/**
 * Symbols that names, paths, host names, URLs and template references do not contain. `#` only
 * after the first character: a leading one is a CSS selector or an anchor (`"#csrf-token"`);
 * `*` not at all (globs: `"secrets/*.enc.yaml"`).
 */
const NON_NAME_SYMBOL = /[!^~]|.#/;

export type SecretStrictness = 'assigned' | 'loose';

/** A token-like secret value (API key, token, client secret); see looksLikeCode for `quoted`. */
export function isPlausibleSecret(value: string, strictness: SecretStrictness, quoted: boolean): boolean {
  return plausibleSecretValue(value, strictness, (candidate) => looksLikeCode(candidate, quoted));
}

/**
 * A token-like secret in a string literal that code cannot be: the value of PHP's
 * `define('AUTH_KEY', '...')`, whose generated salts hold `(`, `[` and `|` anywhere
 * (`...pA(-w#|fV...` reads as a call to looksLikeCode). Only an object path is still no secret.
 */
export function isPlausibleLiteralSecret(value: string, strictness: SecretStrictness): boolean {
  return plausibleSecretValue(value, strictness, isDottedIdentifierPath);
}

function plausibleSecretValue(value: string, strictness: SecretStrictness, looksLikeCodeTest: (value: string) => boolean): boolean {
  const minimumLength = strictness === 'loose' ? MIN_LOOSE_SECRET_LENGTH : MIN_SECRET_LENGTH;
  const minimumEntropy = strictness === 'loose' ? MIN_LOOSE_SECRET_ENTROPY : MIN_SECRET_ENTROPY;
  if (value.length < minimumLength || value.length > 2_048) return false;
  if (/\s/.test(value) || ROFF_ESCAPE.test(value)) return false;
  // A constant's name (`PNG_TRANSFORM_EXPAND_16`): code names a setting, it holds none.
  if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(value)) return false;
  if (/^\d+$/.test(value) && value.length < MIN_NUMERIC_SECRET_LENGTH) return false;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^(?:\.{0,2}|~)\//.test(value)) return false; // URLs and paths
  if (/^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i.test(value)) return false; // email addresses
  if (/^(?:[a-z0-9-]+\.)+[a-z]{2,}$/i.test(value) && !/\d{4}/.test(value.slice(value.lastIndexOf('.')))) return false; // host names
  if (/^v?\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?$/.test(value)) return false; // version numbers
  if (/^(?:sha(?:1|224|256|384|512)|md5|blake2[bs]?|xxh\d*):[0-9a-f]{32,128}$/i.test(value)) return false; // content digests (cache keys, image layers)
  if (isPlaceholderValue(value) || isTemplateOrVariable(value) || looksLikeCodeTest(value)) return false;
  // A symbol no identifier, path, host or reference uses is a class of its own: a secret typed
  // by a person ("development#product") is no resource name.
  const classes = characterClassCount(value) + (NON_NAME_SYMBOL.test(value) ? 1 : 0);
  const entropy = shannonEntropy(value);
  if (classes < 2 && !/^\d+$/.test(value) && (value.length < MIN_SINGLE_CLASS_LENGTH || entropy < MIN_SINGLE_CLASS_ENTROPY)) return false;
  // snake_case or kebab-case words ("user_profile_settings_v2") are names, not keys; so are
  // camelCase and PascalCase ones ("maxOutputTokens", "AuthTokenService"), and a SQL bind
  // parameter (":apiKeyParam"): code that reads a secret, not one (regression: blocked as secrets).
  if (/^[a-z]+(?:[_-][a-z]+\d{0,2})+$/.test(value)) return false;
  if (/^[:@$]?(?:[a-z]{2,}|[A-Z][a-z]{2,})(?:[A-Z][a-z]{2,})+\d{0,2}$/.test(value)) return false;
  if (isBase64OfReadableText(value)) return false;
  return entropy >= minimumEntropy;
}
