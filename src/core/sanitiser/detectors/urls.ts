/**
 * URLs, anchored on "://": plain URLs (info), URLs with credentials in their userinfo, and
 * webhook URLs whose path is itself the secret (Slack, Teams, Discord).
 */
import { defineDetector, type DetectorContext } from '../detector.js';
import { characterClassCount, isPlaceholderValue, shannonEntropy } from '../validators.js';
import { isTemplateOrVariable } from './credential-values.js';
import { codeAt, isAsciiAlphanumeric, isAsciiLetter } from './text-boundaries.js';

/** Long enough for any real URL; bounds the forward scan from one "://". */
const MAX_URL_LENGTH = 4096;
const MAX_SCHEME_LENGTH = 32;
/** A password in a URL shorter than this is an example ("user:abc@"). */
const MIN_URL_PASSWORD_LENGTH = 4;

function isSchemeCode(code: number): boolean {
  return isAsciiAlphanumeric(code) || code === 43 || code === 45 || code === 46;
}

/** Characters that end a URL in running text, markup and code. */
function endsUrl(code: number): boolean {
  return (
    code <= 32 ||
    code === 34 ||
    code === 39 ||
    code === 60 ||
    code === 62 ||
    code === 96 ||
    code === 92 ||
    code === 123 ||
    code === 125 ||
    code === 124 ||
    code === 94 ||
    code === 127
  );
}

/**
 * Per position, the count of "(" less ")" (and of "[" less "]") before it, so the balance of any
 * slice is one subtraction. Counting inside each candidate URL instead read up to MAX_URL_LENGTH
 * characters per trailing bracket, and crafted text has a "://" every few characters.
 */
interface BracketBalances {
  readonly round: Int32Array;
  readonly square: Int32Array;
}

function bracketBalances(text: string): BracketBalances {
  const round = new Int32Array(text.length + 1);
  const square = new Int32Array(text.length + 1);
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    round[index + 1] = (round[index] ?? 0) + (code === 40 ? 1 : code === 41 ? -1 : 0);
    square[index + 1] = (square[index] ?? 0) + (code === 91 ? 1 : code === 93 ? -1 : 0);
  }
  return { round, square };
}

/** Candidates up to this long count their brackets directly: real URLs, and no table to build. */
const DIRECT_COUNT_MAX_LENGTH = 256;

/** Opening less closing brackets of the kind `close` (")" or "]") in text[start, end). */
function bracketBalance(text: string, start: number, end: number, close: number, balances: () => BracketBalances): number {
  if (end - start > DIRECT_COUNT_MAX_LENGTH) {
    const table = close === 41 ? balances().round : balances().square;
    return (table[end] ?? 0) - (table[start] ?? 0);
  }
  const open = close === 41 ? 40 : 91;
  let balance = 0;
  for (let index = start; index < end; index += 1) {
    const code = text.charCodeAt(index);
    if (code === open) balance += 1;
    else if (code === close) balance -= 1;
  }
  return balance;
}

function trimUrlEnd(text: string, start: number, end: number, balances: () => BracketBalances): number {
  let trimmed = end;
  // Each kind's balance is counted once, then kept up to date as closing brackets are dropped.
  let round: number | undefined;
  let square: number | undefined;
  for (;;) {
    const last = text.charCodeAt(trimmed - 1);
    // Sentence punctuation after a URL is not part of it.
    if (last === 46 || last === 44 || last === 59 || last === 58 || last === 33 || last === 63 || last === 42) {
      trimmed -= 1;
      continue;
    }
    // A closing bracket belongs to the URL only when the URL opened it (Wikipedia-style links):
    // it is dropped while the URL closes more brackets of its kind than it opens.
    if (last === 41) {
      round ??= bracketBalance(text, start, trimmed, last, balances);
      if (round < 0) {
        round += 1;
        trimmed -= 1;
        continue;
      }
    }
    if (last === 93) {
      square ??= bracketBalance(text, start, trimmed, last, balances);
      if (square < 0) {
        square += 1;
        trimmed -= 1;
        continue;
      }
    }
    return trimmed;
  }
}

/**
 * Where a URL starting at `from` ends: the first character that ends URLs at or after it (or the
 * text's end). The "://" are visited in order, and the answer for one holds for every later one
 * before it, so the text is read once instead of up to MAX_URL_LENGTH characters per "://".
 */
function urlEndFinder(text: string): (from: number) => number {
  let searchedFrom = -1;
  let found = -1;
  return (from) => {
    if (from >= searchedFrom && from <= found) return found;
    let index = from;
    while (index < text.length && !endsUrl(text.charCodeAt(index))) index += 1;
    searchedFrom = from;
    found = index;
    return index;
  };
}

const WEBHOOK_PATTERNS: readonly RegExp[] = [
  /^https?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{8,}/i,
  /^https?:\/\/[a-z0-9-]+\.webhook\.office\.com\/webhookb2\/[A-Za-z0-9@/-]{20,}/i,
  /^https?:\/\/outlook\.office(?:365)?\.com\/webhook\/[A-Za-z0-9@/-]{20,}/i,
  /^https?:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]{20,}/i,
];

/** A username that is itself a token (https://<token>@github.com, <token>:x-oauth-basic@). */
function isTokenLikeUser(user: string): boolean {
  return user.length >= 20 && /^[A-Za-z0-9_.-]+$/.test(user) && characterClassCount(user) >= 2 && shannonEntropy(user) >= 3.0;
}

function userinfoIsCredential(userinfo: string): boolean {
  const colon = userinfo.indexOf(':');
  const user = colon === -1 ? userinfo : userinfo.slice(0, colon);
  const password = colon === -1 ? '' : userinfo.slice(colon + 1);
  if (isTokenLikeUser(user) && !isTemplateOrVariable(user)) return true;
  if (password.length < MIN_URL_PASSWORD_LENGTH) return false;
  if (password.toLowerCase() === user.toLowerCase()) return false; // mysql:mysql@, postgres:postgres@
  return !isPlaceholderValue(password) && !isTemplateOrVariable(password);
}

/** The longest user name and password read past the characters that end a URL. */
const MAX_LOOSE_USER_LENGTH = 128;
const MAX_LOOSE_PASSWORD_LENGTH = 256;

/** Characters of a user name in a URL pasted unencoded: letters, digits, `.`, `_`, `-`, `%`, `+`, `~`. */
function isLooseUserCode(code: number): boolean {
  return isAsciiAlphanumeric(code) || code === 46 || code === 95 || code === 45 || code === 37 || code === 43 || code === 126;
}

/** The quote (or `>` for `<`) that closes a URL opened right after `before`; NaN when none does. */
function closingQuoteOf(before: number): number {
  if (before === 34 || before === 39 || before === 96) return before;
  return before === 60 ? 62 : Number.NaN;
}

/**
 * The `@` ending a `user:password` whose password holds characters that end a URL or its
 * authority elsewhere (`#`, `^`, `'`, `{`, `}`, `|`, backtick, `<`, `>`): people paste passwords
 * unencoded into .env files, compose files and shell history, and the strict reading stopped at
 * `#` or `{` and left the password's first part in clear. Blanks, `/`, `?`, `\`, `"` and the
 * URL's own closing quote still end it. -1 when there is no such userinfo.
 */
function looseUserinfoAt(text: string, hostStart: number, closer: number): number {
  let index = hostStart;
  while (index < text.length && index - hostStart < MAX_LOOSE_USER_LENGTH && isLooseUserCode(text.charCodeAt(index))) index += 1;
  // The user may be empty: Redis URLs carry only a password (`redis://:secret@cache:6379`).
  if (text.charCodeAt(index) !== 58) return -1;
  const passwordStart = index + 1;
  const limit = Math.min(text.length, passwordStart + MAX_LOOSE_PASSWORD_LENGTH);
  let at = -1;
  for (index = passwordStart; index < limit; index += 1) {
    const code = text.charCodeAt(index);
    if (code <= 32 || code === 47 || code === 63 || code === 92 || code === 34 || code === closer || code === 127) break;
    if (code === 64) at = index;
  }
  if (at === -1) return -1;
  const hostCode = codeAt(text, at + 1);
  return isAsciiAlphanumeric(hostCode) || hostCode === 91 ? at : -1;
}

/**
 * The end of a URL whose userinfo only the loose reading finds (looseUserinfoAt) and holds a
 * credential, read from the `@` on as every URL is; -1 otherwise.
 */
function looseCredentialsEnd(text: string, start: number, hostStart: number, urlEnd: (from: number) => number, balances: () => BracketBalances): number {
  const at = looseUserinfoAt(text, hostStart, closingQuoteOf(codeAt(text, start - 1)));
  if (at === -1 || !userinfoIsCredential(text.slice(hostStart, at))) return -1;
  const end = trimUrlEnd(text, start, Math.min(urlEnd(at + 1), at + 1 + MAX_URL_LENGTH), balances);
  return end > at + 1 ? end : -1;
}

const URL_RULE_IDS = ['pii.url', 'secret.url_credentials', 'secret.webhook_url'] as const;

function detectUrls(context: DetectorContext<(typeof URL_RULE_IDS)[number]>): void {
  const { text, scan } = context;
  let coveredUntil = -1;
  const urlEnd = urlEndFinder(text);
  let balances: BracketBalances | undefined;
  const balancesOfText = (): BracketBalances => (balances ??= bracketBalances(text));
  for (const separator of context.positions('://')) {
    if (separator < coveredUntil) continue;
    let start = separator;
    while (start > 0 && separator - start < MAX_SCHEME_LENGTH && isSchemeCode(text.charCodeAt(start - 1))) start -= 1;
    while (start < separator && !isAsciiLetter(text.charCodeAt(start))) start += 1;
    if (start === separator) continue;
    const hostStart = separator + 3;
    const end = trimUrlEnd(text, start, Math.min(urlEnd(hostStart), hostStart + MAX_URL_LENGTH), balancesOfText);
    if (end <= hostStart) continue;
    const url = text.slice(start, end);
    const afterScheme = url.slice(separator + 3 - start);
    let authorityEnd = afterScheme.search(/[/?#]/);
    if (authorityEnd === -1) authorityEnd = afterScheme.length;
    const authority = afterScheme.slice(0, authorityEnd);
    const at = authority.lastIndexOf('@');
    const looseEnd = at === -1 ? looseCredentialsEnd(text, start, hostStart, urlEnd, balancesOfText) : -1;
    if (looseEnd !== -1) {
      coveredUntil = looseEnd;
      scan.emit('secret.url_credentials', start, looseEnd);
      continue;
    }
    const host = at === -1 ? authority : authority.slice(at + 1);
    if (host.length === 0 || (!isAsciiAlphanumeric(codeAt(host, 0)) && !host.startsWith('['))) continue;
    coveredUntil = end;
    if (WEBHOOK_PATTERNS.some((pattern) => pattern.test(url))) {
      scan.emit('secret.webhook_url', start, end);
      continue;
    }
    if (at !== -1 && userinfoIsCredential(authority.slice(0, at))) {
      scan.emit('secret.url_credentials', start, end);
      continue;
    }
    scan.emit('pii.url', start, end);
  }
}

export const urlDetector = defineDetector({
  name: 'urls',
  ruleIds: URL_RULE_IDS,
  keywords: ['://'],
  detect: detectUrls,
});
