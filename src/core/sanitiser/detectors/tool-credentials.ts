/**
 * Credentials written in one tool's own syntax rather than as a `name = value` assignment:
 * Okta's `SSWS` authorization scheme and Okta-named API tokens, .netrc entries, PsExec's `-p`,
 * PowerShell's `ConvertTo-SecureString "..." -AsPlainText`, and Vault unseal keys. Each syntax
 * is the one its vendor documents (cited where it is matched); the passwords found here pass the
 * same gates as an assigned password.
 */
import { defineDetector, type DetectorContext } from '../detector.js';
import { looksGenerated } from '../validators.js';
import { isPlausiblePassword } from './credential-values.js';
import { codeAt, isWordCode, lineEndWithin, lineStartWithin } from './text-boundaries.js';

/** The keyword starts a word: `vmachine` or `nopsexec` are not the tool. */
function startsWord(text: string, index: number): boolean {
  return !isWordCode(codeAt(text, index - 1));
}

// ---------------------------------------------------------------------------------------------
// Okta API tokens: "00" + 40 characters of [A-Za-z0-9_-] (Okta developer forum "API token
// length"; gitleaks okta-access-token, Nosey Parker okta.yml), sent as `Authorization: SSWS
// <token>` (developer.okta.com, "Create an API token"). Without the scheme the bare shape is too
// common, so the word "okta" must come at most 40 characters before it, as in Nosey Parker.

const OKTA_TOKEN = '00[A-Za-z0-9_-]{39}[A-Za-z0-9_](?![A-Za-z0-9_-])';
// HTTP authorization schemes are case-insensitive (RFC 9110 section 11.1).
const SSWS_TOKEN = new RegExp(`SSWS[ \\t]+(${OKTA_TOKEN})`, 'iy');
const OKTA_NAMED_TOKEN = new RegExp(`okta[\\s\\S]{0,40}?(?<![A-Za-z0-9_-])(${OKTA_TOKEN})`, 'iy');
const OKTA_RULE = 'secret.okta_api_token';

function detectOktaTokens(context: DetectorContext<typeof OKTA_RULE>): void {
  const { text, scan } = context;
  if (!scan.isEnabled(OKTA_RULE)) return;
  const emitFrom = (pattern: RegExp, position: number): void => {
    pattern.lastIndex = position;
    const match = pattern.exec(text);
    const token = match?.[1];
    if (match === null || token === undefined || !looksGenerated(token.slice(2))) return;
    const start = match.index + match[0].length - token.length;
    scan.emit(OKTA_RULE, start, start + token.length);
  };
  for (const position of context.positions('ssws')) emitFrom(SSWS_TOKEN, position);
  for (const position of context.positions('okta')) emitFrom(OKTA_NAMED_TOKEN, position);
}

// ---------------------------------------------------------------------------------------------
// .netrc: `machine <host> login <user> password <password>`, on one line or several
// (everything.curl.dev "netrc"; GNU inetutils netrc(5); Nosey Parker netrc.yml). The `login`
// token is required: "machine" alone is an ordinary word.

const NETRC_ENTRY = /machine[ \t\r\n]+\S+[ \t\r\n]+login[ \t\r\n]+\S+[ \t\r\n]+password[ \t\r\n]+("[^"\n]*"|\S+)/y;

// PsExec: `psexec [\\computer] ... -u <user> -p <password> <command>` (learn.microsoft.com,
// Sysinternals PsExec; Nosey Parker psexec.yml), the flags on the command's own line.
const PSEXEC_COMMAND = /psexec[^\n]{0,100}?[ \t]-u[ \t]*("[^"\n]*"|\S+)[ \t]+-p[ \t]*("[^"\n]*"|'[^'\n]*'|\S+)/iy;

// PowerShell: `ConvertTo-SecureString [-String] "<plain text>" -AsPlainText [-Force]`
// (learn.microsoft.com, Microsoft.PowerShell.Security/ConvertTo-SecureString): -AsPlainText says
// the literal is the password itself. Flags may come before or after the literal, on one line.
const SECURE_STRING_COMMAND = /convertto-securestring((?:[ \t]+-[A-Za-z]+)*)[ \t]+("[^"\n]*"|'[^'\n]*')([^\n|;]*)/iy;

// PostgreSQL's password file, `~/.pgpass` (postgresql.org/docs, "The Password File"): one
// `hostname:port:database:username:password` a line, `*` for any field but the password, `\:`
// and `\\` escaped. The shape alone is common enough (times, IPv6, log prefixes) that an entry is
// read only as a whole line, and only under the file's name (`pgpass`) or with a PostgreSQL or
// PgBouncer port (5432-5439, 6432, or `*`): the port is also the prefilter's trigger.

const PGPASS_ENTRY = /[ \t]*(?:[A-Za-z0-9_.-]+|\*):(?:\d{1,5}|\*):[^:\s]+:[^:\s]+:((?:[^:\\\s]|\\[:\\])+)([ \t]*\r?)(?=\n|$)/y;
const PGPASS_PORT_TRIGGER = ':(?:543\\d|6432|\\*):';
/** Lines read as the file after the word `pgpass` (`cat ~/.pgpass`, `PGPASSFILE=...`). */
const PGPASS_LINES_AFTER_NAME = 20;
const PGPASS_LINE_CHARACTERS = 512;

const PASSWORD_RULE = 'secret.password_assignment';

function unquote(value: string): { value: string; quoted: boolean } {
  const first = value.charAt(0);
  if (value.length >= 2 && (first === '"' || first === "'") && value.endsWith(first)) return { value: value.slice(1, -1), quoted: true };
  return { value, quoted: false };
}

/** Emits the password held by capture group `group`, with the offsets of its unquoted text. */
function emitPassword(context: DetectorContext<typeof PASSWORD_RULE>, match: RegExpExecArray, group: number, user?: string): void {
  const raw = match[group];
  if (raw === undefined) return;
  const { value, quoted } = unquote(raw);
  if (user !== undefined && unquote(user).value === value) return;
  if (!isPlausiblePassword(value, quoted)) return;
  // The password group is the last thing matched, or followed only by group 3 (SecureString flags).
  const rawEnd = match.index + match[0].length - (match.length > group + 1 ? (match[group + 1] ?? '').length : 0);
  const start = rawEnd - raw.length + (quoted ? 1 : 0);
  context.scan.emit(PASSWORD_RULE, start, start + value.length);
}

/** The .pgpass entry that is the line starting at `lineStart`, if it is one; answers where the line ends. */
function readPgpassLine(context: DetectorContext<typeof PASSWORD_RULE>, lineStart: number, emitted: Set<number>): number {
  const { text } = context;
  const lineEnd = lineEndWithin(text, lineStart, PGPASS_LINE_CHARACTERS);
  if (emitted.has(lineStart)) return lineEnd;
  emitted.add(lineStart);
  PGPASS_ENTRY.lastIndex = lineStart;
  const match = PGPASS_ENTRY.exec(text);
  const password = match?.[1];
  if (match === null || password === undefined || match.index + match[0].length !== lineEnd) return lineEnd;
  if (!isPlausiblePassword(password, false)) return lineEnd;
  const start = match.index + match[0].length - (match[2] ?? '').length - password.length;
  context.scan.emit(PASSWORD_RULE, start, start + password.length);
  return lineEnd;
}

function detectPgpass(context: DetectorContext<typeof PASSWORD_RULE>): void {
  const { text } = context;
  const emitted = new Set<number>();
  for (const position of context.patternPositions(PGPASS_PORT_TRIGGER)) {
    const lineStart = lineStartWithin(text, position, PGPASS_LINE_CHARACTERS);
    if (lineStart !== -1) readPgpassLine(context, lineStart, emitted);
  }
  for (const position of context.positions('pgpass')) {
    let lineStart = lineEndWithin(text, position, PGPASS_LINE_CHARACTERS) + 1;
    for (let line = 0; line < PGPASS_LINES_AFTER_NAME && lineStart < text.length; line += 1) {
      lineStart = readPgpassLine(context, lineStart, emitted) + 1;
    }
  }
}

function detectToolPasswords(context: DetectorContext<typeof PASSWORD_RULE>): void {
  const { text, scan } = context;
  if (!scan.isEnabled(PASSWORD_RULE)) return;
  for (const position of context.positions('machine')) {
    if (!startsWord(text, position) || !text.startsWith('machine', position)) continue;
    NETRC_ENTRY.lastIndex = position;
    const match = NETRC_ENTRY.exec(text);
    if (match !== null) emitPassword(context, match, 1);
  }
  for (const position of context.positions('psexec')) {
    if (!startsWord(text, position)) continue;
    PSEXEC_COMMAND.lastIndex = position;
    const match = PSEXEC_COMMAND.exec(text);
    if (match !== null) emitPassword(context, match, 2, match[1]);
  }
  for (const position of context.positions('convertto-securestring')) {
    SECURE_STRING_COMMAND.lastIndex = position;
    const match = SECURE_STRING_COMMAND.exec(text);
    if (match === null || !/-AsPlainText\b/i.test(`${match[1] ?? ''}${match[3] ?? ''}`)) continue;
    emitPassword(context, match, 2);
  }
  detectPgpass(context);
}

// ---------------------------------------------------------------------------------------------
// Vault unseal keys (developer.hashicorp.com, `vault operator init` and `vault operator unseal`):
// key shares are printed as "Unseal Key N: <base64>" (33 bytes, 44 characters; a single key is
// 32 bytes, 44 characters with "="), in -format=json as "unseal_keys_b64" / "unseal_keys_hex"
// (64-66 hex digits), and passed as the argument of `vault operator unseal <key>`.

const UNSEAL_KEY = '(?:[A-Za-z0-9+/]{43}[A-Za-z0-9+/=]|[0-9a-f]{64,66})(?![A-Za-z0-9+/=])';
const UNSEAL_KEY_LABEL = new RegExp(`unseal key \\d{1,2}:[ \\t]*(${UNSEAL_KEY})`, 'iy');
const UNSEAL_COMMAND = new RegExp(`unseal(?:[ \\t]+-[A-Za-z-]+(?:=\\S*)?)*[ \\t]+["']?(${UNSEAL_KEY})`, 'y');
const VAULT_BEFORE_UNSEAL = /\bvault(?:[ \t]+operator)?[ \t]+$/;
const UNSEAL_KEY_LIST = /unseal_keys_(?:b64|hex)["']?[ \t]*:[ \t\r\n]*\[([^\]]{0,2000})\]/y;
const QUOTED_LIST_ITEM = /"([^"\n]*)"/g;
const UNSEAL_KEY_WHOLE = new RegExp(`^${UNSEAL_KEY}$`);
const UNSEAL_RULE = 'secret.hashicorp_vault_unseal_key';
/** Enough text before "unseal" to hold "vault operator ". */
const VAULT_COMMAND_LOOKBEHIND = 24;

function detectVaultUnsealKeys(context: DetectorContext<typeof UNSEAL_RULE>): void {
  const { text, scan } = context;
  if (!scan.isEnabled(UNSEAL_RULE)) return;
  const emitKey = (key: string, start: number): void => {
    if (looksGenerated(key)) scan.emit(UNSEAL_RULE, start, start + key.length);
  };
  for (const position of context.positions('unseal')) {
    if (!startsWord(text, position)) continue;
    UNSEAL_KEY_LABEL.lastIndex = position;
    const labelled = UNSEAL_KEY_LABEL.exec(text);
    if (labelled?.[1] !== undefined) {
      emitKey(labelled[1], labelled.index + labelled[0].length - labelled[1].length);
      continue;
    }
    if (VAULT_BEFORE_UNSEAL.test(text.slice(Math.max(0, position - VAULT_COMMAND_LOOKBEHIND), position))) {
      UNSEAL_COMMAND.lastIndex = position;
      const command = UNSEAL_COMMAND.exec(text);
      if (command?.[1] !== undefined) emitKey(command[1], command.index + command[0].length - command[1].length);
      continue;
    }
    UNSEAL_KEY_LIST.lastIndex = position;
    const list = UNSEAL_KEY_LIST.exec(text);
    const items = list?.[1];
    if (list === null || items === undefined) continue;
    const itemsStart = list.index + list[0].length - 1 - items.length;
    for (const item of items.matchAll(QUOTED_LIST_ITEM)) {
      const key = item[1];
      if (key !== undefined && UNSEAL_KEY_WHOLE.test(key)) emitKey(key, itemsStart + item.index + 1);
    }
  }
}

export const toolCredentialDetector = defineDetector({
  name: 'tool-credentials',
  ruleIds: [OKTA_RULE, PASSWORD_RULE, UNSEAL_RULE],
  keywords: ['ssws', 'okta', 'machine', 'psexec', 'convertto-securestring', 'unseal', 'pgpass'],
  patternTriggers: [PGPASS_PORT_TRIGGER],
  detect(context) {
    detectOktaTokens(context);
    detectToolPasswords(context);
    detectVaultUnsealKeys(context);
  },
});
