/**
 * Secrets that describe themselves: PEM/PGP and PuTTY private key blocks, JSON Web Tokens,
 * crypt(3) password hashes and 0x-prefixed 256-bit private keys.
 */
import { defineDetector, type DetectorContext } from '../detector.js';
import { shannonEntropy } from '../validators.js';
import { codeAt, isAsciiAlphanumeric, isWordCode } from './text-boundaries.js';

// ---------------------------------------------------------------------------------------------
// Private key blocks

const KEY_HEADER = /-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----/iy;
const KEY_FOOTER = /-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-{2,5}/iy;
/** The largest PEM block in use (an 8192-bit RSA key) is under 7,000 characters. */
const MAX_KEY_BLOCK_LENGTH = 16_384;
/**
 * The smallest real private key body (an Ed25519 key in PKCS#8) is 64 base64 characters;
 * documentation placeholders ("...", "xxx", a short base64 word) are shorter.
 */
const MIN_KEY_BODY_BASE64 = 64;

function keyBodyIsReal(body: string): boolean {
  const base64 = body
    .replace(/\\[nrt]/g, ' ')
    .replace(/^(?:Proc-Type|DEK-Info|Comment|Version):.*$/gim, ' ')
    .replace(/[^A-Za-z0-9+/=]/g, '');
  return base64.length >= MIN_KEY_BODY_BASE64 && shannonEntropy(base64) >= 4.0;
}

/** Base64 of "-----BEGIN": a PEM block stored base64-encoded (Kubernetes secrets, env files). */
const ENCODED_PEM_PREFIX = 'LS0tLS1CRUdJTi';
/** Base64 characters after the prefix that make an encoded block worth decoding. */
const MIN_ENCODED_PEM_BODY = 60;
/** Only the start is decoded: enough for the header line ("-----BEGIN ... PRIVATE KEY"). */
const ENCODED_PEM_HEADER_CHARACTERS = 80;
const BASE64_RUN = /[A-Za-z0-9+/]*/y;
const BASE64_PADDING = /={0,2}/y;

function detectEncodedPrivateKeys(context: DetectorContext<'secret.private_key'>): void {
  const { text, scan } = context;
  // Every prefix inside one base64 run ends where the run ends. Reading the run again for each
  // (a greedy pattern per prefix) made "LS0tLS1CRUdJTi/" repeated quadratic, so each run is
  // read once and its end reused by the prefixes inside it.
  let runEnd = -1;
  for (const position of context.positions(ENCODED_PEM_PREFIX)) {
    if (isAsciiAlphanumeric(codeAt(text, position - 1))) continue;
    if (position >= runEnd) {
      BASE64_RUN.lastIndex = position;
      BASE64_RUN.exec(text);
      runEnd = BASE64_RUN.lastIndex;
    }
    if (runEnd - position < ENCODED_PEM_PREFIX.length + MIN_ENCODED_PEM_BODY) continue;
    BASE64_PADDING.lastIndex = runEnd;
    BASE64_PADDING.exec(text);
    const end = BASE64_PADDING.lastIndex;
    const header = Buffer.from(text.slice(position, Math.min(end, position + ENCODED_PEM_HEADER_CHARACTERS)), 'base64').toString('latin1');
    if (!/^-----BEGIN[ A-Z0-9]*PRIVATE KEY/.test(header)) continue;
    scan.emit('secret.private_key', position, end);
  }
}

/**
 * Finds footers for headers met in text order with one forward sweep, so a text of many headers
 * reads each character a bounded number of times (a per-header search of the next 16 KB was
 * slow on a megabyte of repeated headers; figures in bench/sanitiser-bench-notes.md). Every
 * footer starts with five dashes, which are rare: the sticky pattern is tried only where indexOf
 * finds them.
 */
function footerFinder(text: string): (from: number) => { index: number; length: number } | null {
  let found: { index: number; length: number } | null = null;
  let searchedUntil = 0;
  return (from) => {
    if (found !== null && found.index >= from) return found;
    found = null;
    let dashes = text.indexOf('-----', Math.max(from, searchedUntil));
    for (; dashes !== -1; dashes = text.indexOf('-----', dashes + 1)) {
      KEY_FOOTER.lastIndex = dashes;
      const footer = KEY_FOOTER.exec(text);
      if (footer !== null) {
        found = { index: dashes, length: footer[0].length };
        break;
      }
    }
    searchedUntil = dashes === -1 ? text.length : dashes;
    return found;
  };
}

/**
 * The body of a truncated block (a snippet, a log line): it runs while it looks like base64,
 * including escaped newlines, string concatenation and the header lines of an encrypted or PGP
 * key (`Proc-Type: 4,ENCRYPTED`, `DEK-Info: ...`, `Version: ...`; tried first, as their letters
 * are base64 too).
 */
const TRUNCATED_BODY = /^(?:(?:Proc-Type|DEK-Info|Comment|Version):[^\n\\]*|[A-Za-z0-9+/=\s]|\\[nrt]|["'],?\s*\+?\s*["']?)*/;

/**
 * A PuTTY key file (`.ppk`, versions 2 and 3) names its private part's length in lines:
 * `Private-Lines: N`, then N base64 lines, then `Private-MAC: <hex>`. The public lines and the
 * key-derivation fields come first. Lines may be real or JSON-escaped (`\n`) line breaks.
 */
const PPK_HEADER = 'PuTTY-User-Key-File-';
const PPK_PRIVATE_LINES = /(?:^|\\n)Private-Lines:[ \t]*(\d{1,3})[ \t]*(?:\r?\n|(?:\\r)?\\n)/m;
const PPK_LINE = /[A-Za-z0-9+/=]+(?:\r?\n|(?:\\r)?\\n|$)/y;
const PPK_MAC = /Private-MAC:[ \t]*[0-9a-fA-F]+/y;
/** The smallest private part (an Ed25519 key: a length and 32 bytes) is 48 base64 characters. */
const MIN_PPK_PRIVATE_BASE64 = 44;
/** A PuTTY file of an 8192-bit RSA key is under 12,000 characters. */
const MAX_PPK_LENGTH = 16_384;

function detectPuttyKeys(context: DetectorContext<'secret.private_key'>): void {
  const { text, scan } = context;
  let coveredUntil = -1;
  for (const position of context.positions(PPK_HEADER)) {
    if (position < coveredUntil) continue;
    const window = text.slice(position, position + MAX_PPK_LENGTH);
    const privateLines = PPK_PRIVATE_LINES.exec(window);
    if (privateLines === null) continue;
    let end = position + privateLines.index + privateLines[0].length;
    let body = '';
    for (let line = Number(privateLines[1]); line > 0; line -= 1) {
      PPK_LINE.lastIndex = end;
      const match = PPK_LINE.exec(text);
      if (match === null) break;
      body += match[0];
      end += match[0].length;
    }
    PPK_MAC.lastIndex = end;
    if (PPK_MAC.exec(text) !== null) end = PPK_MAC.lastIndex;
    const base64 = body.replace(/\\r|\\n|\s/g, '');
    if (base64.length < MIN_PPK_PRIVATE_BASE64 || shannonEntropy(base64) < 4.0) continue;
    scan.emit('secret.private_key', position, position + text.slice(position, end).trimEnd().length);
    coveredUntil = end;
  }
}

function detectPrivateKeys(context: DetectorContext<'secret.private_key'>): void {
  const { text, scan } = context;
  detectEncodedPrivateKeys(context);
  detectPuttyKeys(context);
  const headers = context.positions('-----BEGIN');
  const footerFrom = footerFinder(text);
  let coveredUntil = -1;
  for (let index = 0; index < headers.length; index += 1) {
    const position = headers[index] ?? 0;
    if (position < coveredUntil) continue;
    KEY_HEADER.lastIndex = position;
    const header = KEY_HEADER.exec(text);
    if (header === null) continue;
    const bodyStart = position + header[0].length;
    // A block ends at its footer. A body never holds another block's header, so a footer after
    // the next header (or too far away) belongs to another block, and this one is truncated.
    const nextHeader = headers[index + 1] ?? text.length;
    const footer = footerFrom(bodyStart);
    let end: number;
    let body: string;
    if (footer !== null && footer.index < nextHeader && footer.index + footer.length <= bodyStart + MAX_KEY_BLOCK_LENGTH) {
      body = text.slice(bodyStart, footer.index);
      end = footer.index + footer.length;
    } else {
      const run = TRUNCATED_BODY.exec(text.slice(bodyStart, Math.min(nextHeader, bodyStart + MAX_KEY_BLOCK_LENGTH)));
      body = run === null ? '' : run[0];
      end = bodyStart + body.trimEnd().length;
    }
    if (!keyBodyIsReal(body)) continue;
    scan.emit('secret.private_key', position, end);
    coveredUntil = end;
  }
}

export const privateKeyDetector = defineDetector({
  name: 'private-keys',
  ruleIds: ['secret.private_key'],
  keywords: ['-----BEGIN'],
  caseSensitiveKeywords: [ENCODED_PEM_PREFIX, PPK_HEADER],
  detect: detectPrivateKeys,
});

// ---------------------------------------------------------------------------------------------
// JSON Web Tokens

/** header.payload.signature, or header.payload alone when the payload is JSON too (unsigned or cut). */
const JWT_PATTERN = /eyJ[A-Za-z0-9_-]{10,}\.(?:[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*|eyJ[A-Za-z0-9_-]{10,})/y;

function headerIsJwt(encodedHeader: string): boolean {
  try {
    const header: unknown = JSON.parse(Buffer.from(encodedHeader, 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && ('alg' in header || 'typ' in header || 'enc' in header);
  } catch {
    return false;
  }
}

function detectJwts(context: DetectorContext<'secret.jwt'>): void {
  const { text, scan } = context;
  let coveredUntil = -1;
  for (const position of context.positions('eyJ')) {
    if (position < coveredUntil) continue;
    const previous = codeAt(text, position - 1);
    if (isWordCode(previous) || previous === 45) continue;
    JWT_PATTERN.lastIndex = position;
    const match = JWT_PATTERN.exec(text);
    if (match === null) continue;
    const token = match[0];
    if (!headerIsJwt(token.slice(0, token.indexOf('.')))) continue;
    scan.emit('secret.jwt', position, position + token.length);
    coveredUntil = position + token.length;
  }
}

export const jwtDetector = defineDetector({
  name: 'jwt',
  ruleIds: ['secret.jwt'],
  caseSensitiveKeywords: ['eyJ'],
  detect: detectJwts,
});

// ---------------------------------------------------------------------------------------------
// Password hashes in crypt(3) and related formats

const HASH_PATTERNS: readonly RegExp[] = [
  /\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}/y, // bcrypt
  /\$(?:1|apr1)\$[./A-Za-z0-9]{0,8}\$[./A-Za-z0-9]{22}/y, // md5-crypt
  /\$[56]\$(?:rounds=\d+\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{43,86}/y, // sha256/512-crypt
  /\$y\$[./A-Za-z0-9]+\$[./A-Za-z0-9]+\$[./A-Za-z0-9]{43}/y, // yescrypt
  /\$[789]\$[./A-Za-z0-9]{14}\$[./A-Za-z0-9]{43}/y, // scrypt (Cisco type 8/9 and friends)
  /\$argon2(?:id|i|d)\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]{20,}/y,
  /\$krb5(?:asrep|tgs|pa)\$[^\s$]*\$[^\s]{32,}/y, // Kerberos AS-REP / TGS roastable hashes
];

const HASH_PREFIXES = ['$2a$', '$2b$', '$2x$', '$2y$', '$2$', '$1$', '$apr1$', '$5$', '$6$', '$y$', '$7$', '$8$', '$9$', '$argon2', '$krb5'];

function detectPasswordHashes(context: DetectorContext<'secret.password_hash'>): void {
  const { text, scan } = context;
  for (const prefix of HASH_PREFIXES) {
    for (const position of context.positions(prefix)) {
      for (const pattern of HASH_PATTERNS) {
        pattern.lastIndex = position;
        const match = pattern.exec(text);
        if (match === null) continue;
        scan.emit('secret.password_hash', position, position + match[0].length);
        break;
      }
    }
  }
}

export const passwordHashDetector = defineDetector({
  name: 'password-hashes',
  ruleIds: ['secret.password_hash'],
  caseSensitiveKeywords: HASH_PREFIXES,
  detect: detectPasswordHashes,
});

// ---------------------------------------------------------------------------------------------
// 0x-prefixed 256-bit private keys (Ethereum and other secp256k1 wallets)

const HEX_KEY_PATTERN = /0x([0-9a-fA-F]{64})(?![0-9A-Za-z])/y;
const SECP256K1_ORDER = BigInt('0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141');
/** How far around the value the context words are looked for. */
const HEX_KEY_CONTEXT_CHARACTERS = 120;
/**
 * The same shape is a transaction or block hash; only words about keys and wallets nearby make
 * it a key, and hash words right before it veto that.
 */
const KEY_CONTEXT = /priv|secret|wallet|mnemonic|signing|\bkey\b|seed/i;
const HASH_CONTEXT = /(?:tx|txid|hash|transaction|block|digest|commit|sha\d*)\W{0,3}$/i;

function detectHexKeys(context: DetectorContext<'secret.hex_private_key'>): void {
  const { text, scan } = context;
  for (const position of context.positions('0x')) {
    if (isAsciiAlphanumeric(codeAt(text, position - 1))) continue;
    HEX_KEY_PATTERN.lastIndex = position;
    const match = HEX_KEY_PATTERN.exec(text);
    const hex = match?.[1];
    if (match === null || hex === undefined) continue;
    const scalar = BigInt(`0x${hex}`);
    if (scalar === 0n || scalar >= SECP256K1_ORDER) continue;
    const end = position + match[0].length;
    const before = text.slice(Math.max(0, position - HEX_KEY_CONTEXT_CHARACTERS), position);
    const after = text.slice(end, end + HEX_KEY_CONTEXT_CHARACTERS);
    if (HASH_CONTEXT.test(before.slice(-24)) || !KEY_CONTEXT.test(`${before} ${after}`)) continue;
    scan.emit('secret.hex_private_key', position, end);
  }
}

export const hexPrivateKeyDetector = defineDetector({
  name: 'hex-private-keys',
  ruleIds: ['secret.hex_private_key'],
  caseSensitiveKeywords: ['0x'],
  detect: detectHexKeys,
});
