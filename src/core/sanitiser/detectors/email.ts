/**
 * Email addresses, anchored on '@': the local part is read backwards, the domain forwards, so the
 * cost is proportional to the number of '@' characters, not to the text length.
 */
import { defineDetector, type DetectorContext } from '../detector.js';
import { codeAt, isAsciiAlphanumeric, isAsciiLetter } from './text-boundaries.js';

/** RFC 5321 limits. */
const MAX_LOCAL_PART_LENGTH = 64;
const MAX_DOMAIN_LENGTH = 253;

/**
 * File extensions that are not top-level domains but follow '@' in code and asset names
 * (`logo@2x.png`, `pkg@1.0.0.tgz`). Extensions that are real TLDs (.py, .sh, .zip) stay valid.
 */
const NON_TLD_EXTENSIONS: ReadonlySet<string> = new Set([
  'png',
  'jpg',
  'jpeg',
  'gif',
  'svg',
  'webp',
  'bmp',
  'ico',
  'tif',
  'tiff',
  'js',
  'mjs',
  'cjs',
  'ts',
  'tsx',
  'jsx',
  'css',
  'scss',
  'less',
  'json',
  'yaml',
  'yml',
  'html',
  'htm',
  'txt',
  'lock',
  'xml',
  'map',
  'vue',
  'woff',
  'woff2',
  'ttf',
  'otf',
  'eot',
  'pdf',
  'mp3',
  'mp4',
  'wav',
  'ogg',
  'webm',
  'tgz',
  'gz',
  'bz2',
  'exe',
  'dll',
  'jar',
  'class',
  'java',
  'kt',
  'rb',
  'php',
  'cpp',
  'hpp',
  'cs',
  'swift',
  'toml',
  'ini',
  'cfg',
  'conf',
  'env',
  'csv',
  'tsv',
  'sql',
  'wasm',
  'node',
  'apk',
  'dmg',
  'iso',
  'img',
  'bin',
  'dat',
  'tmp',
  'bak',
  'old',
]);

/** A letter outside ASCII (RFC 6531 addresses: `jürgen@`, `张伟@例子.中国`); marks count with their letter. */
function isNonAsciiLetter(code: number): boolean {
  return code >= 0x80 && /[\p{L}\p{M}]/u.test(String.fromCharCode(code));
}

function isLocalPartCode(code: number): boolean {
  // Letters, digits and . _ % + - (the characters used in practice; quoted local parts are rare).
  return isAsciiAlphanumeric(code) || code === 46 || code === 95 || code === 37 || code === 43 || code === 45 || isNonAsciiLetter(code);
}

function isDomainCode(code: number): boolean {
  return isAsciiAlphanumeric(code) || code === 45 || code === 46 || isNonAsciiLetter(code);
}

/**
 * Mail headers whose angle-bracketed values are message ids in address syntax
 * (`Message-ID: <CAKx...@mail.gmail.com>`), not anyone's mailbox.
 */
/**
 * A header naming message ids, also indented (`git log` output), quoted (`> `) or in a roff
 * comment (`.\\" Message-ID:`) (regression: such ids were reported as addresses).
 */
const MESSAGE_ID_HEADER = /^(?:[ \t>]*|\.\\"[ \t]*)(?:message-id|in-reply-to|references|content-id|resent-message-id|x-[\w-]*id)[ \t]*:/i;
/** How far back the start of a header line is looked for (a References header lists many ids). */
const HEADER_LINE_CHARACTERS = 2_000;

/** Whether the `<` before `at` opens a message id of a Message-ID, In-Reply-To or References header. */
function isInMessageIdHeader(text: string, at: number): boolean {
  // Read back to the `<` on this line, at most HEADER_LINE_CHARACTERS: one address per '@' and a
  // bounded read keeps the detector linear in the text.
  const from = Math.max(0, at - HEADER_LINE_CHARACTERS);
  let open = at - 1;
  while (open >= from && text.charCodeAt(open) !== 60) {
    const code = text.charCodeAt(open);
    if (code === 62 || code === 10) return false;
    open -= 1;
  }
  if (open < from) return false;
  let lineStart = open;
  while (lineStart > from && text.charCodeAt(lineStart - 1) !== 10) lineStart -= 1;
  if (lineStart === from && from > 0 && text.charCodeAt(from - 1) !== 10) return false;
  return MESSAGE_ID_HEADER.test(text.slice(lineStart, open));
}

/** Returns the end of a valid domain starting at `start`, or -1. */
function readDomain(text: string, start: number): number {
  let end = start;
  while (end < text.length && end - start <= MAX_DOMAIN_LENGTH && isDomainCode(text.charCodeAt(end))) end += 1;
  // Trailing dots and hyphens belong to the sentence, not the domain.
  while (end > start && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 45)) end -= 1;
  const domain = text.slice(start, end);
  const labels = domain.split('.');
  if (labels.length < 2) return -1;
  for (const label of labels) {
    if (label.length === 0 || label.length > 63 || label.startsWith('-') || label.endsWith('-')) return -1;
  }
  const topLevel = labels[labels.length - 1] ?? '';
  if (topLevel.length < 2 || topLevel.length > 24 || !/^(?:[A-Za-z]+|[\p{L}\p{M}]+)$/u.test(topLevel)) return -1;
  if (NON_TLD_EXTENSIONS.has(topLevel.toLowerCase())) return -1;
  return end;
}

function detectEmails(context: DetectorContext<'pii.email'>): void {
  const { text, scan } = context;
  let coveredUntil = -1;
  for (const at of context.positions('@')) {
    if (at < coveredUntil) continue;
    let start = at;
    while (start > 0 && at - start < MAX_LOCAL_PART_LENGTH && isLocalPartCode(text.charCodeAt(start - 1))) start -= 1;
    // Dots may not start the local part; the sentence's punctuation is not part of it.
    while (start < at && text.charCodeAt(start) === 46) start += 1;
    if (start === at || text.charCodeAt(at - 1) === 46) continue;
    if (isLocalPartCode(codeAt(text, start - 1))) continue; // longer than RFC allows: not an address
    // user:password@host and /path@x are URL parts; mailto:x@y is an address.
    const before = codeAt(text, start - 1);
    if (
      (before === 58 &&
        !text
          .slice(Math.max(0, start - 7), start)
          .toLowerCase()
          .endsWith('mailto:')) ||
      before === 47
    )
      continue;
    const end = readDomain(text, at + 1);
    if (end === -1) continue;
    const after = codeAt(text, end);
    // git@github.com:org/repo.git is an SSH remote, and x@host.com@... is not an address.
    if (after === 64 || (after === 58 && isAsciiLetter(codeAt(text, end + 1)))) continue;
    if (isInMessageIdHeader(text, at)) {
      coveredUntil = end;
      continue;
    }
    scan.emit('pii.email', start, end);
    coveredUntil = end;
  }
}

/** `%40`, an `@` percent-encoded: an address in a URL's query or path (`?email=jane.doe%40example.org`). */
const ENCODED_AT = '%40';
/** A local part's characters in a URL: `%2B` for `+` and the like, but no encoded delimiter (`%3D`, `%26`, `%2F`). */
const ENCODED_LOCAL_PART = /^(?:[A-Za-z0-9._+-]|%2[bBdDeE]|%5[fF])+$/;

/**
 * Addresses whose `@` is percent-encoded, as browsers and HTTP clients send a form's or a
 * link's address (regression: `GET /subscribe?email=jane.doe%40example.org` reported nothing).
 * The local part is read back to the parameter's `=`, a path's `/`, `?` or `&`, or a blank.
 */
function detectPercentEncodedEmails(context: DetectorContext<'pii.email'>): void {
  const { text, scan } = context;
  for (const at of context.positions(ENCODED_AT)) {
    let start = at;
    while (start > 0 && at - start < MAX_LOCAL_PART_LENGTH && isLocalPartCode(text.charCodeAt(start - 1))) start -= 1;
    while (start < at && text.charCodeAt(start) === 46) start += 1;
    if (start === at || text.charCodeAt(at - 1) === 46 || isLocalPartCode(codeAt(text, start - 1))) continue;
    if (!ENCODED_LOCAL_PART.test(text.slice(start, at))) continue;
    const end = readDomain(text, at + ENCODED_AT.length);
    if (end === -1) continue;
    scan.emit('pii.email', start, end);
  }
}

/** `[at]`, `(at)`, `{at}`: the spellings people use to hide an address from harvesters. */
const OBFUSCATED_AT = ['[at]', '(at)', '{at}'] as const;
const OBFUSCATED_LOCAL_PART = /([A-Za-z0-9._%+-]{1,64}) ?$/;
/** Labels joined by `.` or an obfuscated dot, ending in an alphabetic top-level domain. */
const OBFUSCATED_DOMAIN = /[A-Za-z0-9-]{1,63}(?:(?:\.| ?[[({]dot[\])}] ?)[A-Za-z0-9-]{1,63}){0,8}?(?:\.| ?[[({]dot[\])}] ?)[A-Za-z]{2,24}(?![A-Za-z0-9-])/iy;

function detectObfuscatedEmails(context: DetectorContext<'pii.email'>): void {
  const { text, scan } = context;
  for (const keyword of OBFUSCATED_AT) {
    for (const at of context.positions(keyword)) {
      const local = OBFUSCATED_LOCAL_PART.exec(text.slice(Math.max(0, at - MAX_LOCAL_PART_LENGTH - 1), at));
      if (local === null || local[1] === undefined || local[1].startsWith('.')) continue;
      const start = at - local[0].length;
      if (isLocalPartCode(codeAt(text, start - 1))) continue;
      let domainStart = at + keyword.length;
      if (codeAt(text, domainStart) === 32) domainStart += 1;
      OBFUSCATED_DOMAIN.lastIndex = domainStart;
      const domain = OBFUSCATED_DOMAIN.exec(text);
      if (domain === null) continue;
      scan.emit('pii.email', start, domainStart + domain[0].length);
    }
  }
}

export const emailDetector = defineDetector({
  name: 'email',
  ruleIds: ['pii.email'],
  keywords: ['@', ENCODED_AT, ...OBFUSCATED_AT],
  detect: (context) => {
    detectEmails(context);
    detectPercentEncodedEmails(context);
    detectObfuscatedEmails(context);
  },
});
