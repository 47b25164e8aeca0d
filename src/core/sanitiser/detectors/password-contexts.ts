/**
 * Passwords outside `name = value`: in shell commands (`sshpass -p`, `redis-cli -a`,
 * `--requirepass`, OpenSSL's `pass:`, `mysql -p...`), in prose of many languages ("contraseña:",
 * "mot de passe :", "das Passwort ist ...") and as a registry's base64 `auth` in a Docker config.
 * A Helm / Kubernetes `name:` + `value:` pair is read as an assignment (assignments/name-value-pair.ts),
 * so that any secret name's value is judged there. Every value passes the gates of an assigned
 * password (isPlausiblePassword); values found in prose, where no operator says "this is the
 * value", must also mix at least three kinds of character.
 */
import { defineDetector, type DetectorContext } from '../detector.js';
import { characterClassCount } from '../validators.js';
import { isPlausiblePassword } from './credential-values.js';
import { codeAt, isAsciiLetter, isRegexSpace, isWordCode, lineEndWithin } from './text-boundaries.js';

const PASSWORD_CONTEXT_RULE_IDS = ['secret.password_assignment', 'secret.docker_auth'] as const;
type PasswordContextRuleId = (typeof PASSWORD_CONTEXT_RULE_IDS)[number];

/** A command's argument: optionally quoted, up to the next blank. */
const ARGUMENT = /(["']?)([^\s"']+)\1(?=[\s;|&)]|$)/y;

/**
 * Commands whose password flag is known, and the flags (matched case-sensitively: sqlcmd's `-p`
 * prints statistics, its `-P` is the password). `glued` flags take the value without a space
 * (`-pSecret`); `userPassword` flags take `user%password`, the password after the first `%`.
 * A keyword may name a subcommand (`docker login`): `docker run -p 8080:80` publishes a port.
 */
const COMMAND_LIST: readonly { keyword: string; flags: readonly string[]; glued: boolean; userPassword?: boolean; optionalValue?: boolean }[] = [
  { keyword: 'sshpass', flags: ['-p'], glued: true },
  { keyword: 'redis-cli', flags: ['-a', '--pass'], glued: false },
  // mysql's `-p secret` prompts and takes `secret` as the database: only the glued form holds one.
  { keyword: 'mysql', flags: ['-p', '--password='], glued: true },
  { keyword: 'mysqldump', flags: ['-p', '--password='], glued: true },
  { keyword: 'mysqladmin', flags: ['-p', '--password='], glued: true },
  { keyword: 'mariadb', flags: ['-p', '--password='], glued: true },
  // `--password-stdin` reads it from standard input: the flag is then followed by `-`, not a blank.
  { keyword: 'docker login', flags: ['-p', '--password', '--password='], glued: false },
  { keyword: 'az login', flags: ['-p', '--password', '--password='], glued: false },
  { keyword: 'sqlcmd', flags: ['-P'], glued: false },
  // OpenLDAP's clients: `-w secret` binds with it (`-W` prompts).
  ...['ldapsearch', 'ldapmodify', 'ldapadd', 'ldapdelete', 'ldapwhoami', 'ldapcompare', 'ldapmodrdn', 'ldappasswd'].map((keyword) => ({
    keyword,
    flags: ['-w'],
    glued: false,
  })),
  // `-storepass:env NAME` and `-storepass:file path` name where the password is: no blank follows.
  { keyword: 'keytool', flags: ['-storepass', '-keypass', '-srcstorepass', '-deststorepass', '-srckeypass', '-destkeypass'], glued: false },
  // MongoDB's `-p` alone prompts: the word after it may be the next option.
  ...['mongosh', 'mongo', 'mongodump', 'mongorestore', 'mongoexport', 'mongoimport'].map((keyword) => ({
    keyword,
    flags: ['-p', '--password', '--password='],
    glued: false,
    optionalValue: true,
  })),
  { keyword: 'smbclient', flags: ['-U', '--user', '--user='], glued: false, userPassword: true },
  { keyword: 'rpcclient', flags: ['-U', '--user', '--user='], glued: false, userPassword: true },
];

/** Each flag compiled once: a blank (or the start) before it. */
const COMMANDS = COMMAND_LIST.map((command) => ({
  ...command,
  flagPatterns: command.flags.map((flag) => ({ flag, pattern: new RegExp(`(?:^|\\s)${flag.replace(/[-=]/g, '\\$&')}`, 'g') })),
}));

/** How much of a command line after the command is searched for its password flag. */
const COMMAND_LINE_CHARACTERS = 512;

/** A word that is an option rather than a value: `-x`, `--no-auth-warning`. */
const OPTION_WORD = /^--?[A-Za-z][A-Za-z-]*$/;

/**
 * How a flag's value may start with `-`: `always` right after its flag (`-p-Xk29...`,
 * `--password=-x...`); `unlessOption` after a blank when the flag must have a value (`redis-cli
 * -a -6Q60...` reads the word whatever it is), so only a word that reads as an option is one;
 * `never` when the flag may stand alone and prompt (`mongosh -p`): the next word may be an option.
 */
type LeadingDash = 'always' | 'unlessOption' | 'never';

/**
 * The password argument at `at`, when it passes the gates. With `userPassword` the argument is
 * `user%password` (Samba's `-U`) and the password is emitted.
 */
function emitArgument(context: DetectorContext<PasswordContextRuleId>, at: number, leadingDash: LeadingDash, userPassword = false): void {
  ARGUMENT.lastIndex = at;
  const match = ARGUMENT.exec(context.text);
  const argument = match?.[2];
  if (match === null || argument === undefined) return;
  const separator = userPassword ? argument.indexOf('%') : -1;
  if (userPassword && separator <= 0) return;
  const value = argument.slice(separator + 1);
  if (/^\d+$/.test(value)) return;
  if (value.startsWith('-') && (leadingDash === 'never' || (leadingDash === 'unlessOption' && OPTION_WORD.test(value)))) return;
  // Azure's `-p` also takes a certificate file for a service principal.
  if (/\.(?:pem|pfx|p12|crt|cer)$/i.test(value)) return;
  if (!isPlausiblePassword(value, (match[1] ?? '') !== '')) return;
  const start = at + (match[1] ?? '').length + separator + 1;
  context.scan.emit('secret.password_assignment', start, start + value.length);
}

/** The words of a command line from `from` to `end`, with where each starts (quotes left on). */
function wordsOf(text: string, from: number, end: number): { word: string; start: number }[] {
  const words: { word: string; start: number }[] = [];
  for (const match of text.slice(from, end).matchAll(/\S+/g)) words.push({ word: match[0], start: from + match.index });
  return words;
}

/**
 * `htpasswd -b [-c] file user password` and `htpasswd -nb user password`: with `-b` the
 * password is the last argument (httpd.apache.org, "htpasswd"). `-C cost` and `-r rounds` take a value.
 */
function detectHtpasswd(context: DetectorContext<PasswordContextRuleId>, position: number, end: number): void {
  const positional: { word: string; start: number }[] = [];
  let batch = false;
  let noFile = false;
  let takesValue = false;
  for (const { word, start } of wordsOf(context.text, position + 'htpasswd'.length, end)) {
    if (/^[;|&]/.test(word)) break;
    if (takesValue) {
      takesValue = false;
      continue;
    }
    if (/^-[A-Za-z]+$/.test(word)) {
      batch ||= word.includes('b');
      noFile ||= word.includes('n');
      takesValue = /[Cr]$/.test(word);
      continue;
    }
    positional.push({ word, start });
  }
  const password = positional[noFile ? 1 : 2];
  if (batch && password !== undefined && positional.length === (noFile ? 2 : 3)) emitArgument(context, password.start, 'never');
}

/**
 * `net use [drive:] \\server\share password /user:domain\name`: Windows takes the first plain
 * word after the share as its password (`*` prompts), before or after the options.
 */
function detectNetUse(context: DetectorContext<PasswordContextRuleId>, position: number, end: number): void {
  let shared = false;
  for (const { word, start } of wordsOf(context.text, position + 'net use'.length, end)) {
    if (/^[;|&]/.test(word)) return;
    if (!shared) {
      shared = /^["']?\\\\/.test(word);
      continue;
    }
    if (word.startsWith('/') || word === '*') continue;
    emitArgument(context, start, 'never');
    return;
  }
}

/** Commands whose password is a positional argument rather than a flag's. */
const POSITIONAL_COMMANDS: readonly { keyword: string; detect: typeof detectHtpasswd }[] = [
  { keyword: 'htpasswd', detect: detectHtpasswd },
  { keyword: 'net use', detect: detectNetUse },
];

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
          if (flag.endsWith('=')) emitArgument(context, after, 'always', command.userPassword);
          else if (next === 32 || next === 9) {
            const leadingDash = command.optionalValue === true ? 'never' : 'unlessOption';
            if (!command.glued || command.keyword === 'sshpass') emitArgument(context, after + 1, leadingDash, command.userPassword);
          } else if (command.glued && !Number.isNaN(next)) emitArgument(context, after, 'always');
        }
      }
    }
  }
  for (const command of POSITIONAL_COMMANDS) {
    for (const position of context.positions(command.keyword)) {
      if (isWordCode(codeAt(text, position - 1)) || isWordCode(codeAt(text, position + command.keyword.length))) continue;
      command.detect(context, position, lineEndWithin(text, position, COMMAND_LINE_CHARACTERS));
    }
  }
  // Redis' own option, on a command line or in redis.conf: `--requirepass X`, `requirepass X`.
  for (const position of context.positions('requirepass')) {
    if (isAsciiLetter(codeAt(text, position - 1))) continue;
    let at = position + 'requirepass'.length;
    if (codeAt(text, at) !== 32 && codeAt(text, at) !== 9) continue;
    while (codeAt(text, at) === 32 || codeAt(text, at) === 9) at += 1;
    emitArgument(context, at, 'unlessOption');
  }
  // OpenSSL's pass phrase arguments: `-passout pass:X`, `-passin pass:X`, `-pass pass:X`.
  for (const position of context.positions('pass:')) {
    if (!/-pass(?:in|out)?\s+$/.test(text.slice(Math.max(0, position - 12), position))) continue;
    emitArgument(context, position + 'pass:'.length, 'always');
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
const NON_ASCII_PASSWORD_LETTER = /[ñÑłŁöÖóÓşŞпП密パ비]/;
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
const TRAILING_PUNCTUATION = /[.,;:)?»"'”`]+$/;

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

/**
 * How much further the words after the password word may reach when a parenthesised aside sits
 * among them ("password (rotate after incident INC-1140): ..."): the aside does not count toward
 * PROSE_WINDOW_CHARACTERS.
 */
const MAX_ASIDE_CHARACTERS = 64;
/** The longest word read after the password word: isPlausiblePassword takes none longer. */
const MAX_PROSE_VALUE_CHARACTERS = 129;
/** Words that say "what follows is the value" ("the password for db-01 is ..."). */
const COPULA_WORDS: ReadonlySet<string> = new Set(['is', 'ist', 'es', 'est', 'er', 'är', 'jest', 'é', 'è', 'on', 'was', 'war', 'era']);
/** The longest of COPULA_WORDS: longer words are not lower-cased to be looked up. */
const MAX_COPULA_LENGTH = 4;
/** An identifier of a host, a ticket or a release (`db-01`, `INC-1140`, `web.prod-2`): what the password is for. */
const NAMED_IDENTIFIER = /^[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)*?[-_.]\d+$/;
/** A date (`2026-11-02`, `02.11.2026`, `11/02/26`). */
const DATE = /^\d{1,4}[-./]\d{1,2}[-./]\d{1,4}$/;

/**
 * A word after the password word, read from the text itself (no window is cut out of it): at most
 * MAX_PROSE_VALUE_CHARACTERS, so a text without blanks is not read to its end once per word.
 */
const PROSE_TOKEN = new RegExp(`\\S{1,${MAX_PROSE_VALUE_CHARACTERS}}`, 'g');

/**
 * The password in the words after the password word at `wordEnd`, or null. Words of letters are
 * the sentence going on ("für das WLAN:"); a parenthesised aside, a date and, unless a colon or
 * "is" has just announced the value, an identifier (`db-01`, `INC-1140`) say what the password is
 * for; a word ending in `:` labels what follows. The first other word is the candidate.
 */
function proseValueAfter(text: string, wordEnd: number, readAsAssignment: boolean): { start: number; end: number } | null {
  // Words must start on the word's line, within the window (and any asides' length) after it.
  const limit = lineEndWithin(text, wordEnd, PROSE_WINDOW_CHARACTERS + MAX_ASIDE_CHARACTERS);
  let asideCharacters = 0;
  let asideStart = -1;
  let announced = false;
  PROSE_TOKEN.lastIndex = wordEnd;
  for (let token = PROSE_TOKEN.exec(text), count = 0; token !== null && token.index < limit && count < MAX_PROSE_TOKENS; token = PROSE_TOKEN.exec(text)) {
    const raw = token[0];
    const offset = token.index - wordEnd;
    if (asideStart === -1 && raw.startsWith('(') && !raw.includes(')')) asideStart = offset;
    if (asideStart !== -1) {
      // A multi-word aside: skipped whole, and not counted against the window or the words.
      if (!raw.includes(')')) continue;
      asideCharacters += offset + raw.length - asideStart;
      asideStart = -1;
      if (raw.endsWith(':')) announced = true;
      continue;
    }
    if (offset - asideCharacters >= PROSE_WINDOW_CHARACTERS) break;
    count += 1;
    // `Password=...` and `password: ...` are assignments, read (with their quoting and
    // connection-string rules) by the assignments detector.
    if (readAsAssignment && count === 1 && asideCharacters === 0 && /^(?:=|:\S)/.test(raw)) break;
    if (!/[\p{L}\p{N}]/u.test(raw)) {
      // A colon, a dash or an arrow is a separator; a rule of dashes is a table's column
      // border, and what follows belongs to another column.
      if (/^(?:[:：=>–—-]|->|=>)$/.test(raw)) {
        announced = true;
        continue;
      }
      break;
    }
    // A word running past the window is read whole (PROSE_TOKEN): a password cut in two leaves its
    // rest in clear. A word PROSE_TOKEN cut is longer than any password isPlausiblePassword takes.
    if (raw.length >= MAX_PROSE_VALUE_CHARACTERS) return null;
    let value = raw.replace(/^[«"'“(:：`]+/, '');
    const leading = raw.length - value.length;
    // A `;` or `&` ends a value in a connection string or a command line.
    value = value.replace(/[;&].*$/, '').replace(TRAILING_PUNCTUATION, '');
    if (value.length === 0) continue;
    // A word of letters is the sentence going on ("für das WLAN:"), unless it ends the clause.
    if (/^[\p{L}'-]+$/u.test(value)) {
      if (/[.;!?]$/.test(raw)) break;
      if (raw.endsWith(':') || (value.length <= MAX_COPULA_LENGTH && COPULA_WORDS.has(value.toLowerCase()))) announced = true;
      continue;
    }
    // What the password is for: a date, a host or ticket id not announced as the value, a label.
    if (DATE.test(value) || (!announced && NAMED_IDENTIFIER.test(value))) {
      if (raw.endsWith(':')) announced = true;
      continue;
    }
    const mixed = characterClassCount(value) + (/[^A-Za-z0-9]/.test(value) ? 1 : 0);
    if (mixed < 3 || !isPlausiblePassword(value, false)) return null;
    const start = token.index + leading;
    return { start, end: start + value.length };
  }
  return null;
}

/** The full-width colon of Chinese and Japanese text (`密码：...`). */
const FULLWIDTH_COLON = 0xff1a;

/**
 * Endings of the password words when inflected: Swedish and Norwegian definite `-et`
 * (`lösenordet`, `passordet`), Danish `-n` (`adgangskoden`), Turkish possessive `-si`, `-(n)iz`
 * (`şifresi`, `şifreniz`), Finnish `-si` (`salasanasi`). Longest first.
 */
const INFLECTIONS = ['niz', 'nız', 'et', 'si', 'n'] as const;

/** The length of an inflection ending right after a password word at `baseEnd`, 0 when none. */
function inflectionLength(text: string, baseEnd: number): number {
  if (endsPasswordWord(text, baseEnd)) return 0;
  for (const inflection of INFLECTIONS) {
    if (text.startsWith(inflection, baseEnd) && endsPasswordWord(text, baseEnd + inflection.length)) return inflection.length;
  }
  return 0;
}

/** Whether a password word may end at `index`: the text's end, a colon (also full-width) or a blank. */
function endsPasswordWord(text: string, index: number): boolean {
  if (index >= text.length) return true;
  const code = text.charCodeAt(index);
  return code === 58 || code === FULLWIDTH_COLON || isRegexSpace(code);
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
    const baseEnd = position + passwordWordLength(text, position, asciiLength);
    if (baseEnd === position) continue;
    const wordEnd = baseEnd + inflectionLength(text, baseEnd);
    if (!endsPasswordWord(text, wordEnd)) continue;
    // Only a bare ASCII word is a name the assignments detector reads (`password:X`); after
    // `密码：` or `lösenordet:` the value is this detector's to find.
    const readAsAssignment = asciiLength !== undefined && wordEnd === baseEnd;
    if (readAsAssignment && opensAssignment(text, wordEnd, lineEndWithin(text, wordEnd, PROSE_WINDOW_CHARACTERS))) continue;
    const value = proseValueAfter(text, wordEnd, readAsAssignment);
    if (value !== null) context.scan.emit('secret.password_assignment', value.start, value.end);
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
  keywords: [
    ...new Set(COMMANDS.map((command) => command.keyword)),
    ...POSITIONAL_COMMANDS.map((command) => command.keyword),
    'requirepass',
    'pass:',
    '"auth"',
    ...ASCII_PASSWORD_WORDS,
  ],
  presenceTest: { test: (text) => hasNonAscii(text) && NON_ASCII_PASSWORD_LETTER.test(text) },
  detect: (context) => {
    detectCommandFlags(context);
    detectProse(context);
    detectDockerAuth(context);
  },
});
