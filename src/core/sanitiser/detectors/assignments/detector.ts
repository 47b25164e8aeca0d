/**
 * Secrets found by their context: `name = value` (and `name: value`, `name => value`, JSON,
 * XML key/value pairs, CLI flags, comparisons), `vendor TOKEN value` and `.npmrc` auth lines.
 * The name decides what kind of secret it would be (classify-name.ts); the value must then pass
 * that kind's gates (length, entropy, character classes, placeholder and template lists).
 * Vendor-specific names own their value: `AWS_SECRET_ACCESS_KEY = <not 40 chars>` is not a
 * secret of any other kind either.
 */
import { defineDetector, type DetectorContext } from '../../detector.js';
import { characterClassCount, isPlaceholderValue, shannonEntropy } from '../../validators.js';
import { isPlausibleLiteralSecret, isPlausiblePassword, isPlausibleSecret, isTemplateOrVariable, type SecretStrictness } from '../credential-values.js';
import { OWNING_PREFIXES } from '../provider-tokens.js';
import { codeAt, isWordCode } from '../text-boundaries.js';
import { MAX_NAME_LENGTH, profileOf, type NameProfile, type OwnedKind } from './classify-name.js';
import { readNameValuePair } from './name-value-pair.js';
import { parseAssignment, type Assignment, type Form } from './parse-assignment.js';

/**
 * Every rule a name = value assignment can be found as: the generic ones, and the vendor formats
 * recognised by their variable name (vendor-owned names).
 */
const ASSIGNMENT_RULE_IDS = [
  'secret.password_assignment',
  'secret.generic_secret',
  'secret.aws_secret_access_key',
  'secret.azure_storage_key',
  'secret.azure_identifier',
  'secret.npmrc_auth',
  'secret.sonarqube_token',
] as const;
type AssignmentRuleId = (typeof ASSIGNMENT_RULE_IDS)[number];

// ---------------------------------------------------------------------------------------------
// Values under vendor-owned names

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface OwnedResult {
  readonly ruleId: AssignmentRuleId | null;
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

/** OWNING_PREFIXES by first character: a value is tested against a handful, not all of them. */
const OWNING_PREFIXES_BY_FIRST_CHARACTER: ReadonlyMap<string, readonly string[]> = (() => {
  const byFirst = new Map<string, string[]>();
  for (const prefix of OWNING_PREFIXES) byFirst.set(prefix.charAt(0), [...(byFirst.get(prefix.charAt(0)) ?? []), prefix]);
  return byFirst;
})();

function startsWithOwningPrefix(value: string): boolean {
  const candidates = OWNING_PREFIXES_BY_FIRST_CHARACTER.get(value.charAt(0));
  return candidates?.some((prefix) => value.startsWith(prefix)) ?? false;
}

// ---------------------------------------------------------------------------------------------
// Detection

const PAIR_ONLY_KEYWORD = 'pw';

const ASSIGNMENT_KEYWORDS = [
  'pass',
  'pwd',
  'secret',
  'token',
  'key',
  'credential',
  'auth',
  'access',
  'private',
  'tenant',
  'azure',
  '_pat',
  'pat_',
  'sonar',
  'directoryentry',
  // `pw` names a password only as a segment (`DB_PW`); in code it is mostly part of other words,
  // so it is read only as the name of a name/value pair (`- name: DB_PW` / `value:`).
  PAIR_ONLY_KEYWORD,
];

/** "nimble KEY ...": a plain word before the name qualifies it; "<add key=" is an XML attribute. */
function isQualified(text: string, nameStart: number): boolean {
  const before = text.slice(Math.max(0, nameStart - 40), nameStart);
  return /[A-Za-z0-9][ \t]$/.test(before) && !/<[\w:.-]+[ \t]+$/.test(before);
}

/** The shortest value any rule could accept for a form; cheaper than classifying the name first. */
function shortestAcceptableValue(form: Form): number {
  return form === 'whitespace' || form === 'glued' || form === 'pair' ? 12 : 6;
}

/**
 * Profiles of the names seen so far, kept across scans: a profile depends on the name alone, and
 * code repeats the same few hundred names (`password`, `cacheKey`, `userToken`) in every text.
 * Bounded like the phone memo (phone-validation.ts): cleared when full, never holding values.
 */
const MAX_PROFILED_NAMES = 20_000;
const nameProfiles = new Map<string, NameProfile>();

function profileOfName(name: string): NameProfile {
  let profile = nameProfiles.get(name);
  if (profile === undefined) {
    profile = profileOf(name);
    if (nameProfiles.size >= MAX_PROFILED_NAMES) nameProfiles.clear();
    nameProfiles.set(name, profile);
  }
  return profile;
}

/**
 * The value gates' verdicts within one scan, by gate and value: code repeats a value under many
 * names (`form.get('password')` on every form handler), and each gate reads the value several
 * times (placeholders, templates, entropy). Per scan, so that no value outlives its text.
 */
type ValueVerdicts = Map<string, boolean>;

function plausiblePassword(verdicts: ValueVerdicts, value: string, quoted: boolean): boolean {
  const key = `${quoted ? 'P' : 'p'}${value}`;
  let verdict = verdicts.get(key);
  if (verdict === undefined) {
    verdict = isPlausiblePassword(value, quoted);
    verdicts.set(key, verdict);
  }
  return verdict;
}

function plausibleSecret(verdicts: ValueVerdicts, value: string, strictness: SecretStrictness, quoted: boolean): boolean {
  const key = `${strictness === 'loose' ? (quoted ? 'L' : 'l') : quoted ? 'A' : 'a'}${value}`;
  let verdict = verdicts.get(key);
  if (verdict === undefined) {
    verdict = isPlausibleSecret(value, strictness, quoted);
    verdicts.set(key, verdict);
  }
  return verdict;
}

function plausibleLiteralSecret(verdicts: ValueVerdicts, value: string): boolean {
  const key = `D${value}`;
  let verdict = verdicts.get(key);
  if (verdict === undefined) {
    verdict = isPlausibleLiteralSecret(value, 'assigned');
    verdicts.set(key, verdict);
  }
  return verdict;
}

/** `define('AUTH_KEY', ` before a pair's quoted name: a PHP constant (wp-config.php's salts). */
const PHP_DEFINE_BEFORE = /\bdefine\s{0,8}\(\s{0,8}$/i;

function isPhpDefine(text: string, nameStart: number): boolean {
  return PHP_DEFINE_BEFORE.test(text.slice(Math.max(0, nameStart - 24), nameStart - 1));
}

/**
 * Constructors whose last string argument is a password although no argument is named so:
 * .NET's `new DirectoryEntry(path, username, password)` (also written with its namespace).
 */
const CREDENTIAL_CONSTRUCTORS: ReadonlySet<string> = new Set(['directoryentry']);

/** A name that is a file (`src/chpasswd.c: Likewise.` in a ChangeLog), not a setting. */
const FILE_NAME =
  /\.(?:c|h|cc|cpp|cxx|hh|hpp|py|js|mjs|ts|go|rs|java|kt|rb|pl|pm|sh|md|txt|patch|dpatch|diff|in|am|ac|m4|exp|log|json|ya?ml|xml|html?|[1-9])$/i;

/**
 * Whether the value is a word of a sentence or a list rather than a setting: after `name:`, an
 * unquoted value followed on its line by more words that are no `key=`/`key:` pairs of their own
 * (test results: `PASS: gdb.base/break.exp: run until main`, `--- PASS: TestToken (0.00s)`;
 * logfmt's `password=... ip=...` keeps its pairs). The bare word `pass` before a quoted sentence
 * is a pass/fail message (`"pass": "No abstract roles are used"`).
 */
function isProse(text: string, assignment: Assignment, bareName: string): boolean {
  if (assignment.quoted) return bareName === 'pass' && /\s\S+\s/.test(assignment.value);
  if (assignment.form !== 'operator') return false;
  const between = text.slice(assignment.nameStart + assignment.name.length, assignment.valueStart);
  if (!/^["']?[ \t]*:[ \t]*$/.test(between)) return false;
  // The next token is a word (`run`, `-f`, `(0.00s)`), not a pair, a comment or an escape (`\\n"`).
  const next = /^[ \t]+([^\s]+)/.exec(text.slice(assignment.valueEnd, assignment.valueEnd + 200))?.[1] ?? '';
  return /^(?:[A-Za-z(]|-[A-Za-z])/.test(next) && !/[=:]/.test(next);
}

/** A path segment that names a hash: `checksum/secret`, `digest/token`. */
const HASH_PATH_SEGMENT = /^(?:checksum|digest|fingerprint|etag|hash|sha\d*|md5)s?$/i;

/**
 * Whether the name is the last segment of a path whose segment before it names a hash: Helm's
 * `checksum/secret: <sha256 of the rendered Secret>` annotation restarts pods when the Secret
 * changes, and holds no secret. The name reader stops at `/`, so the name alone says `secret`.
 */
function followsHashPathSegment(text: string, nameStart: number): boolean {
  if (codeAt(text, nameStart - 1) !== 47) return false;
  let cursor = nameStart - 1;
  while (cursor > 0 && nameStart - cursor <= MAX_NAME_LENGTH && isWordCode(text.charCodeAt(cursor - 1))) cursor -= 1;
  return HASH_PATH_SEGMENT.test(text.slice(cursor, nameStart - 1));
}

function judgeAssignment(text: string, assignment: Assignment, verdicts: ValueVerdicts): AssignmentRuleId | null {
  const value = assignment.value;
  if (assignment.overlong || value.length < shortestAcceptableValue(assignment.form)) return null;
  if (followsHashPathSegment(text, assignment.nameStart)) return null;
  // Man pages, ChangeLogs and test logs (regression: thousands of findings at block severity in /usr/share/doc).
  if (FILE_NAME.test(assignment.name)) return null;
  if (isProse(text, assignment, assignment.name.toLowerCase())) return null;
  const profile = profileOfName(assignment.name);
  const owned = ownedName(profile.owned, assignment);
  if (owned !== undefined) return owned.ruleId;
  if (profile.azureIdentifier) return UUID.test(value) ? 'secret.azure_identifier' : null;
  // A bare "key" or "access" names a secret only with a qualifier ("api_key", "nimble KEY ...");
  // `key = ...` and `"key": ...` alone are map keys.
  if (profile.bare && !isQualified(text, assignment.nameStart)) return null;
  const info = profile.info;
  if (assignment.form === 'call' && CREDENTIAL_CONSTRUCTORS.has(profile.lowerName.slice(profile.lowerName.lastIndexOf('.') + 1))) {
    return plausiblePassword(verdicts, value, assignment.quoted) ? 'secret.password_assignment' : null;
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
      return plausiblePassword(verdicts, value, assignment.quoted) ? 'secret.password_assignment' : null;
    case 'operator':
      if (info.kind === 'password') return plausiblePassword(verdicts, value, assignment.quoted) ? 'secret.password_assignment' : null;
      return plausibleSecret(verdicts, value, 'assigned', assignment.quoted) ? 'secret.generic_secret' : null;
    case 'pair':
      // Two literals in a row may be any list of strings ('password', 'remember_me'): the value
      // must look generated whatever the name's kind.
      // The value of a PHP `define` is a literal, whatever brackets it holds: no call, no index.
      if (!(isPhpDefine(text, assignment.nameStart) ? plausibleLiteralSecret(verdicts, value) : plausibleSecret(verdicts, value, 'assigned', true)))
        return null;
      return info.kind === 'password' ? 'secret.password_assignment' : 'secret.generic_secret';
    case 'whitespace':
    case 'glued':
      // The rule follows the name, as for the other forms: `password <16 characters>` (.netrc,
      // `CREATE USER ... WITH PASSWORD '...'`) is a password whatever its length (regression: a
      // value long enough for this gate was a generic secret, a shorter one a password).
      if (!plausibleSecret(verdicts, value, 'loose', assignment.quoted)) return null;
      return info.kind === 'password' ? 'secret.password_assignment' : 'secret.generic_secret';
  }
}

/**
 * The assignment whose name holds the keyword at `position`. A pair's name (`name: JWT_SECRET`
 * with `value:` below it, or JSON's `"name": "JWT_SECRET", "value": ...`) alone reads as no
 * assignment, or as a pair of string literals whose value is the word `value`: only then is the
 * pair looked for, which spares its backward walk at the thousands of `key = ...` in code.
 */
function readAssignment(text: string, position: number, keyword: string): Assignment | null {
  const keywordEnd = position + keyword.length;
  const assignment = keyword === PAIR_ONLY_KEYWORD ? null : parseAssignment(text, position, keywordEnd);
  if (assignment !== null && assignment.form !== 'pair') return assignment;
  return readNameValuePair(text, position, keywordEnd) ?? assignment;
}

function detectAssignments(context: DetectorContext<AssignmentRuleId>): void {
  const { text, scan } = context;
  const emittedValueStarts = new Set<number>();
  const verdicts: ValueVerdicts = new Map();
  for (const keyword of ASSIGNMENT_KEYWORDS) {
    // A keyword inside a value already judged ("token = 'xtokenx...'") starts no assignment.
    let judgedUntil = -1;
    for (const position of context.positions(keyword)) {
      if (position < judgedUntil) continue;
      const assignment = readAssignment(text, position, keyword);
      if (assignment === null) continue;
      judgedUntil = assignment.valueEnd;
      if (emittedValueStarts.has(assignment.valueStart)) continue;
      const ruleId = judgeAssignment(text, assignment, verdicts);
      if (ruleId === null) continue;
      emittedValueStarts.add(assignment.valueStart);
      scan.emit(ruleId, assignment.valueStart, assignment.valueEnd);
    }
  }
}

export const assignmentDetector = defineDetector({
  name: 'assignments',
  ruleIds: ASSIGNMENT_RULE_IDS,
  keywords: ASSIGNMENT_KEYWORDS,
  detect: detectAssignments,
});
