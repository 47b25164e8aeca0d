/**
 * Personal data whose only context is a column header: CSV, TSV, semicolon- and pipe-separated
 * exports (Markdown tables too), SQL `INSERT INTO t (cols) VALUES (...)` and `COPY t (cols) FROM
 * stdin` dumps. In an `ssn` column a bare `616399411` is an SSN; in prose it is nothing.
 *
 * The prefilter triggers on a known column name directly followed by a delimiter; the detector
 * then checks that the line (or the SQL column list) is a header, walks the rows below it and
 * validates each cell of a named column as that column's kind: SSN rules, a phone number the
 * phone library calls possible, a national id any country's checksum accepts (else the generic
 * `pii.national_id` when the cell looks like an identifier).
 */
import { defineDetector, type DetectorContext } from '../detector.js';
import { isValidUsSsn } from '../validators.js';
import { NATIONAL_ID_KINDS, NATIONAL_ID_RULE_IDS } from './national-ids.js';
import { isPossibleInternational, isPossibleNational } from './phone-validation.js';
import { CJK_PHONE_LABELS, PHONE_LABEL_WORDS } from './phone-words.js';
import { lineEndWithin, lineStartWithin } from './text-boundaries.js';

type ColumnKind = 'ssn' | 'phone' | 'national';

/** Column names of SSNs and national ids; phone columns are named by PHONE_COLUMN. */
const COLUMN_NAMES: ReadonlyMap<string, ColumnKind> = new Map<string, ColumnKind>([
  ...['ssn', 'us_ssn', 'ssn_number', 'social_security_number', 'social_security_no'].map((name) => [name, 'ssn'] as const),
  ...[
    'tax_id',
    'taxid',
    'tax_number',
    'tin',
    'national_id',
    'nationalid',
    'national_id_number',
    'national_insurance_number',
    'nino',
    'ni_number',
    'pesel',
    'personnummer',
    'personal_number',
    'personal_id',
    'steuer_id',
    'steuerid',
    'idnr',
    'nir',
    'id_number',
    'citizen_id',
    'resident_id',
    'nric',
    'tckn',
    'ahv',
    'hetu',
    'fnr',
    'fodselsnummer',
    'bsn',
    'sin',
    'cpr',
  ].map((name) => [name, 'national'] as const),
]);

/**
 * Words that may stand next to a phone word in a column name: `home_phone`, `phone_no`,
 * `nr_telefonu`, `telefon_komorkowy`, `Cep telefonu` (Turkish `cep` alone is Brazil's postal
 * code: a qualifier here, never a column of phone numbers by itself), `phone_2`.
 */
const PHONE_QUALIFIERS = [
  'number',
  'no',
  'nr',
  'num',
  'numer',
  'nummer',
  'n[uú]mero',
  'home',
  'work',
  'private',
  'privat',
  'business',
  'office',
  'contact',
  'primary',
  'secondary',
  'alt',
  'alternate',
  'emergency',
  'direct',
  'main',
  'personal',
  'de',
  'du',
  'cep',
  'kom[oó]rkowy',
  '\\d{1,2}',
];
/** The phone detector's words (phone-words.ts): a column is named as a number would be labelled in prose. */
const ASCII_PHONE_WORD = `(?:${PHONE_LABEL_WORDS.join('|')})`;
/** The CJK labels, alone or with the word for number (`手机号码`, `电话号`, `電話番号`). */
const CJK_PHONE_WORD = `(?:${CJK_PHONE_LABELS.join('|')})(?:号码|號碼|号|號|番号|번호)?`;
const PHONE_NAME_PART = `(?:${ASCII_PHONE_WORD}|${CJK_PHONE_WORD}|${PHONE_QUALIFIERS.join('|')})`;
/**
 * A phone column's name once normaliseName has made it lower case with `_` between its words:
 * phone words and qualifiers, at least one phone word.
 */
const PHONE_COLUMN = new RegExp(`^(?:${PHONE_NAME_PART}_)*(?:${ASCII_PHONE_WORD}|${CJK_PHONE_WORD})(?:_${PHONE_NAME_PART})*$`, 'u');

const NAME_ALTERNATION = [...COLUMN_NAMES.keys()].sort((left, right) => right.length - left.length).join('|');
/** What may follow a column name: an optional closing quote and space, then a delimiter or the line end. */
const NAME_END = `["'\`\\]]? ?[,\\t;|)\\r\\n]`;
/**
 * A column name, or a phone word with at most one qualifier after it, followed by NAME_END.
 * Qualifiers before the phone word (`home_phone`, `nr_telefonu`) are read when the detector
 * walks back to the field's start. The CJK labels stay out of the prefilter: in its one combined
 * automaton they multiplied its time on code about tenfold (bench/sanitiser-bench-notes.md), so
 * they are searched for only in texts that hold one (CJK_HEADER).
 */
const HEADER_TRIGGER = `(?:${NAME_ALTERNATION}|${ASCII_PHONE_WORD}(?:[ _-](?:${PHONE_QUALIFIERS.join('|')}))?)${NAME_END}`;
const CJK_HEADER = new RegExp(`${CJK_PHONE_WORD}${NAME_END}`, 'g');
const CJK_PHONE_LABEL = new RegExp(CJK_PHONE_LABELS.join('|'));
/** How far back from a trigger the start of its field is looked for (HEADER_FIELD's longest name). */
const MAX_FIELD_CHARACTERS = 48;
const NAME_CHARACTER = /[\p{L}\p{N}_ .-]/u;

/** Longest header line read: wider lines are not a table a person pasted. */
const MAX_HEADER_CHARACTERS = 4_096;
/** Longest row read. */
const MAX_ROW_CHARACTERS = 16_384;
/** Most rows read below one header: a dump longer than this is cut, not scanned without end. */
const MAX_ROWS_PER_TABLE = 10_000;
/** How far before a column name an `INSERT INTO` / `COPY` may start (wide column lists). */
const SQL_LOOKBACK_CHARACTERS = 2_000;
const DELIMITERS = ['\t', ',', ';', '|'] as const;
const HEADER_FIELD = /^[\p{L}\p{N}_ .#/()-]{1,48}$/u;
const SQL_PRESENT = /\b(?:insert\s+into|copy)\s/i;
const SQL_STATEMENT = /\b(insert\s+into|copy)\s+[\w."`[\]]+\s*\(([^()]*)$/i;
const MISSING = /^(?:|null|n\/a|na|none|-|\\N)$/i;

const TABULAR_RULE_IDS = ['pii.us_ssn', 'pii.phone', 'pii.national_id', ...NATIONAL_ID_RULE_IDS] as const;
type TabularRuleId = (typeof TABULAR_RULE_IDS)[number];

interface Cell {
  readonly start: number;
  readonly end: number;
}

function normaliseName(field: string): string {
  return field
    .trim()
    .replace(/^["'`[]+|["'`\]]+$/g, '')
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/** Splits `text[start, end)` at `delimiter`, honouring double-quoted fields; each cell's bounds are trimmed of blanks and quotes. */
function splitCells(text: string, start: number, end: number, delimiter: string): Cell[] {
  const cells: Cell[] = [];
  let cellStart = start;
  let quoted = false;
  for (let index = start; index <= end; index += 1) {
    const character = index < end ? text[index] : delimiter;
    if (character === '"') quoted = !quoted;
    else if (character === delimiter && !quoted) {
      let from = cellStart;
      let to = index;
      while (from < to && /[\s"']/.test(text[from] ?? '')) from += 1;
      while (to > from && /[\s"']/.test(text[to - 1] ?? '')) to -= 1;
      cells.push({ start: from, end: to });
      cellStart = index + 1;
    }
  }
  return cells;
}

/** Markdown rows start and end with the delimiter: drop the empty cells that makes. */
function rowCells(text: string, start: number, end: number, delimiter: string): Cell[] {
  const cells = splitCells(text, start, end, delimiter);
  if (delimiter === '|' && text.slice(start, end).trim().startsWith('|')) {
    if (cells[0]?.start === cells[0]?.end) cells.shift();
    if (cells.length > 0 && cells[cells.length - 1]?.start === cells[cells.length - 1]?.end) cells.pop();
  }
  return cells;
}

function lineEnd(text: string, from: number): number {
  return lineEndWithin(text, from, MAX_ROW_CHARACTERS);
}

function emitCell(context: DetectorContext<TabularRuleId>, kind: ColumnKind, cell: Cell): void {
  const { text, scan } = context;
  const value = text.slice(cell.start, cell.end);
  if (MISSING.test(value) || value.length > 40) return;
  if (kind === 'ssn') {
    if (/^\d{3}([- ]?)\d{2}\1\d{4}$/.test(value) && isValidUsSsn(value.replace(/\D/g, ''))) scan.emit('pii.us_ssn', cell.start, cell.end);
    return;
  }
  if (kind === 'phone') {
    if (!/^\+?[\d ()./-]{7,24}$/.test(value)) return;
    const digits = value.replace(/\D/g, '');
    if (digits.length < 7 || digits.length > 15) return;
    const possible = value.startsWith('+') ? isPossibleInternational(digits) : isPossibleNational(digits) || isPossibleInternational(digits);
    if (possible) scan.emit('pii.phone', cell.start, cell.end);
    return;
  }
  for (const nationalKind of NATIONAL_ID_KINDS) {
    nationalKind.shape.lastIndex = 0;
    const match = nationalKind.shape.exec(value);
    if (match !== null && match[0].length === value.length && nationalKind.isValid(value)) {
      scan.emit(nationalKind.ruleId, cell.start, cell.end);
      return;
    }
  }
  // The header says it is an identifier: a value shaped like one is reported even when no
  // country's checksum knows it (a US EIN, a UK UTR, a number of a country without a rule).
  if (/^[A-Za-z0-9][A-Za-z0-9 ./-]{4,22}[A-Za-z0-9]$/.test(value) && (value.match(/\d/g)?.length ?? 0) >= 5) {
    scan.emit('pii.national_id', cell.start, cell.end);
  }
}

function columnsOf(text: string, cells: readonly Cell[]): Map<number, ColumnKind> {
  const columns = new Map<number, ColumnKind>();
  cells.forEach((cell, index) => {
    const name = normaliseName(text.slice(cell.start, cell.end));
    const kind = COLUMN_NAMES.get(name) ?? (PHONE_COLUMN.test(name) ? 'phone' : undefined);
    if (kind !== undefined) columns.set(index, kind);
  });
  return columns;
}

/** Rows below a header, one a line, until a blank line, the end of a COPY block or the row cap. */
function scanRows(context: DetectorContext<TabularRuleId>, from: number, delimiter: string, width: number, columns: Map<number, ColumnKind>): void {
  const { text } = context;
  let start = from;
  for (let row = 0; row < MAX_ROWS_PER_TABLE && start < text.length; row += 1) {
    const end = lineEnd(text, start);
    const line = text.slice(start, end).trim();
    if (line.length === 0 || line === '\\.') return;
    const cells = rowCells(text, start, end, delimiter);
    if (cells.length === width) {
      for (const [index, kind] of columns) {
        const cell = cells[index];
        if (cell !== undefined) emitCell(context, kind, cell);
      }
    }
    start = end + 1;
  }
}

/** SQL string literals and bare values of one `VALUES (...), (...)` list. */
function scanSqlValues(context: DetectorContext<TabularRuleId>, from: number, columns: Map<number, ColumnKind>): void {
  const { text } = context;
  const values = /\s*values\s*/iy;
  values.lastIndex = from;
  if (values.exec(text) === null) return;
  let index = values.lastIndex;
  for (let row = 0; row < MAX_ROWS_PER_TABLE; row += 1) {
    while (index < text.length && /\s/.test(text[index] ?? '')) index += 1;
    if (text[index] !== '(') return;
    index += 1;
    let column = 0;
    for (;;) {
      while (index < text.length && /\s/.test(text[index] ?? '')) index += 1;
      let cell: Cell;
      if (text[index] === "'") {
        let end = index + 1;
        while (end < text.length && (text[end] !== "'" || text[end + 1] === "'")) end += text[end] === "'" ? 2 : 1;
        cell = { start: index + 1, end };
        index = end + 1;
      } else {
        let end = index;
        while (end < text.length && text[end] !== ',' && text[end] !== ')') end += 1;
        let trimmed = end;
        while (trimmed > index && /\s/.test(text[trimmed - 1] ?? '')) trimmed -= 1;
        cell = { start: index, end: trimmed };
        index = end;
      }
      const kind = columns.get(column);
      if (kind !== undefined) emitCell(context, kind, cell);
      while (index < text.length && /\s/.test(text[index] ?? '')) index += 1;
      column += 1;
      if (text[index] === ',') {
        index += 1;
        continue;
      }
      if (text[index] === ')') {
        index += 1;
        break;
      }
      return;
    }
    while (index < text.length && /\s/.test(text[index] ?? '')) index += 1;
    if (text[index] !== ',') return;
    index += 1;
  }
}

/** A column name inside the column list of `INSERT INTO t (...)` or `COPY t (...)`: that statement's rows. */
function scanSql(context: DetectorContext<TabularRuleId>, position: number, seen: Set<number>): boolean {
  const { text } = context;
  const lookbackStart = Math.max(0, position - SQL_LOOKBACK_CHARACTERS);
  const statement = SQL_STATEMENT.exec(text.slice(lookbackStart, position));
  if (statement === null) return false;
  const listStart = lookbackStart + statement.index + statement[0].length - (statement[2]?.length ?? 0);
  const listEnd = text.indexOf(')', position);
  if (listEnd === -1) return true;
  if (seen.has(listStart)) return true;
  seen.add(listStart);
  const columns = columnsOf(text, splitCells(text, listStart, listEnd, ','));
  if (columns.size === 0) return true;
  if ((statement[1] ?? '').toLowerCase().startsWith('copy')) {
    const header = splitCells(text, listStart, listEnd, ',').length;
    scanRows(context, lineEnd(text, listEnd) + 1, '\t', header, columns);
  } else {
    scanSqlValues(context, listEnd + 1, columns);
  }
  return true;
}

/** Reads the header on the line of `position`; answers where the next header may start. */
function scanDelimited(context: DetectorContext<TabularRuleId>, position: number): number {
  const { text } = context;
  const start = lineStartWithin(text, position, MAX_HEADER_CHARACTERS);
  const end = lineEndWithin(text, position, MAX_HEADER_CHARACTERS);
  // Too long a line to be a header: no other position on it is one either.
  if (start === -1 || (end < text.length && text.charCodeAt(end) !== 10)) return text.indexOf('\n', end) === -1 ? text.length : text.indexOf('\n', end);
  const header = text.slice(start, end);
  let delimiter: string | undefined;
  let best = 0;
  for (const candidate of DELIMITERS) {
    const count = header.split(candidate).length - 1;
    if (count > best) {
      best = count;
      delimiter = candidate;
    }
  }
  if (delimiter === undefined) return end;
  const cells = rowCells(text, start, end, delimiter);
  // A header names columns: short names, no sentences (a line of prose with a comma is not one).
  if (cells.length < 2 || !cells.every((cell) => HEADER_FIELD.test(text.slice(cell.start, cell.end)))) return end;
  const columns = columnsOf(text, cells);
  if (columns.size === 0) return end;
  let rows = end + 1;
  // A Markdown table's separator row (|---|:---:|).
  if (delimiter === '|' && /^\s*\|?[\s:|-]+\|?\s*$/.test(text.slice(rows, lineEnd(text, rows)))) rows = lineEnd(text, rows) + 1;
  scanRows(context, rows, delimiter, cells.length, columns);
  return end;
}

/** Where header names may be: the prefilter's trigger positions, and the CJK phone labels' (in order). */
function headerPositions(context: DetectorContext<TabularRuleId>): number[] {
  const { text } = context;
  const positions = [...context.patternPositions(HEADER_TRIGGER)];
  // A search for a few literal labels is cheaper than asking whether the text is ASCII first.
  if (!CJK_PHONE_LABEL.test(text)) return positions;
  for (const match of text.matchAll(CJK_HEADER)) positions.push(match.index);
  return positions.sort((left, right) => left - right);
}

function detectTabular(context: DetectorContext<TabularRuleId>): void {
  const { text } = context;
  const seen = new Set<number>();
  // One test per scan: most texts with a column name hold no SQL statement to look back for.
  const hasSql = SQL_PRESENT.test(text);
  let nextHeader = 0;
  for (const position of headerPositions(context)) {
    if (position < nextHeader) continue;
    // The name must start a field: after a delimiter, an opening quote or bracket, or a line start,
    // with the words of a longer name before it (`home_phone`, `nr telefonu`). A byte order mark
    // (U+FEFF) before the header belongs to the file, not the field: spreadsheet programs write one
    // at the start of every CSV they save as UTF-8 (regression: it hid the first column's name).
    let before = position - 1;
    while (before >= 0 && position - before <= MAX_FIELD_CHARACTERS && NAME_CHARACTER.test(text[before] ?? '')) before -= 1;
    while (before >= 0 && /["'`[ \ufeff]/.test(text[before] ?? '')) before -= 1;
    const previous = before < 0 ? '\n' : (text[before] ?? '');
    if (!/[,\t;|(\n\r]/.test(previous)) continue;
    if (hasSql && scanSql(context, position, seen)) continue;
    nextHeader = scanDelimited(context, position);
  }
}

export const tabularDetector = defineDetector({
  name: 'tabular',
  ruleIds: TABULAR_RULE_IDS,
  patternTriggers: [HEADER_TRIGGER],
  presenceTest: CJK_PHONE_LABEL,
  detect: detectTabular,
});
