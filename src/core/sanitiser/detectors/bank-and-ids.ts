/**
 * IBANs, IPv6 addresses and alphanumeric national ids (Spanish DNI/NIE, Italian codice fiscale).
 * Each has its own prefilter pattern, so the text is scanned for them only when the shape occurs.
 */
import { isIPv6 } from 'node:net';
import { defineDetector, type DetectorContext } from '../detector.js';
import { IBAN_LENGTHS, isValidItalianFiscalCode, isValidSpanishId, passesIbanChecksum } from '../validators.js';
import { codeAt, isAsciiAlphanumeric } from './text-boundaries.js';

// ---------------------------------------------------------------------------------------------
// IBAN

const IBAN_COUNTRIES = Object.keys(IBAN_LENGTHS).join('|');
/** Country code, check digits, then BBAN characters optionally grouped by single spaces or dashes. */
const IBAN_CANDIDATE = new RegExp(`(?:${IBAN_COUNTRIES})\\d{2}(?:[ -]?[A-Za-z0-9]){11,32}`, 'iy');
/** Context-free (see prefilter.ts): the boundary before the country code is a consumed character. */
const IBAN_TRIGGER = `(?:^|[^A-Za-z0-9])(?:${IBAN_COUNTRIES})\\d\\d[ -]?[A-Za-z0-9]{4}`;

/** Trigger matches may start with the consumed boundary character before the country code. */
function candidateStarts(text: string, positions: readonly number[]): number[] {
  return positions.map((position) => (isAsciiAlphanumeric(codeAt(text, position)) ? position : position + 1));
}

function detectIbans(context: DetectorContext<'pii.iban'>): void {
  const { text, scan } = context;
  for (const start of candidateStarts(text, context.patternPositions(IBAN_TRIGGER))) {
    if (isAsciiAlphanumeric(codeAt(text, start - 1))) continue;
    IBAN_CANDIDATE.lastIndex = start;
    const match = IBAN_CANDIDATE.exec(text);
    if (match === null) continue;
    const candidate = match[0];
    const expectedLength = IBAN_LENGTHS[candidate.slice(0, 2).toUpperCase()];
    if (expectedLength === undefined) continue;
    // The candidate may run into the next word ("GB82WEST12345698765432 is"): take exactly the
    // country's length of alphanumerics and require a word boundary after them.
    let compact = '';
    let index = 0;
    while (index < candidate.length && compact.length < expectedLength) {
      const character = candidate[index] ?? '';
      if (character !== ' ' && character !== '-') compact += character;
      index += 1;
    }
    if (compact.length !== expectedLength || isAsciiAlphanumeric(codeAt(text, start + index))) continue;
    if (!passesIbanChecksum(compact.toUpperCase())) continue;
    scan.emit('pii.iban', start, start + index);
  }
}

export const ibanDetector = defineDetector({
  name: 'iban',
  ruleIds: ['pii.iban'],
  patternTriggers: [IBAN_TRIGGER],
  detect: detectIbans,
});

// ---------------------------------------------------------------------------------------------
// IPv6

/**
 * At least four groups, or a "::" with a group on each side: timestamps (10:30:45) and C++
 * scopes (std::map) do not trigger the scan.
 */
const IPV6_TRIGGER = '[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4}){3,7}|[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4})*::[0-9A-Fa-f]{1,4}|::ffff:\\d';
/** `::ffff:203.0.113.7`: an IPv4 address as an IPv6 socket reports it (RFC 4291 2.5.5.2). */
const IPV4_MAPPED = /^::ffff:(\d{1,3})\.\d{1,3}\.\d{1,3}\.\d{1,3}$/i;
/** The longest IPv6 text form (with an embedded IPv4 address) is 45 characters. */
const MAX_IPV6_LENGTH = 45;

function isIpv6Code(code: number): boolean {
  return (code >= 48 && code <= 58) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102) || code === 46;
}

function detectIpv6(context: DetectorContext<'pii.ip_address'>): void {
  const { text, scan } = context;
  // Expand around each colon to the maximal run of hex digits, colons and dots, once per run.
  let coveredUntil = -1;
  for (let colon = text.indexOf(':'); colon !== -1; colon = text.indexOf(':', Math.max(colon + 1, coveredUntil))) {
    let start = colon;
    while (start > 0 && colon - start <= MAX_IPV6_LENGTH && isIpv6Code(text.charCodeAt(start - 1))) start -= 1;
    let end = colon + 1;
    while (end < text.length && end - start <= MAX_IPV6_LENGTH && isIpv6Code(text.charCodeAt(end))) end += 1;
    coveredUntil = end;
    // Dots belong to an embedded IPv4 tail only; trailing sentence dots do not.
    while (end > start && text.charCodeAt(end - 1) === 46) end -= 1;
    if (end - start < 6 || end - start > MAX_IPV6_LENGTH) continue;
    if (isAsciiAlphanumeric(codeAt(text, start - 1)) || isAsciiAlphanumeric(codeAt(text, end))) continue;
    const candidate = text.slice(start, end);
    if (!isIPv6(candidate)) continue;
    // Unspecified and loopback addresses identify no one; fewer than three groups is more often code.
    const mapped = IPV4_MAPPED.exec(candidate);
    if (mapped !== null) {
      // The embedded address is judged as an IPv4 one: loopback and "this network" identify no one.
      const firstOctet = Number(mapped[1]);
      if (firstOctet !== 127 && firstOctet !== 0) scan.emit('pii.ip_address', start, end);
      continue;
    }
    const groups = candidate.split(':').filter((group) => group.length > 0);
    if (groups.length < 3 || /^[0:]*1?$/.test(candidate)) continue;
    scan.emit('pii.ip_address', start, end);
  }
}

export const ipv6Detector = defineDetector({
  name: 'ipv6',
  ruleIds: ['pii.ip_address'],
  patternTriggers: [IPV6_TRIGGER],
  detect: detectIpv6,
});

// ---------------------------------------------------------------------------------------------
// Spanish DNI/NIE and Italian codice fiscale

const SPANISH_ID = /[XYZxyz]?\d{7,8}[- ]?[A-Za-z](?![A-Za-z0-9])/y;
/**
 * Triggers end at the id's last character: a trigger that consumed the boundary after it would
 * hide a trigger starting there, as the prefilter reports matches that do not overlap
 * (regression: an IBAN or a DNI right after a code was missed). The detectors check the boundary.
 */
const SPANISH_ID_TRIGGER = '(?:^|[^A-Za-z0-9])[XYZxyz]?\\d{7}\\d?[- ]?[A-Za-z]';
const ITALIAN_FISCAL_CODE =
  /[A-Za-z]{6}[0-9LMNPQRSTUVlmnpqrstuv]{2}[A-Za-z][0-9LMNPQRSTUVlmnpqrstuv]{2}[A-Za-z][0-9LMNPQRSTUVlmnpqrstuv]{3}[A-Za-z](?![A-Za-z0-9])/y;
/**
 * The code after its six surname and name letters: a trigger that starts with six letters keeps
 * the prefilter's automaton tracking every word of prose (a cost per MiB of prose measured in
 * bench/sanitiser-bench-notes.md), one that starts with two digits rarely leaves its start state.
 */
const ITALIAN_FISCAL_CODE_TRIGGER = '\\d\\d[A-Za-z]\\d\\d[A-Za-z]\\d{3}[A-Za-z]';
const ITALIAN_NAME_LETTERS = 6;

const ALPHANUMERIC_ID_RULE_IDS = ['pii.es_dni', 'pii.it_fiscal_code'] as const;

function detectAlphanumericIds(context: DetectorContext<(typeof ALPHANUMERIC_ID_RULE_IDS)[number]>): void {
  const { text, scan } = context;
  const kinds = [
    {
      starts: candidateStarts(text, context.patternPositions(SPANISH_ID_TRIGGER)),
      pattern: SPANISH_ID,
      ruleId: 'pii.es_dni',
      valid: (value: string) => isValidSpanishId(value.replace(/[- ]/g, '').toUpperCase()),
    },
    {
      starts: context
        .patternPositions(ITALIAN_FISCAL_CODE_TRIGGER)
        .map((position) => position - ITALIAN_NAME_LETTERS)
        .filter((start) => start >= 0 && !isAsciiAlphanumeric(codeAt(text, start - 1))),
      pattern: ITALIAN_FISCAL_CODE,
      ruleId: 'pii.it_fiscal_code',
      valid: (value: string) => isValidItalianFiscalCode(value.toUpperCase()),
    },
  ] as const;
  for (const kind of kinds) {
    for (const start of kind.starts) {
      kind.pattern.lastIndex = start;
      const match = kind.pattern.exec(text);
      if (match !== null && kind.valid(match[0])) scan.emit(kind.ruleId, start, start + match[0].length);
    }
  }
}

export const alphanumericIdDetector = defineDetector({
  name: 'alphanumeric-ids',
  ruleIds: ALPHANUMERIC_ID_RULE_IDS,
  patternTriggers: [SPANISH_ID_TRIGGER, ITALIAN_FISCAL_CODE_TRIGGER],
  detect: detectAlphanumericIds,
});
