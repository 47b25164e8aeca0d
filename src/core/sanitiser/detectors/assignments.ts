/**
 * Secrets found by their context: `name = value` (and `name: value`, `name => value`, JSON,
 * XML key/value pairs, CLI flags, comparisons), `vendor TOKEN value` and `.npmrc` auth lines.
 * The name decides what kind of secret it would be; the value must then pass that kind's gates
 * (length, entropy, character classes, placeholder and template lists).
 * Vendor-specific names own their value: `AWS_SECRET_ACCESS_KEY = <not 40 chars>` is not a
 * secret of any other kind either.
 */
import type { Detector, DetectorContext } from '../detector.js';
import { characterClassCount, isPlaceholderValue, shannonEntropy } from '../validators.js';
import { isPlausiblePassword, isPlausibleSecret, isTemplateOrVariable } from './credential-values.js';
import { OWNING_PREFIXES } from './provider-tokens.js';
import { codeAt, isAsciiAlphanumeric, isAsciiLetter, isWordCode, skipBlanks } from './text-boundaries.js';

/** Identifiers longer than this are not variable names. */
const MAX_NAME_LENGTH = 80;
/** Values longer than this are data blobs, not credentials (signed tokens reach about 1,500). */
const MAX_VALUE_LENGTH = 2_048;


/** Words that make a name a secret's name wherever they occur in it ("dbPassword", "x_secret_y"). */
const STRONG_WORDS: readonly { word: string; kind: 'password' | 'secret' }[] = [
  { word: 'password', kind: 'password' },
  { word: 'passwd', kind: 'password' },
  { word: 'passphrase', kind: 'password' },
  { word: 'passcode', kind: 'password' },
  { word: 'secret', kind: 'secret' },
  { word: 'token', kind: 'secret' },
  { word: 'apikey', kind: 'secret' },
  { word: 'accesskey', kind: 'secret' },
  { word: 'privatekey', kind: 'secret' },
  { word: 'authkey', kind: 'secret' },
  { word: 'credential', kind: 'secret' },
];

/**
 * Short words that are only secret words as a whole segment of the name ("db_pass", "PWD",
 * "boxKEY"), never inside another word ("compass", "monkey", "author").
 */
const SEGMENT_WORDS: readonly { word: string; kind: 'password' | 'secret' }[] = [
  { word: 'pass', kind: 'password' },
  { word: 'pwd', kind: 'password' },
  { word: 'pw', kind: 'password' },
  { word: 'key', kind: 'secret' },
  { word: 'auth', kind: 'secret' },
  { word: 'access', kind: 'secret' },
  { word: 'private', kind: 'secret' },
  { word: 'pat', kind: 'secret' },
];

/**
 * A segment right after the secret word that makes the name describe the secret rather than
 * hold it: `token_url`, `private_key_id`, `password_confirmation`, `secretKeyRef`.
 */
const METADATA_WORDS: ReadonlySet<string> = new Set([
  'id', 'ids', 'name', 'names', 'type', 'types', 'url', 'uri', 'urls', 'endpoint', 'path', 'file', 'filename',
  'dir', 'length', 'len', 'size', 'field', 'label', 'hint', 'policy', 'expires', 'expiry', 'expiration',
  'expire', 'ttl', 'header', 'prefix', 'suffix', 'version', 'required', 'confirm', 'confirmation', 'reset',
  'enabled', 'disabled', 'mode', 'format', 'count', 'max', 'min', 'regex', 'pattern', 'provider', 'manager',
  'store', 'algorithm', 'alg', 'method', 'timeout', 'scope', 'scopes', 'kind', 'env', 'var', 'ref', 'location',
  'region', 'error', 'message', 'msg', 'input', 'form', 'button', 'text', 'title', 'description',
  'placeholder', 'index', 'rule', 'rules', 'validator', 'validation', 'hash', 'digest', 'salt', 'limit',
  'usage', 'used', 'counter', 'cost', 'price', 'fingerprint', 'info', 'list', 'count', 'source', 'options',
  'level', 'status', 'state', 'changed', 'updated', 'created', 'at', 'date', 'time', 'valid', 'exists',
  'present', 'set', 'getter', 'setter', 'handler', 'helper', 'service', 'class', 'schema', 'selector',
  'domain', 'host', 'hostname', 'server', 'callback', 'redirect', 'issuer', 'audience', 'realm', 'email',
  'user', 'username', 'login', 'account', 'seconds', 'ms', 'duration', 'lifetime', 'param', 'params', 'arg',
]);

/** Names that never hold a secret however they end ("public_key", "publishable_key", "tokenizer"). */
const NON_SECRET_NAME = /public|publishable|tokeniz|keyboard|keystroke|keyword|keyframe|keychain|passport|passenger|bypass|compass|author|monkey|turkey|donkey/i;

type SecretKind = 'password' | 'secret';

interface NameInfo {
  readonly kind: SecretKind;
  readonly lowerName: string;
}

function isCaseChange(name: string, index: number): boolean {
  const before = codeAt(name, index - 1);
  const at = codeAt(name, index);
  const beforeLower = before >= 97 && before <= 122;
  const beforeUpper = before >= 65 && before <= 90;
  const atLower = at >= 97 && at <= 122;
  const atUpper = at >= 65 && at <= 90;
  return (beforeLower && atUpper) || (beforeUpper && atLower);
}

function isSegmentBoundary(name: string, index: number): boolean {
  return index <= 0 || index >= name.length || !isAsciiLetter(codeAt(name, index - 1)) || !isAsciiLetter(codeAt(name, index)) || isCaseChange(name, index);
}

/** The segment of `name` that starts at `index` (letters only), lower-cased. */
function segmentAt(name: string, index: number): string {
  let start = index;
  while (start < name.length && !isAsciiLetter(codeAt(name, start))) start += 1;
  let end = start;
  while (end < name.length && isAsciiLetter(codeAt(name, end)) && (end === start || !isSegmentBoundary(name, end))) end += 1;
  return name.slice(start, end).toLowerCase();
}

/** A name that is a bare secret word ("key", "access"): a secret only with a qualifier before it. */
export function isBareSecretWord(name: string): boolean {
  return /^(?:key|keys|access|private|auth|pat)$/i.test(name);
}

/** Classifies an identifier: which kind of secret it names, or null. */
export function classifySecretName(name: string): NameInfo | null {
  if (name.length === 0 || name.length > MAX_NAME_LENGTH || NON_SECRET_NAME.test(name)) return null;
  const lowerName = name.toLowerCase();
  let kind: SecretKind | null = null;
  let lastWordEnd = -1;
  for (const { word, kind: wordKind } of STRONG_WORDS) {
    const index = lowerName.lastIndexOf(word);
    if (index === -1) continue;
    if (kind !== 'password') kind = wordKind;
    lastWordEnd = Math.max(lastWordEnd, index + word.length);
  }
  for (const { word, kind: wordKind } of SEGMENT_WORDS) {
    let index = lowerName.indexOf(word);
    while (index !== -1) {
      if (isSegmentBoundary(name, index) && isSegmentBoundary(name, index + word.length)) {
        if (kind !== 'password') kind = wordKind;
        lastWordEnd = Math.max(lastWordEnd, index + word.length);
      }
      index = lowerName.indexOf(word, index + 1);
    }
  }
  if (kind === null) return null;
  const following = segmentAt(name, lastWordEnd);
  if (following !== '' && METADATA_WORDS.has(following)) return null;
  // The last segment says what the whole name holds: AUTH0_CLIENT_ID is an id, TOKEN_URL a URL.
  const lastSegment = /([A-Za-z]+)[^A-Za-z]*$/.exec(name)?.[1] ?? '';
  const lastWord = /[A-Z]?[a-z]+$|[A-Z]+$/.exec(lastSegment)?.[0].toLowerCase() ?? '';
  if (METADATA_WORDS.has(lastWord)) return null;
  return { kind, lowerName };
}

// ---------------------------------------------------------------------------------------------
// Parsing `name <operator> value` around a keyword

type Form = 'operator' | 'comparison' | 'whitespace' | 'glued' | 'flag' | 'call' | 'pair';

interface Assignment {
  readonly name: string;
  readonly nameStart: number;
  readonly valueStart: number;
  readonly valueEnd: number;
  readonly value: string;
  readonly quoted: boolean;
  /** Longer than any credential: judged as nothing, but its text need not be read again. */
  readonly overlong: boolean;
  readonly form: Form;
}

function isNameCode(code: number): boolean {
  return isWordCode(code) || code === 46 || code === 45;
}

const OPERATORS: readonly { text: string; form: Form }[] = [
  { text: ':=', form: 'operator' },
  { text: '=>', form: 'operator' },
  { text: '===', form: 'comparison' },
  { text: '!==', form: 'comparison' },
  { text: '==', form: 'comparison' },
  { text: '!=', form: 'comparison' },
  { text: '?=', form: 'operator' },
  { text: '=', form: 'operator' },
  { text: ':', form: 'operator' },
  { text: '->', form: 'operator' },
];

function isQuote(code: number): boolean {
  return code === 34 || code === 39 || code === 96;
}

/** Characters that end an unquoted value. */
function endsUnquotedValue(code: number): boolean {
  return code <= 32 || isQuote(code) || code === 44 || code === 59 || code === 41 || code === 125 || code === 93 || code === 60 || code === 62 || code === 38;
}

/**
 * The value starting at `start`. An over-long value is still returned (flagged) so that the
 * caller can skip the keywords inside the text it has already read: repeated `password=` stays
 * linear instead of rereading up to MAX_VALUE_LENGTH characters per keyword.
 */
function readValue(text: string, start: number): { start: number; end: number; quoted: boolean; overlong: boolean } | null {
  // A quote escaped inside a string literal ("{\"key\":\"value\"}") still delimits the value.
  const escaped = codeAt(text, start) === 92 && isQuote(codeAt(text, start + 1));
  const open = escaped ? start + 1 : start;
  if (isQuote(codeAt(text, open))) {
    const quote = text[open] ?? '';
    let close = text.indexOf(quote, open + 1);
    const newline = text.indexOf('\n', open + 1);
    if (close === -1 || (newline !== -1 && newline < close)) return readUnclosedValue(text, open + 1, newline === -1 ? text.length : newline);
    if (close - open > MAX_VALUE_LENGTH) return null;
    if (escaped && text.charCodeAt(close - 1) === 92) close -= 1;
    return { start: open + 1, end: close, quoted: true, overlong: false };
  }
  let end = start;
  while (end < text.length && end - start <= MAX_VALUE_LENGTH && !endsUnquotedValue(text.charCodeAt(end))) end += 1;
  while (end > start && text.charCodeAt(end - 1) === 92) end -= 1; // a line continuation or escape
  if (end === start) return null;
  return { start, end, quoted: false, overlong: end - start > MAX_VALUE_LENGTH };
}

/**
 * A string that does not close on its line: text cut off after the value (a pasted fragment, a
 * truncated log line). The rest of the line is the value when it is one bare word; a string
 * spanning lines, or holding words, is not read.
 */
function readUnclosedValue(text: string, start: number, lineEnd: number): { start: number; end: number; quoted: boolean; overlong: boolean } | null {
  let end = lineEnd;
  if (codeAt(text, end - 1) === 13) end -= 1;
  if (end === start || end - start > MAX_VALUE_LENGTH) return null;
  for (let index = start; index < end; index += 1) {
    const code = text.charCodeAt(index);
    if (code <= 32 || isQuote(code) || code === 92) return null;
  }
  return { start, end, quoted: false, overlong: false };
}

/** The last string literal among a call's first arguments: NetworkCredential("user", "pass"). */
function readCallPassword(text: string, openParen: number): { start: number; end: number } | null {
  const close = text.indexOf(')', openParen);
  if (close === -1 || close - openParen > MAX_VALUE_LENGTH) return null;
  const literals = [...text.slice(openParen + 1, close).matchAll(/(["'])((?:(?!\1)[^\n])*)\1/g)];
  const last = literals[literals.length - 1];
  if (literals.length < 2 || last === undefined) return null;
  const start = openParen + 1 + last.index + 1;
  return { start, end: start + (last[2] ?? '').length };
}

/**
 * The second of two string literals separated by a comma, after a quoted secret name:
 * `config.set('api_key', 'v')`, `buildConfigField 'String', 'API_KEY', '"v"'` (a literal holding
 * a quoted literal, as Gradle wants), `("SECRET_KEY", "v")`.
 */
function readPairValue(text: string, afterNameQuote: number): { start: number; end: number } | null {
  let cursor = skipBlanks(text, afterNameQuote);
  if (codeAt(text, cursor) !== 44) return null;
  cursor = skipBlanks(text, cursor + 1);
  if (!isQuote(codeAt(text, cursor))) return null;
  const value = readValue(text, cursor);
  if (value === null || !value.quoted) return null;
  let { start, end } = value;
  if (end - start >= 2 && codeAt(text, start) === 34 && codeAt(text, end - 1) === 34) {
    start += 1;
    end -= 1;
  }
  return { start, end };
}

/**
 * A string literal that opens with a connection-string segment (`"Password=s3cr3t;..."`, and
 * `"...; " & "Password =s3cr3t;"` when the string is built in pieces): `=` follows the name and
 * the value is a bare word that ends the segment. `"password=" + pw` opens no value.
 */
function opensConnectionStringSegment(text: string, afterName: number): boolean {
  const operator = skipBlanks(text, afterName);
  if (codeAt(text, operator) !== 61) return false;
  const next = codeAt(text, operator + 1);
  return next !== 61 && next !== 62 && !isQuote(codeAt(text, skipBlanks(text, operator + 1)));
}

function parseAssignment(text: string, keywordStart: number, keywordEnd: number): Assignment | null {
  let nameStart = keywordStart;
  while (nameStart > 0 && keywordStart - nameStart < MAX_NAME_LENGTH && isNameCode(text.charCodeAt(nameStart - 1))) nameStart -= 1;
  while (nameStart < keywordStart && !isAsciiAlphanumeric(text.charCodeAt(nameStart)) && text.charCodeAt(nameStart) !== 95) nameStart += 1;
  let nameEnd = keywordEnd;
  while (nameEnd < text.length && nameEnd - nameStart < MAX_NAME_LENGTH && isWordCode(text.charCodeAt(nameEnd))) nameEnd += 1;
  // "secret-key = v", "client.secret: v": a '-' or '.' continues the name when an operator follows
  // the next segment; otherwise it glues a value to the name ("cloudplanSECRET-ABCD1234").
  // Bounded by MAX_NAME_LENGTH like the scans above (regression: in "key-key-key-...", every
  // occurrence followed the segments to the end of the text: 64 KiB took 8 s).
  while (nameEnd - nameStart < MAX_NAME_LENGTH) {
    const separator = codeAt(text, nameEnd);
    if (separator !== 45 && separator !== 46) break;
    let segmentEnd = nameEnd + 1;
    while (segmentEnd < text.length && segmentEnd - nameStart < MAX_NAME_LENGTH && isWordCode(text.charCodeAt(segmentEnd))) segmentEnd += 1;
    const afterSegment = codeAt(text, skipBlanks(text, segmentEnd));
    const segmentIsName = segmentEnd > nameEnd + 1 && /^[A-Za-z_]+$/.test(text.slice(nameEnd + 1, segmentEnd));
    if (!segmentIsName || !(afterSegment === 61 || afterSegment === 58 || isQuote(afterSegment) || afterSegment === 45 || afterSegment === 46)) break;
    nameEnd = segmentEnd;
  }
  const name = text.slice(nameStart, nameEnd);
  let cursor = nameEnd;
  // A quoted name must close right after itself: in "Password:" the colon is part of a string.
  const escapedQuoteBefore = codeAt(text, nameStart - 1) === 34 && codeAt(text, nameStart - 2) === 92;
  const nameQuote = codeAt(text, nameStart - 1);
  if (isQuote(nameQuote)) {
    if (escapedQuoteBefore && codeAt(text, cursor) === 92) cursor += 1;
    if (codeAt(text, cursor) === nameQuote) {
      cursor += 1;
      const pair = readPairValue(text, cursor);
      if (pair !== null) return { name, nameStart, valueStart: pair.start, valueEnd: pair.end, value: text.slice(pair.start, pair.end), quoted: true, overlong: false, form: 'pair' };
    } else if (codeAt(text, cursor) === 58 && codeAt(text, cursor + 1) === 32 && name.includes('-')) {
      // A whole HTTP header in one string ('X-Api-Key: v', "Private-Token: v"): the value runs
      // to the closing quote. Header names are hyphenated; "Password: " in prose is not one.
      const header = readValue(text, skipBlanks(text, cursor + 1));
      if (header === null || header.quoted || codeAt(text, header.end) !== nameQuote) return null;
      return { name, nameStart, valueStart: header.start, valueEnd: header.end, value: text.slice(header.start, header.end), quoted: false, overlong: header.overlong, form: 'operator' };
    } else if (!opensConnectionStringSegment(text, cursor)) {
      return null;
    }
  }
  if (codeAt(text, cursor) === 93) cursor += 1; // d["password"] = ...
  const afterName = cursor;
  cursor = skipBlanks(text, cursor);
  let form: Form | null = null;
  const operatorStart = codeAt(text, cursor);
  // Operators start with one of = : ! ? - ; checking the character first skips the list for
  // the common case of a keyword inside a word or a sentence.
  if (operatorStart === 61 || operatorStart === 58 || operatorStart === 33 || operatorStart === 63 || operatorStart === 45) {
    for (const operator of OPERATORS) {
      if (text.startsWith(operator.text, cursor)) {
        form = operator.form;
        cursor += operator.text.length;
        break;
      }
    }
  }
  if (form === null) {
    const next = codeAt(text, afterName);
    if (next === 40) {
      const literal = readCallPassword(text, afterName);
      if (literal === null) return null;
      return { name, nameStart, valueStart: literal.start, valueEnd: literal.end, value: text.slice(literal.start, literal.end), quoted: true, overlong: false, form: 'call' };
    }
    if (cursor === nameEnd && (next === 45 || next === 95)) {
      form = 'glued';
      cursor += 1;
    } else if (cursor > afterName) {
      const word = codeAt(text, cursor);
      if ((word === 105 || word === 118) && isQuote(nameQuote) === (word === 118)) {
        const ahead = text.slice(afterName, afterName + 32);
        const xmlValue = word === 118 ? /^\s+value\s*=\s*/.exec(ahead) : null;
        const isClause = word === 105 ? /^\s+is\s+(?=["'`])/.exec(ahead) : null;
        if (xmlValue !== null) {
          // <add key="DbPassword" value="..."/>
          form = 'operator';
          cursor = afterName + xmlValue[0].length;
        } else if (isClause !== null) {
          // "the password is 'hunter22'"
          form = 'comparison';
          cursor = afterName + isClause[0].length;
        }
      }
      if (form === null && afterName === nameEnd) form = codeAt(text, nameStart - 1) === 45 ? 'flag' : 'whitespace';
      if (form === null) return null;
    } else {
      return null;
    }
  }
  if (form === 'operator' && text.charCodeAt(cursor - 1) === 58 && codeAt(text, cursor) === 58) return null; // a::b
  cursor = skipBlanks(text, cursor);
  const value = readValue(text, cursor);
  if (value === null) return null;
  return {
    name,
    nameStart,
    valueStart: value.start,
    valueEnd: value.end,
    value: text.slice(value.start, value.end),
    quoted: value.quoted,
    overlong: value.overlong,
    form,
  };
}

// ---------------------------------------------------------------------------------------------
// Vendor-owned names

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface OwnedResult {
  readonly ruleId: string | null;
}

/** Which vendor credential a name belongs to, decided from the name alone (see ownedName). */
type OwnedKind = 'aws' | 'aws_if_operator' | 'azure_storage' | 'npmrc' | 'sonarqube' | null;

function ownedKindOf(lowerName: string): OwnedKind {
  const compactName = lowerName.replace(/[^a-z0-9]/g, '');
  if (compactName.includes('aws') && compactName.includes('secret')) return 'aws';
  if (compactName === 'secretaccesskey') return 'aws_if_operator';
  if (compactName === 'accountkey' || compactName === 'sharedaccesskey' || compactName.endsWith('storageaccountkey')) return 'azure_storage';
  if (/^_(?:authtoken|auth|password)$/.test(lowerName)) return 'npmrc';
  // SonarQube's documented scanner properties: sonar.login (older) and sonar.token.
  if (/sonar(?:login|token)$/.test(compactName)) return 'sonarqube';
  return null;
}

/**
 * Names that belong to a vendor credential with a known value format. Returns undefined when the
 * name is not owned; { ruleId: null } when it is owned but the value does not fit (no finding).
 */
function ownedName(kind: OwnedKind, assignment: Assignment): OwnedResult | undefined {
  const value = assignment.value;
  if (kind === 'aws' || (kind === 'aws_if_operator' && assignment.form === 'operator')) {
    const fits = /^[A-Za-z0-9/+=]{40}$/.test(value) && characterClassCount(value) >= 2 && shannonEntropy(value) >= 3.0;
    return { ruleId: fits ? 'secret.aws_secret_access_key' : null };
  }
  if (kind === 'azure_storage') {
    const fits = /^[A-Za-z0-9+/]{40,}={0,2}$/.test(value) && shannonEntropy(value) >= 4.0;
    return { ruleId: fits ? 'secret.azure_storage_key' : null };
  }
  if (kind === 'npmrc') {
    const fits = value.length >= 8 && !/[\s()]/.test(value) && !isPlaceholderValue(value) && !isTemplateOrVariable(value);
    return { ruleId: fits ? 'secret.npmrc_auth' : null };
  }
  if (kind === 'sonarqube') {
    // SonarQube user tokens before 9.5 are 40 hex digits with no prefix; prefixed ones (squ_...)
    // are provider formats, and anything else under the name is judged as a generic value.
    if (/^[0-9a-f]{40}$/.test(value) && /\d/.test(value) && /[a-f]/.test(value)) return { ruleId: 'secret.sonarqube_token' };
    return undefined;
  }
  return undefined;
}

/** `AZURE_CLIENT_ID=<uuid>`, `ad_tenant_id: "<uuid>"`: identifiers of an Azure tenant or app. */
function isAzureIdentifierName(lowerName: string): boolean {
  const compactName = lowerName.replace(/[^a-z]/g, '');
  return /(?:azure|aad|entra|arm|^ad)(?:ad)?(?:tenant|client|subscription|app|application)id$/.test(compactName);
}

/** Everything judgeAssignment needs to know about a name, computed once per name and scan. */
interface NameProfile {
  readonly lowerName: string;
  readonly owned: OwnedKind;
  readonly azureIdentifier: boolean;
  readonly bare: boolean;
  readonly info: NameInfo | null;
}

function profileOf(name: string): NameProfile {
  const lowerName = name.toLowerCase();
  return {
    lowerName,
    owned: ownedKindOf(lowerName),
    azureIdentifier: isAzureIdentifierName(lowerName),
    bare: isBareSecretWord(name),
    info: classifySecretName(name),
  };
}

/** OWNING_PREFIXES by first character: a value is tested against a handful, not all of them. */
const OWNING_PREFIXES_BY_FIRST_CHARACTER: ReadonlyMap<string, readonly string[]> = (() => {
  const byFirst = new Map<string, string[]>();
  for (const prefix of OWNING_PREFIXES) byFirst.set(prefix.charAt(0), [...(byFirst.get(prefix.charAt(0)) ?? []), prefix]);
  return byFirst;
})();

function startsWithOwningPrefix(value: string): boolean {
  const candidates = OWNING_PREFIXES_BY_FIRST_CHARACTER.get(value.charAt(0));
  return candidates !== undefined && candidates.some((prefix) => value.startsWith(prefix));
}

// ---------------------------------------------------------------------------------------------
// Detection

const ASSIGNMENT_KEYWORDS = ['pass', 'pwd', 'secret', 'token', 'key', 'credential', 'auth', 'access', 'private', 'tenant', 'azure', '_pat', 'pat_', 'sonar', 'directoryentry'];

/** "nimble KEY ...": a plain word before the name qualifies it; "<add key=" is an XML attribute. */
function isQualified(text: string, nameStart: number): boolean {
  const before = text.slice(Math.max(0, nameStart - 40), nameStart);
  return /[A-Za-z0-9][ \t]$/.test(before) && !/<[\w:.-]+[ \t]+$/.test(before);
}

/** The shortest value any rule could accept for a form; cheaper than classifying the name first. */
function shortestAcceptableValue(form: Form): number {
  return form === 'whitespace' || form === 'glued' || form === 'pair' ? 12 : 6;
}

type NameProfiles = Map<string, NameProfile>;

/**
 * Constructors whose last string argument is a password although no argument is named so:
 * .NET's `new DirectoryEntry(path, username, password)` (also written with its namespace).
 */
const CREDENTIAL_CONSTRUCTORS: ReadonlySet<string> = new Set(['directoryentry']);

function judgeAssignment(text: string, assignment: Assignment, profiles: NameProfiles): string | null {
  const value = assignment.value;
  if (assignment.overlong || value.length < shortestAcceptableValue(assignment.form)) return null;
  // Names repeat (every `password` field, every `cacheKey`): profile each once per scan.
  let profile = profiles.get(assignment.name);
  if (profile === undefined) {
    profile = profileOf(assignment.name);
    profiles.set(assignment.name, profile);
  }
  const owned = ownedName(profile.owned, assignment);
  if (owned !== undefined) return owned.ruleId;
  if (profile.azureIdentifier) return UUID.test(value) ? 'secret.azure_identifier' : null;
  // A bare "key" or "access" names a secret only with a qualifier ("api_key", "nimble KEY ...");
  // `key = ...` and `"key": ...` alone are map keys.
  if (profile.bare && !isQualified(text, assignment.nameStart)) return null;
  const info = profile.info;
  if (assignment.form === 'call' && CREDENTIAL_CONSTRUCTORS.has(profile.lowerName.slice(profile.lowerName.lastIndexOf('.') + 1))) {
    return isPlausiblePassword(value, assignment.quoted) ? 'secret.password_assignment' : null;
  }
  if (info === null) return null;
  if (value.toLowerCase() === profile.lowerName) return null;
  // A value in a vendor's prefix is judged by that vendor's format alone (provider-tokens.ts).
  if (startsWithOwningPrefix(value)) return null;
  switch (assignment.form) {
    case 'comparison':
    case 'call':
    case 'flag':
      // Hard-coded credential checks, credential constructors and CLI flags hold passwords
      // whatever the name says ("if creds.Secret != 'open-sesame'").
      return isPlausiblePassword(value, assignment.quoted) ? 'secret.password_assignment' : null;
    case 'operator':
      if (info.kind === 'password') return isPlausiblePassword(value, assignment.quoted) ? 'secret.password_assignment' : null;
      return isPlausibleSecret(value, 'assigned', assignment.quoted) ? 'secret.generic_secret' : null;
    case 'pair':
      // Two literals in a row may be any list of strings ('password', 'remember_me'): the value
      // must look generated whatever the name's kind.
      if (!isPlausibleSecret(value, 'assigned', true)) return null;
      return info.kind === 'password' ? 'secret.password_assignment' : 'secret.generic_secret';
    case 'whitespace':
    case 'glued':
      return isPlausibleSecret(value, 'loose', assignment.quoted) ? 'secret.generic_secret' : null;
  }
}

function detectAssignments(context: DetectorContext): void {
  const { text, scan } = context;
  const emittedValueStarts = new Set<number>();
  const profiles: NameProfiles = new Map();
  for (const keyword of ASSIGNMENT_KEYWORDS) {
    // A keyword inside a value already judged ("token = 'xtokenx...'") starts no assignment.
    let judgedUntil = -1;
    for (const position of context.positions(keyword)) {
      if (position < judgedUntil) continue;
      const assignment = parseAssignment(text, position, position + keyword.length);
      if (assignment === null) continue;
      judgedUntil = assignment.valueEnd;
      if (emittedValueStarts.has(assignment.valueStart)) continue;
      const ruleId = judgeAssignment(text, assignment, profiles);
      if (ruleId === null) continue;
      emittedValueStarts.add(assignment.valueStart);
      scan.emit(ruleId, assignment.valueStart, assignment.valueEnd);
    }
  }
}

export const assignmentDetector: Detector = {
  name: 'assignments',
  ruleIds: [
    'secret.password_assignment',
    'secret.generic_secret',
    'secret.aws_secret_access_key',
    'secret.azure_storage_key',
    'secret.azure_identifier',
    'secret.npmrc_auth',
  ],
  keywords: ASSIGNMENT_KEYWORDS,
  detect: detectAssignments,
};
