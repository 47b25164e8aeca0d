/**
 * National identifiers of countries whose formats are mostly digits (UK NINO, German IdNr,
 * French NIR, PESEL, personnummer, Chinese resident id, Singapore NRIC, T.C. Kimlik, South African
 * id, Belgian national number, Swiss AHV, HETU, fødselsnummer). The checksums and date rules come
 * from stdnum (koblas/stdnum-js), not from code of our own, except Singapore's NRIC, which
 * stdnum does not cover.
 *
 * A bare 11-digit number is as likely an order number as a PESEL, so most ids are reported only
 * after a label naming them ("PESEL:", "Steuer-ID", "personnummer", "national id"...). Formats
 * distinctive on their own (letters in fixed places, a country prefix, dotted groups) are also
 * found without one.
 */
import * as beNationalNumber from 'stdnum/lib/cjs/be/nn.js';
import * as chAhv from 'stdnum/lib/cjs/ch/ssn.js';
import * as cnResidentId from 'stdnum/lib/cjs/cn/ric.js';
import * as deTaxId from 'stdnum/lib/cjs/de/idnr.js';
import * as fiHetu from 'stdnum/lib/cjs/fi/hetu.js';
import * as frNir from 'stdnum/lib/cjs/fr/nir.js';
import * as gbNino from 'stdnum/lib/cjs/gb/nino.js';
import * as noFodselsnummer from 'stdnum/lib/cjs/no/fodselsnummer.js';
import * as plPesel from 'stdnum/lib/cjs/pl/pesel.js';
import * as sePersonnummer from 'stdnum/lib/cjs/se/personnummer.js';
import * as trTcKimlik from 'stdnum/lib/cjs/tr/tckimlik.js';
import * as zaId from 'stdnum/lib/cjs/za/idnr.js';
import { defineDetector, type DetectorContext } from '../detector.js';
import { DIGIT_SHAPES_PRESENT, digitRuns, NATIONAL_ID_HINT_SOURCE } from './digit-shapes.js';
import { codeAt, isAsciiAlphanumeric, isAsciiLetter } from './text-boundaries.js';

export const NATIONAL_ID_RULE_IDS = [
  'pii.uk_nino',
  'pii.de_tax_id',
  'pii.fr_nir',
  'pii.pl_pesel',
  'pii.se_personnummer',
  'pii.cn_resident_id',
  'pii.sg_nric',
  'pii.tr_tc_kimlik',
  'pii.za_id',
  'pii.be_national_number',
  'pii.ch_ahv',
  'pii.fi_hetu',
  'pii.no_fodselsnummer',
] as const;
export type NationalIdRuleId = (typeof NATIONAL_ID_RULE_IDS)[number];

const SINGAPORE_CHECK_LETTERS: Readonly<Record<string, string>> = { S: 'JZIHGFEDCBA', T: 'JZIHGFEDCBA', F: 'XWUTRQPNMLK', G: 'XWUTRQPNMLK' };
const SINGAPORE_WEIGHTS = [2, 7, 6, 5, 4, 3, 2] as const;

/** Singapore NRIC/FIN (S, T, F, G series): weighted sum of the seven digits, +4 for T and G, mod 11 picks the letter. */
export function isValidSingaporeNric(value: string): boolean {
  const upper = value.toUpperCase();
  const prefix = upper[0] ?? '';
  const letters = SINGAPORE_CHECK_LETTERS[prefix];
  if (letters === undefined || !/^[STFG]\d{7}[A-Z]$/.test(upper)) return false;
  let sum = prefix === 'T' || prefix === 'G' ? 4 : 0;
  for (let index = 0; index < 7; index += 1) sum += (SINGAPORE_WEIGHTS[index] ?? 0) * (upper.charCodeAt(index + 1) - 48);
  return letters[sum % 11] === upper[8];
}

interface Validator {
  validate(value: string): { isValid: boolean };
}

const stdnumCheck =
  (validator: Validator) =>
  (value: string): boolean =>
    validator.validate(value).isValid;

interface NationalIdKind {
  readonly ruleId: NationalIdRuleId;
  /** The id as written after a label (separators included), sticky and ending at a word boundary. */
  readonly shape: RegExp;
  readonly isValid: (value: string) => boolean;
}

const BOUNDARY = '(?![A-Za-z0-9])';

/** Every kind, most distinctive shape first: a generic label ("national id") tries them in this order. */
export const NATIONAL_ID_KINDS: readonly NationalIdKind[] = [
  { ruleId: 'pii.uk_nino', shape: new RegExp(`[A-Za-z]{2} ?\\d{2} ?\\d{2} ?\\d{2} ?[A-Da-d]${BOUNDARY}`, 'y'), isValid: stdnumCheck(gbNino) },
  { ruleId: 'pii.sg_nric', shape: new RegExp(`[STFGstfg]\\d{7}[A-Za-z]${BOUNDARY}`, 'y'), isValid: isValidSingaporeNric },
  { ruleId: 'pii.fi_hetu', shape: new RegExp(`\\d{6}[-+A-FU-Ya-fu-y]\\d{3}[0-9A-Ya-y]${BOUNDARY}`, 'y'), isValid: stdnumCheck(fiHetu) },
  { ruleId: 'pii.ch_ahv', shape: new RegExp(`756[. ]?\\d{4}[. ]?\\d{4}[. ]?\\d{2}${BOUNDARY}`, 'y'), isValid: stdnumCheck(chAhv) },
  { ruleId: 'pii.cn_resident_id', shape: new RegExp(`\\d{17}[\\dXx]${BOUNDARY}`, 'y'), isValid: stdnumCheck(cnResidentId) },
  {
    ruleId: 'pii.fr_nir',
    shape: new RegExp(`[12] ?\\d{2} ?\\d{2} ?(?:\\d{2}|2[ABab]) ?\\d{3} ?\\d{3} ?\\d{2}${BOUNDARY}`, 'y'),
    isValid: stdnumCheck(frNir),
  },
  {
    ruleId: 'pii.be_national_number',
    shape: new RegExp(`\\d{2}\\.?\\d{2}\\.?\\d{2}[-. ]?\\d{3}\\.?\\d{2}${BOUNDARY}`, 'y'),
    isValid: stdnumCheck(beNationalNumber),
  },
  { ruleId: 'pii.za_id', shape: new RegExp(`\\d{6} ?\\d{4} ?\\d{2} ?\\d${BOUNDARY}`, 'y'), isValid: stdnumCheck(zaId) },
  { ruleId: 'pii.se_personnummer', shape: new RegExp(`(?:\\d{2})?\\d{6}[-+ ]?\\d{4}${BOUNDARY}`, 'y'), isValid: stdnumCheck(sePersonnummer) },
  { ruleId: 'pii.pl_pesel', shape: new RegExp(`\\d{11}${BOUNDARY}`, 'y'), isValid: stdnumCheck(plPesel) },
  { ruleId: 'pii.tr_tc_kimlik', shape: new RegExp(`[1-9]\\d{10}${BOUNDARY}`, 'y'), isValid: stdnumCheck(trTcKimlik) },
  { ruleId: 'pii.no_fodselsnummer', shape: new RegExp(`\\d{6} ?\\d{5}${BOUNDARY}`, 'y'), isValid: stdnumCheck(noFodselsnummer) },
  { ruleId: 'pii.de_tax_id', shape: new RegExp(`\\d{2} ?\\d{3} ?\\d{3} ?\\d{3}${BOUNDARY}`, 'y'), isValid: stdnumCheck(deTaxId) },
];

const KIND_BY_RULE = new Map(NATIONAL_ID_KINDS.map((kind) => [kind.ruleId, kind]));

function kinds(...ruleIds: NationalIdRuleId[]): readonly NationalIdKind[] {
  return ruleIds.map((ruleId) => KIND_BY_RULE.get(ruleId)).filter((kind): kind is NationalIdKind => kind !== undefined);
}

/**
 * Labels, lower case, and the ids each announces. A label need not end a word ("rijksregisternummer",
 * "henkilötunnukseni"); it must start one, except those in LABELS_INSIDE_WORDS, the ASCII tails of
 * words with a non-ASCII letter: the prefilter's keywords are ASCII, case-folded as ASCII.
 */
const LABELS: ReadonlyMap<string, readonly NationalIdKind[]> = new Map<string, readonly NationalIdKind[]>([
  ['national insurance', kinds('pii.uk_nino')],
  ['nino', kinds('pii.uk_nino')],
  ['ni number', kinds('pii.uk_nino')],
  ['steuer-id', kinds('pii.de_tax_id')],
  ['steuerid', kinds('pii.de_tax_id')],
  ['steuer id', kinds('pii.de_tax_id')],
  ['idnr', kinds('pii.de_tax_id')],
  ['identifikationsnummer', kinds('pii.de_tax_id')],
  ['steueridentifikationsnummer', kinds('pii.de_tax_id')],
  ['sociale', kinds('pii.fr_nir', 'pii.be_national_number')],
  ['insee', kinds('pii.fr_nir')],
  ['nir', kinds('pii.fr_nir')],
  ['pesel', kinds('pii.pl_pesel')],
  ['personnummer', kinds('pii.se_personnummer', 'pii.no_fodselsnummer')],
  ['personnr', kinds('pii.se_personnummer')],
  ['dselsnummer', kinds('pii.no_fodselsnummer')],
  ['fnr', kinds('pii.no_fodselsnummer')],
  ['resident id', kinds('pii.cn_resident_id')],
  ['nric', kinds('pii.sg_nric')],
  ['kimlik', kinds('pii.tr_tc_kimlik')],
  ['tckn', kinds('pii.tr_tc_kimlik')],
  // "TC No:" and "T.C. No:", the short forms of "T.C. Kimlik No" on Turkish forms.
  ['tc no', kinds('pii.tr_tc_kimlik')],
  ['t.c. no', kinds('pii.tr_tc_kimlik')],
  ['t.c no', kinds('pii.tr_tc_kimlik')],
  ['rsa id', kinds('pii.za_id')],
  ['sa id', kinds('pii.za_id')],
  ['rijksregister', kinds('pii.be_national_number')],
  ['registre national', kinds('pii.be_national_number')],
  ['ro national', kinds('pii.be_national_number')],
  ['national number', kinds('pii.be_national_number')],
  ['insz', kinds('pii.be_national_number')],
  ['niss', kinds('pii.be_national_number')],
  ['ahv', kinds('pii.ch_ahv')],
  ['avs', kinds('pii.ch_ahv')],
  ['sozialversicherungsnummer', kinds('pii.ch_ahv')],
  ['hetu', kinds('pii.fi_hetu')],
  ['henkil', kinds('pii.fi_hetu')],
  ['personbeteckning', kinds('pii.fi_hetu')],
  // Generic labels: every country's id.
  ['national id', NATIONAL_ID_KINDS],
  ['national identi', NATIONAL_ID_KINDS],
  ['id number', NATIONAL_ID_KINDS],
  ['identity number', NATIONAL_ID_KINDS],
  ['identification number', NATIONAL_ID_KINDS],
  ['id card', NATIONAL_ID_KINDS],
  ['id no.', NATIONAL_ID_KINDS],
  ['id no:', NATIONAL_ID_KINDS],
  ['personal number', NATIONAL_ID_KINDS],
  ['social security', kinds('pii.fr_nir', 'pii.ch_ahv', 'pii.be_national_number')],
  ['tax id', NATIONAL_ID_KINDS],
  ['taxpayer', NATIONAL_ID_KINDS],
]);

/** `dselsnummer`: fødselsnummer and fodselsnummer; `ro national`: numéro national and numero national. */
const LABELS_INSIDE_WORDS: ReadonlySet<string> = new Set(['dselsnummer', 'ro national']);

/** How far after a label the id may start ("Steuer-ID (laut Bescheid): ..."). */
const LABEL_WINDOW_CHARACTERS = 48;
/** Words between the label and the id tried as starts ("is", "No.", "number"). */
const MAX_STARTS_AFTER_LABEL = 6;

/**
 * Formats reported without a label, tried (sticky) only in the digit runs that hold a hint. They
 * are not prefilter triggers: digit patterns overlap each other and the other detectors' digit
 * triggers, and in the prefilter's one combined automaton such overlaps multiply its states
 * (measured: ten times the prefilter's time on code with hashes, bench/sanitiser-bench-notes.md).
 * Nor is this searched over the whole text: a search whose every position may start one of
 * seven digit shapes cost about a tenth of a whole scan of the bench's mixed text
 * (bench/sanitiser-bench-notes.md).
 */
const STANDALONE_AT =
  /(?<![0-9A-Za-z])(?:(?<nino>[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D])|(?<nric>[STFG]\d{7}[A-Z])|(?<hetu>[0-3]\d[01]\d{3}[-+A]\d{3}[0-9A-Y])|(?<ahv>756\.\d{4}\.\d{4}\.\d{2})|(?<be>\d{2}\.[01]\d\.[0-3]\d-\d{3}\.\d{2})|(?<nir>[12] \d{2} [01]\d (?:\d{2}|2[AB]) \d{3} \d{3} \d{2})|(?<cn>\d{17}[\dXx]))(?![0-9A-Za-z])/y;
/**
 * The piece every standalone format holds (digit-shapes.ts): the detector's presence test, and
 * which digit runs the formats are tried in. Every standalone id's digits and separators, from
 * its first digit, make a digit run (six characters or more), so the shared search's run that
 * holds that digit starts no later; the id starts at most STANDALONE_START_BEFORE_RUN characters
 * before the digit, and its hint, which starts at most two characters after it and is at most
 * ten long, ends within HINT_REACH characters of that run's end.
 */
const STANDALONE_HINT = new RegExp(NATIONAL_ID_HINT_SOURCE);
/** The farthest an id starts before its first digit (`AB ` of a spaced NINO). */
const STANDALONE_START_BEFORE_RUN = 3;
/** How far past the end of a run a hint that starts in it (or right after it) may reach. */
const HINT_REACH = 12;
/** The longest run, from its first digit to its last (digit-shapes.ts). */
const LONGEST_RUN = 42;

/**
 * Whether a run may hold an id's digits, read without the regex: every standalone id puts a
 * blank or a `-` between its digits or four digits in a row (a NINO's or NIR's spaces, a HETU's
 * or Belgian number's dash, six digits, an AHV's `756.dddd`), and an IPv4 address, the most
 * frequent run in logs, holds none of them. An id whose first digit is in the run has all its
 * digits in it, unless the run stopped for its length: an id puts at most one separator between
 * two digits, so one that goes on past the run has its next digit right after that separator,
 * which the run would have taken had it been shorter than LONGEST_RUN - 1. Such a run is read.
 */
function mayHoldId(text: string, start: number, end: number): boolean {
  let digits = 0;
  let firstDigit = -1;
  for (let index = start; index < end; index += 1) {
    const code = text.charCodeAt(index);
    if (code >= 48 && code <= 57) {
      if (firstDigit === -1) firstDigit = index;
      digits += 1;
      if (digits === 4) return true;
    } else {
      if (code === 32 || code === 45) return true;
      digits = 0;
    }
  }
  return end - firstDigit >= LONGEST_RUN - 1;
}

const STANDALONE_RULES = {
  nino: 'pii.uk_nino',
  nric: 'pii.sg_nric',
  hetu: 'pii.fi_hetu',
  ahv: 'pii.ch_ahv',
  be: 'pii.be_national_number',
  nir: 'pii.fr_nir',
  cn: 'pii.cn_resident_id',
} as const satisfies Record<string, NationalIdRuleId>;

/** Tries the kinds at `start`; emits the first valid one. */
function emitFirstValid(context: DetectorContext<NationalIdRuleId>, start: number, candidates: readonly NationalIdKind[]): boolean {
  const { text, scan } = context;
  for (const kind of candidates) {
    if (!scan.isEnabled(kind.ruleId)) continue;
    kind.shape.lastIndex = start;
    const match = kind.shape.exec(text);
    if (match !== null && kind.isValid(match[0])) {
      scan.emit(kind.ruleId, start, start + match[0].length);
      return true;
    }
  }
  return false;
}

/** The id announced by a label: tried at the first few word starts after it. */
function detectAfterLabel(context: DetectorContext<NationalIdRuleId>, labelEnd: number, candidates: readonly NationalIdKind[]): void {
  const { text } = context;
  const limit = Math.min(text.length, labelEnd + LABEL_WINDOW_CHARACTERS);
  let starts = 0;
  for (let index = labelEnd; index < limit && starts < MAX_STARTS_AFTER_LABEL; index += 1) {
    if (!isAsciiAlphanumeric(text.charCodeAt(index)) || isAsciiAlphanumeric(codeAt(text, index - 1))) continue;
    starts += 1;
    if (emitFirstValid(context, index, candidates)) return;
  }
}

function detectNationalIds(context: DetectorContext<NationalIdRuleId>): void {
  const { text } = context;
  for (const [label, candidates] of LABELS) {
    for (const position of context.positions(label)) {
      if (!LABELS_INSIDE_WORDS.has(label) && isAsciiLetter(codeAt(text, position - 1))) continue;
      detectAfterLabel(context, position + label.length, candidates);
    }
  }
  // Starts are tried in ascending order, from a few characters before each run that holds a
  // hint to its end, and none inside an id already found: the ids a search of the whole text
  // would find (see STANDALONE_HINT).
  const { starts, ends } = context.shared(digitRuns);
  let next = 0;
  for (let index = 0; index < starts.length; index += 1) {
    const runStart = starts[index] ?? 0;
    const runEnd = ends[index] ?? 0;
    if (!mayHoldId(text, runStart, runEnd) || !STANDALONE_HINT.test(text.slice(runStart, runEnd + HINT_REACH))) continue;
    for (let start = Math.max(next, runStart - STANDALONE_START_BEFORE_RUN); start < runEnd; start += 1) {
      if (isAsciiAlphanumeric(codeAt(text, start - 1))) continue;
      STANDALONE_AT.lastIndex = start;
      const match = STANDALONE_AT.exec(text);
      if (match === null) continue;
      emitStandalone(context, match);
      next = match.index + match[0].length;
      start = next - 1;
    }
    next = Math.max(next, runEnd);
  }
}

/** The id a standalone match holds, when its checksum or date rules validate it. */
function emitStandalone(context: DetectorContext<NationalIdRuleId>, match: RegExpExecArray): void {
  for (const [group, ruleId] of Object.entries(STANDALONE_RULES) as [keyof typeof STANDALONE_RULES, NationalIdRuleId][]) {
    const value = match.groups?.[group];
    if (value === undefined) continue;
    if (context.scan.isEnabled(ruleId) && KIND_BY_RULE.get(ruleId)?.isValid(value) === true) context.scan.emit(ruleId, match.index, match.index + value.length);
    return;
  }
}

export const nationalIdDetector = defineDetector({
  name: 'national-ids',
  ruleIds: NATIONAL_ID_RULE_IDS,
  keywords: [...LABELS.keys()],
  presenceGate: DIGIT_SHAPES_PRESENT,
  presenceTest: STANDALONE_HINT,
  detect: detectNationalIds,
});
