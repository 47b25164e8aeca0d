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

function trimUrlEnd(text: string, start: number, end: number): number {
  let trimmed = end;
  for (;;) {
    const last = text.charCodeAt(trimmed - 1);
    // Sentence punctuation after a URL is not part of it.
    if (last === 46 || last === 44 || last === 59 || last === 58 || last === 33 || last === 63 || last === 42) {
      trimmed -= 1;
      continue;
    }
    // A closing bracket belongs to the URL only when the URL opened it (Wikipedia-style links).
    if (last === 41 || last === 93) {
      const url = text.slice(start, trimmed);
      const open = last === 41 ? '(' : '[';
      const close = last === 41 ? ')' : ']';
      if (url.split(open).length < url.split(close).length) {
        trimmed -= 1;
        continue;
      }
    }
    return trimmed;
  }
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

const URL_RULE_IDS = ['pii.url', 'secret.url_credentials', 'secret.webhook_url'] as const;

function detectUrls(context: DetectorContext<(typeof URL_RULE_IDS)[number]>): void {
  const { text, scan } = context;
  let coveredUntil = -1;
  for (const separator of context.positions('://')) {
    if (separator < coveredUntil) continue;
    let start = separator;
    while (start > 0 && separator - start < MAX_SCHEME_LENGTH && isSchemeCode(text.charCodeAt(start - 1))) start -= 1;
    while (start < separator && !isAsciiLetter(text.charCodeAt(start))) start += 1;
    if (start === separator) continue;
    const hostStart = separator + 3;
    let end = hostStart;
    const limit = Math.min(text.length, hostStart + MAX_URL_LENGTH);
    while (end < limit && !endsUrl(text.charCodeAt(end))) end += 1;
    end = trimUrlEnd(text, start, end);
    if (end <= hostStart) continue;
    const url = text.slice(start, end);
    const afterScheme = url.slice(separator + 3 - start);
    let authorityEnd = afterScheme.search(/[/?#]/);
    if (authorityEnd === -1) authorityEnd = afterScheme.length;
    const authority = afterScheme.slice(0, authorityEnd);
    const at = authority.lastIndexOf('@');
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
