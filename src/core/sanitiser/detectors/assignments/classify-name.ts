/**
 * What a variable name says about the value assigned to it: whether it names a password or
 * another secret ("dbPassword", "api_key"), describes one instead ("token_url"), or belongs to a
 * vendor credential with a known format (AWS_SECRET_ACCESS_KEY, .npmrc `_auth`). Decided from
 * the name alone; the detector then judges the value.
 */
import { LOWER_A, LOWER_Z, UPPER_A, UPPER_Z } from '../chars.js';
import { codeAt, isAsciiLetter } from '../text-boundaries.js';

/** Identifiers longer than this are not variable names. */
export const MAX_NAME_LENGTH = 80;

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
  'id',
  'ids',
  'name',
  'names',
  'type',
  'types',
  'url',
  'uri',
  'urls',
  'endpoint',
  'path',
  'file',
  'filename',
  'dir',
  'length',
  'len',
  'size',
  'field',
  'label',
  'hint',
  'policy',
  'expires',
  'expiry',
  'expiration',
  'expire',
  'ttl',
  'header',
  'prefix',
  'suffix',
  'version',
  'required',
  'confirm',
  'confirmation',
  'reset',
  'enabled',
  'disabled',
  'mode',
  'format',
  'count',
  'max',
  'min',
  'regex',
  'pattern',
  'provider',
  'manager',
  'store',
  'algorithm',
  'alg',
  'method',
  'timeout',
  'scope',
  'scopes',
  'kind',
  'env',
  'var',
  'ref',
  'location',
  'region',
  'error',
  'message',
  'msg',
  'input',
  'form',
  'button',
  'text',
  'title',
  'description',
  'placeholder',
  'index',
  'rule',
  'rules',
  'validator',
  'validation',
  'hash',
  'digest',
  'salt',
  'limit',
  'usage',
  'used',
  'counter',
  'cost',
  'price',
  'fingerprint',
  'info',
  'list',
  'count',
  'source',
  'options',
  'level',
  'status',
  'state',
  'changed',
  'updated',
  'created',
  'at',
  'date',
  'time',
  'valid',
  'exists',
  'present',
  'set',
  'getter',
  'setter',
  'handler',
  'helper',
  'service',
  'class',
  'schema',
  'selector',
  'domain',
  'host',
  'hostname',
  'server',
  'callback',
  'redirect',
  'issuer',
  'audience',
  'realm',
  'email',
  'user',
  'username',
  'login',
  'account',
  'seconds',
  'ms',
  'duration',
  'lifetime',
  'param',
  'params',
  'arg',
]);

/**
 * Names that never hold a secret however they end ("public_key", "publishable_key", "tokenizer").
 * Idempotency and deduplication keys, and a table's sort, partition and range keys, are ids
 * their client makes up (`Idempotency-Key: <uuid>`, `partition_key = "tenant-4711-2026-11"`).
 */
const NON_SECRET_NAME =
  /public|publishable|tokeniz|keyboard|keystroke|keyword|keyframe|keychain|passport|passenger|bypass|compass|author|monkey|turkey|donkey|cache|etag|digest|checksum|fingerprint|idempoten|dedup|(?:sort|partition|range)[_-]?key/i;

type SecretKind = 'password' | 'secret';

export interface NameInfo {
  readonly kind: SecretKind;
  readonly lowerName: string;
}

function isLowerCaseLetter(code: number): boolean {
  return code >= LOWER_A && code <= LOWER_Z;
}

function isUpperCaseLetter(code: number): boolean {
  return code >= UPPER_A && code <= UPPER_Z;
}

/** "dbPassword", "APIKey": a change of case starts a new segment of a camel-case name. */
function isCaseChange(name: string, index: number): boolean {
  const before = codeAt(name, index - 1);
  const at = codeAt(name, index);
  return (isLowerCaseLetter(before) && isUpperCaseLetter(at)) || (isUpperCaseLetter(before) && isLowerCaseLetter(at));
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

/** Which vendor credential a name belongs to, from the name alone (detector.ts judges the value). */
export type OwnedKind = 'aws' | 'aws_if_operator' | 'azure_storage' | 'npmrc' | 'sonarqube' | null;

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

/** `AZURE_CLIENT_ID=<uuid>`, `ad_tenant_id: "<uuid>"`: identifiers of an Azure tenant or app. */
function isAzureIdentifierName(lowerName: string): boolean {
  const compactName = lowerName.replace(/[^a-z]/g, '');
  return /(?:azure|aad|entra|arm|^ad)(?:ad)?(?:tenant|client|subscription|app|application)id$/.test(compactName);
}

/** Everything the detector needs to know about a name, computed once per name and scan. */
export interface NameProfile {
  readonly lowerName: string;
  readonly owned: OwnedKind;
  readonly azureIdentifier: boolean;
  readonly bare: boolean;
  readonly info: NameInfo | null;
}

export function profileOf(name: string): NameProfile {
  const lowerName = name.toLowerCase();
  return {
    lowerName,
    owned: ownedKindOf(lowerName),
    azureIdentifier: isAzureIdentifierName(lowerName),
    bare: isBareSecretWord(name),
    info: classifySecretName(name),
  };
}
