/**
 * Passwords outside `name = value`: in shell commands (`sshpass -p`, `redis-cli -a`,
 * `--requirepass`, OpenSSL's `pass:`, `mysql -p...`), in prose of many languages ("contraseña:",
 * "mot de passe :", "das Passwort ist ..."), as a Helm / Kubernetes `name:` + `value:` pair, and
 * as a registry's base64 `auth` in a Docker config. Every value passes the gates of an assigned
 * password (isPlausiblePassword); values found in prose, where no operator says "this is the
 * value", must also mix at least three kinds of character.
 */
import { defineDetector, type DetectorContext } from '../detector.js';
import { characterClassCount } from '../validators.js';
import { classifySecretName } from './assignments/classify-name.js';
import { isPlausiblePassword } from './credential-values.js';
import { codeAt, isAsciiLetter, isRegexSpace, isWordCode, lineEndWithin } from './text-boundaries.js';

const PASSWORD_CONTEXT_RULE_IDS = ['secret.password_assignment', 'secret.docker_auth'] as const;
type PasswordContextRuleId = (typeof PASSWORD_CONTEXT_RULE_IDS)[number];

/** A command's argument: optionally quoted, up to the next blank. */
const ARGUMENT = /(["']?)([^\s"']+)\1(?=[\s;|&)]|$)/y;

/** Commands whose password flag is known, and the flags; `glued` flags take the value without a space (`-pSecret`). */
const COMMAND_LIST: readonly { keyword: string; flags: readonly string[]; glued: boolean }[] = [
  { keyword: 'sshpass', flags: ['-p'], glued: true },
  { keyword: 'redis-cli', flags: ['-a', '--pass'], glued: false },
  // mysql's `-p secret` prompts and takes `secret` as the database: only the glued form holds one.
  { keyword: 'mysql', flags: ['-p', '--password='], glued: true },
  { keyword: 'mysqldump', flags: ['-p', '--password='], glued: true },
  { keyword: 'mysqladmin', flags: ['-p', '--password='], glued: true },
  { keyword: 'mariadb', flags: ['-p', '--password='], glued: true },
];

/** Each flag compiled once: a blank (or the start) before it. */
const COMMANDS = COMMAND_LIST.map((command) => ({
  ...command,
  flagPatterns: command.flags.map((flag) => ({ flag, pattern: new RegExp(`(?:^|\\s)${flag.replace(/[-=]/g, '\\$&')}`, 'g') })),
}));

/** How much of a command line after the command is searched for its password flag. */
const COMMAND_LINE_CHARACTERS = 512;

function emitArgument(context: DetectorContext<PasswordContextRuleId>, at: number): void {
  ARGUMENT.lastIndex = at;
  const match = ARGUMENT.exec(context.text);
  const value = match?.[2];
  if (match === null || value === undefined || /^\d+$/.test(value) || value.startsWith('-')) return;
  if (!isPlausiblePassword(value, (match[1] ?? '') !== '')) return;
  const start = at + (match[1] ?? '').length;
  context.scan.emit('secret.password_assignment', start, start + value.length);
}

function detectCommandFlags(context: DetectorContext<PasswordContextRuleId>): void {
  const { text } = context;
  for (const command of COMMANDS) {
    for (const position of context.positions(command.keyword)) {
      if (isWordCode(codeAt(text, position - 1)) || isWordCode(codeAt(text, position + command.keyword.length))) continue;
      const rest = text.slice(position + command.keyword.length, lineEndWithin(text, position, COMMAND_LINE_CHARACTERS));
      for (const { flag, pattern: flagPattern } of command.flagPatterns) {
        flagPattern.lastIndex = 0;
        for (let match = flagPattern.exec(rest); match !== null; match = flagPattern.exec(rest)) {
          const after = position + command.keyword.length + match.index + match[0].length;
          const next = codeAt(text, after);
          if (flag.endsWith('=')) emitArgument(context, after);
          else if (next === 32 || next === 9) {
            if (!command.glued || command.keyword === 'sshpass') emitArgument(context, after + 1);
          } else if (command.glued && !Number.isNaN(next)) emitArgument(context, after);
        }
      }
    }
  }
  // Redis' own option, on a command line or in redis.conf: `--requirepass X`, `requirepass X`.
  for (const position of context.positions('requirepass')) {
    if (isAsciiLetter(codeAt(text, position - 1))) continue;
    let at = position + 'requirepass'.length;
    if (codeAt(text, at) !== 32 && codeAt(text, at) !== 9) continue;
    while (codeAt(text, at) === 32 || codeAt(text, at) === 9) at += 1;
    emitArgument(context, at);
  }
  // OpenSSL's pass phrase arguments: `-passout pass:X`, `-passin pass:X`, `-pass pass:X`.
  for (const position of context.positions('pass:')) {
    if (!/-pass(?:in|out)?\s+$/.test(text.slice(Math.max(0, position - 12), position))) continue;
    emitArgument(context, position + 'pass:'.length);
  }
}

/**
 * Words for "password" in the languages of Porch's users. ASCII spellings are prefilter keywords
 * (case-folded as ASCII); spellings with other letters get a pattern trigger, which ordinary
 * English and code never match (a pattern matched thousands of times in code, as "password" is,
 * costs the prefilter far more than a keyword does).
 */
const ASCII_PASSWORD_WORDS = [
  'password',
  'passwort',
  'kennwort',
  'contrasena',
  'mot de passe',
  'senha',
  'wachtwoord',
  'haslo',
  'parola',
  'salasana',
  'passord',
  'losenord',
  'adgangskode',
  'heslo',
  'jelszo',
  'sifre',
] as const;
const NON_ASCII_PASSWORD_WORDS = '(?:contraseña|hasło|lösenord|jelszó|şifre|пароль|密码|密碼|パスワード|비밀번호)';
const NON_ASCII_PASSWORD_WORD_SEARCH = new RegExp(NON_ASCII_PASSWORD_WORDS, 'giu');
/**
 * A letter those spellings start with or hold, tested once per scan: one character class is a
 * cheap pass, where every extra pattern in the prefilter's combined automaton costs each scan
 * (the automaton's states multiply with its patterns).
 */
const NON_ASCII_PASSWORD_LETTER = /[ñłöóşпПП密パ비]/;
const PASSWORD_WORD = new RegExp(`${NON_ASCII_PASSWORD_WORDS.slice(0, -1)}|${ASCII_PASSWORD_WORDS.join('|')})`, 'iy');

/**
 * Whether the text holds a character outside ASCII. Buffer.byteLength counts in native code
 * without building anything, several times faster than a V8 character-class search over the
 * same text (bench/sanitiser-bench-notes.md), and most texts scanned are pure ASCII.
 */
function hasNonAscii(text: string): boolean {
  return Buffer.byteLength(text, 'utf8') !== text.length;
}

function nonAsciiPasswordWordPositions(text: string): number[] {
  if (!hasNonAscii(text) || !NON_ASCII_PASSWORD_LETTER.test(text)) return [];
  return [...text.matchAll(NON_ASCII_PASSWORD_WORD_SEARCH)].map((match) => match.index);
}
/** How far after the word the password may be ("Kennwort für das WLAN: ..."). */
const PROSE_WINDOW_CHARACTERS = 48;
/** Words tried after the password word; past these, the sentence is about something else. */
const MAX_PROSE_TOKENS = 6;
/** Punctuation that ends a sentence rather than a password. */
const TRAILING_PUNCTUATION = /[.,;:)?»"'”]+$/;

/**
 * Whether the first word after `from` (before `limit`) starts with `=` or is `:` glued to a value:
 * the test detectProse's token loop makes first, made without building its window. In code the
 * word for password is mostly a name being assigned (thousands per MiB of the bench's code).
 */
function opensAssignment(text: string, from: number, limit: number): boolean {
  let index = from;
  while (index < limit && isRegexSpace(text.charCodeAt(index))) index += 1;
  const code = text.charCodeAt(index);
  if (index >= limit) return false;
  if (code === 61) return true;
  return code === 58 && index + 1 < limit && !isRegexSpace(text.charCodeAt(index + 1));
}

/**
 * The length of the password word at `position`. An ASCII word's is known from the prefilter's
 * keyword: no other spelling in PASSWORD_WORD matches where one of them does (the non-ASCII
 * spellings hold a letter their ASCII twins lack). Asking PASSWORD_WORD at each of the hundreds
 * of `password`s in code cost more than the rest of this detector's work on them.
 */
function passwordWordLength(text: string, position: number, asciiLength: number | undefined): number {
  if (asciiLength !== undefined) return asciiLength;
  PASSWORD_WORD.lastIndex = position;
  return PASSWORD_WORD.exec(text)?.[0].length ?? 0;
}

function detectProse(context: DetectorContext<PasswordContextRuleId>): void {
  const { text } = context;
  // Each position with the length of its ASCII word (undefined: a non-ASCII spelling's).
  const words = new Map<number, number | undefined>();
  for (const word of ASCII_PASSWORD_WORDS) for (const position of context.positions(word)) if (!words.has(position)) words.set(position, word.length);
  for (const position of nonAsciiPasswordWordPositions(text)) if (!words.has(position)) words.set(position, undefined);
  for (const [position, asciiLength] of words) {
    // A word of its own: not `$password`, `user:password@host` or `password_hash`.
    const previous = codeAt(text, position - 1);
    if (isWordCode(previous) || previous === 36 || previous === 58 || previous === 47) continue;
    const wordEnd = position + passwordWordLength(text, position, asciiLength);
    const after = text.charCodeAt(wordEnd);
    if (wordEnd === position || !(wordEnd >= text.length || after === 58 || isRegexSpace(after))) continue;
    const limit = lineEndWithin(text, wordEnd, PROSE_WINDOW_CHARACTERS);
    if (opensAssignment(text, wordEnd, limit)) continue;
    const tokenPattern = /\S+/g;
    const window = text.slice(wordEnd, limit);
    for (let token = tokenPattern.exec(window), count = 0; token !== null && count < MAX_PROSE_TOKENS; token = tokenPattern.exec(window), count += 1) {
      // `Password=...` and `password: ...` are assignments, read (with their quoting and
      // connection-string rules) by the assignments detector.
      if (count === 0 && /^(?:=|:\S)/.test(token[0])) break;
      if (!/[\p{L}\p{N}]/u.test(token[0])) {
        // A colon, a dash or an arrow is a separator; a rule of dashes is a table's column
        // border, and what follows belongs to another column.
        if (/^(?:[:=>–—-]|->|=>)$/.test(token[0])) continue;
        break;
      }
      let value = token[0].replace(/^[«"'“(:]+/, '');
      const leading = token[0].length - value.length;
      // A `;` or `&` ends a value in a connection string or a command line.
      value = value.replace(/[;&].*$/, '').replace(TRAILING_PUNCTUATION, '');
      if (value.length === 0) continue;
      // A word of letters is the sentence going on ("für das WLAN:"), unless it ends the clause.
      if (/^[\p{L}'-]+$/u.test(value)) {
        if (/[.;!?]$/.test(token[0])) break;
        continue;
      }
      const mixed = characterClassCount(value) + (/[^A-Za-z0-9]/.test(value) ? 1 : 0);
      if (mixed >= 3 && isPlausiblePassword(value, false)) {
        const start = wordEnd + token.index + leading;
        context.scan.emit('secret.password_assignment', start, start + value.length);
      }
      break;
    }
  }
}

/** `- name: DB_PASSWORD` followed by `value: ...` on one of the next three lines, other keys or comments between (Helm values, Pod env). */
const NAME_VALUE =
  /name:[ \t]{0,10}["']?([A-Za-z_][\w.-]{0,79})["']?[ \t]{0,10}\r?\n(?:[ \t]{0,40}(?:[\w-]{1,40}:|#)[^\r\n]{0,200}\r?\n){0,2}?[ \t]{0,40}value:[ \t]{0,10}(["']?)([^\s"'#][^\r\n"']{0,199}?)\2[ \t]{0,10}(?:#[^\r\n]{0,200})?(?=\r?\n|$)/y;

/**
 * What a name must hold for classifySecretName to call it a password's (password, passwd,
 * passphrase and passcode hold `pass`; `pwd`; `pw` as a segment). The pairs are found from these
 * words rather than from `name:`, which YAML holds on every other line: as a prefilter keyword
 * it was matched more than a thousand times per MiB of code, each match costing the prefilter
 * and this detector (bench/sanitiser-bench-notes.md).
 */
const PASSWORD_NAME_WORDS = ['pass', 'pwd', 'pw'] as const;
/** The most blanks NAME_VALUE takes between `name:` and the name. */
const NAME_KEY_BLANKS = 10;
/** The longest name NAME_VALUE takes. */
const NAME_MAX_CHARACTERS = 80;

/** Whether a code unit may be in a name NAME_VALUE takes (`[\w.-]`). */
function isNameCode(code: number): boolean {
  return isWordCode(code) || code === 46 || code === 45;
}

/**
 * The `name:` whose name holds the password word at `wordPosition`, read backwards the way
 * NAME_VALUE reads forwards: the name's characters, an optional quote, at most ten blanks.
 * Where the word is not in such a name (`password = ...`, most of them in code), the walk stops
 * within a few characters. A name holds no `:`, so no other `name:` can be nearer the word.
 */
function nameKeyBefore(text: string, wordPosition: number): number {
  let cursor = wordPosition;
  while (cursor > 0 && wordPosition - cursor <= NAME_MAX_CHARACTERS && isNameCode(text.charCodeAt(cursor - 1))) cursor -= 1;
  if (wordPosition - cursor > NAME_MAX_CHARACTERS) return -1;
  const quote = text.charCodeAt(cursor - 1);
  if (quote === 34 || quote === 39) cursor -= 1;
  for (let blanks = 0; blanks < NAME_KEY_BLANKS && (text.charCodeAt(cursor - 1) === 32 || text.charCodeAt(cursor - 1) === 9); blanks += 1) cursor -= 1;
  return cursor >= 5 && text.startsWith('name:', cursor - 5) ? cursor - 5 : -1;
}

/** The `name:` of each name that may hold a password word (a `name:` once, however many words its name holds). */
function nameKeyPositions(context: DetectorContext<PasswordContextRuleId>): number[] {
  const found = new Set<number>();
  for (const word of PASSWORD_NAME_WORDS) {
    for (const wordPosition of context.positions(word)) {
      const position = nameKeyBefore(context.text, wordPosition);
      if (position !== -1) found.add(position);
    }
  }
  return [...found];
}

function detectNameValuePairs(context: DetectorContext<PasswordContextRuleId>): void {
  const { text } = context;
  for (const position of nameKeyPositions(context)) {
    if (isWordCode(codeAt(text, position - 1))) continue;
    NAME_VALUE.lastIndex = position;
    const match = NAME_VALUE.exec(text);
    const name = match?.[1];
    const value = match?.[3];
    if (match === null || name === undefined || value === undefined) continue;
    if (classifySecretName(name)?.kind !== 'password' || !isPlausiblePassword(value, (match[2] ?? '') !== '')) continue;
    const start = match.index + match[0].lastIndexOf(value);
    context.scan.emit('secret.password_assignment', start, start + value.length);
  }
}

/** `"auth": "<base64 of user:password>"` in ~/.docker/config.json or a `.dockerconfigjson`. */
const DOCKER_AUTH = /"auth"\s*:\s*"([A-Za-z0-9+/]{8,}={0,2})"/y;

function detectDockerAuth(context: DetectorContext<PasswordContextRuleId>): void {
  const { text, scan } = context;
  for (const position of context.positions('"auth"')) {
    DOCKER_AUTH.lastIndex = position;
    const match = DOCKER_AUTH.exec(text);
    const encoded = match?.[1];
    if (match === null || encoded === undefined) continue;
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const user = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    if (colon <= 0 || !/^[\x21-\x7e]+$/.test(decoded.replace(':', '')) || password === user || !isPlausiblePassword(password, true)) continue;
    const start = match.index + match[0].indexOf(encoded);
    scan.emit('secret.docker_auth', start, start + encoded.length);
  }
}

export const passwordContextDetector = defineDetector({
  name: 'password-contexts',
  ruleIds: PASSWORD_CONTEXT_RULE_IDS,
  keywords: [...new Set(COMMANDS.map((command) => command.keyword)), 'requirepass', 'pass:', '"auth"', ...PASSWORD_NAME_WORDS, ...ASCII_PASSWORD_WORDS],
  presenceTest: { test: (text) => hasNonAscii(text) && NON_ASCII_PASSWORD_LETTER.test(text) },
  detect: (context) => {
    detectCommandFlags(context);
    detectProse(context);
    detectNameValuePairs(context);
    detectDockerAuth(context);
  },
});
