/**
 * Porch's own evaluation documents, one set per class of issue 22: realistic carriers written
 * for this project (no corpus string is copied). A sensitive span is marked inline as
 * `«rule_id|value»`; parseDocument strips the markers and records where each value ends up, so
 * offsets are never counted by hand.
 *
 * Scoring (scoreDocumentClass): a gold span is found when a finding of its rule overlaps it.
 * A finding counts for precision when it is warn or block, or of a rule this class has gold
 * spans for (so an info IP finding counts in the address class): it is a true positive when it
 * overlaps a gold span of its rule, a false positive otherwise. Info findings of other rules
 * (URLs, IPs in a password document) are context, not alarms, except in a document with no gold
 * span at all (the false-alarm class), where anything but a URL counts: a version number read as
 * an IP address is the false alarm such a document is there to catch.
 */
import type { Finding, Sanitiser } from '../../src/core/sanitiser/index.js';
import { ADDRESS_AND_CARD_DOCUMENTS } from './addresses-and-cards.js';
import { COLUMN_HEADER_DOCUMENTS } from './column-headers.js';
import { FALSE_ALARM_DOCUMENTS } from './false-alarms.js';
import { KUBERNETES_SECRET_DOCUMENTS } from './kubernetes-secrets.js';
import { NATIONAL_ID_DOCUMENTS } from './national-ids.js';
import { PASSWORD_DOCUMENTS } from './passwords.js';

export interface GoldSpan {
  readonly ruleId: string;
  readonly start: number;
  readonly end: number;
}

export interface ParsedDocument {
  readonly text: string;
  readonly gold: readonly GoldSpan[];
}

export interface DocumentClass {
  readonly name: string;
  readonly description: string;
  readonly documents: readonly string[];
}

export const DOCUMENT_CLASSES: readonly DocumentClass[] = [
  { name: 'national-ids', description: 'national identifiers of 13 countries, by label or by format', documents: NATIONAL_ID_DOCUMENTS },
  {
    name: 'column-headers',
    description: 'CSV/TSV/Markdown tables and SQL INSERT/COPY dumps: the header names the column (also in other languages, after a byte order mark)',
    documents: COLUMN_HEADER_DOCUMENTS,
  },
  {
    name: 'passwords',
    description: 'passwords outside key=value: CLI flags, other languages, Helm, Terraform state, registry auth, .pgpass',
    documents: PASSWORD_DOCUMENTS,
  },
  { name: 'kubernetes-secrets', description: 'Kubernetes Secret data: values, base64-decoded and mapped back', documents: KUBERNETES_SECRET_DOCUMENTS },
  {
    name: 'addresses-and-cards',
    description: 'IPv4-mapped IPv6, obfuscated, percent-encoded and internationalised emails, newer card ranges',
    documents: ADDRESS_AND_CARD_DOCUMENTS,
  },
  {
    name: 'false-alarms',
    description: 'nothing sensitive: example keys, test cards, placeholders, port flags, Message-IDs, IMEIs, versions, cache keys',
    documents: FALSE_ALARM_DOCUMENTS,
  },
];

const MARKER = /«([a-z0-9_.-]+)\|([^«»]*)»/g;

export function parseDocument(marked: string): ParsedDocument {
  const gold: GoldSpan[] = [];
  let text = '';
  let cursor = 0;
  for (const match of marked.matchAll(MARKER)) {
    text += marked.slice(cursor, match.index);
    const value = match[2] ?? '';
    gold.push({ ruleId: match[1] ?? '', start: text.length, end: text.length + value.length });
    text += value;
    cursor = match.index + match[0].length;
  }
  text += marked.slice(cursor);
  return { text, gold };
}

export interface ClassScore {
  readonly name: string;
  readonly documents: number;
  readonly gold: number;
  readonly found: number;
  readonly truePositives: number;
  readonly falsePositives: number;
  /** Documents without gold spans that got a finding other than a URL. */
  readonly cleanDocumentsFlagged: number;
  readonly cleanDocuments: number;
  readonly misses: readonly string[];
  readonly falseAlarms: readonly string[];
}

const overlaps = (left: { start: number; end: number }, right: { start: number; end: number }): boolean => left.start < right.end && right.start < left.end;

function counts(finding: Finding, goldRules: ReadonlySet<string>, document: ParsedDocument): boolean {
  if (document.gold.length === 0) return finding.rule_id !== 'pii.url';
  return finding.severity !== 'info' || goldRules.has(finding.rule_id);
}

export function scoreDocumentClass(sanitiser: Sanitiser, documentClass: DocumentClass): ClassScore {
  const parsed = documentClass.documents.map(parseDocument);
  const goldRules = new Set(parsed.flatMap((document) => document.gold.map((span) => span.ruleId)));
  let gold = 0;
  let found = 0;
  let truePositives = 0;
  let falsePositives = 0;
  let cleanDocuments = 0;
  let cleanDocumentsFlagged = 0;
  const misses: string[] = [];
  const falseAlarms: string[] = [];
  for (const document of parsed) {
    const findings = sanitiser.scan(document.text).findings;
    for (const span of document.gold) {
      gold += 1;
      if (findings.some((finding) => finding.rule_id === span.ruleId && overlaps(finding, span))) found += 1;
      else misses.push(`${span.ruleId} ${JSON.stringify(document.text.slice(span.start, span.end))}`);
    }
    const scored = findings.filter((finding) => counts(finding, goldRules, document));
    for (const finding of scored) {
      if (document.gold.some((span) => span.ruleId === finding.rule_id && overlaps(finding, span))) truePositives += 1;
      else {
        falsePositives += 1;
        falseAlarms.push(`${finding.rule_id} ${JSON.stringify(finding.match.slice(0, 80))}`);
      }
    }
    if (document.gold.length === 0) {
      cleanDocuments += 1;
      if (scored.length > 0) cleanDocumentsFlagged += 1;
    }
  }
  return {
    name: documentClass.name,
    documents: parsed.length,
    gold,
    found,
    truePositives,
    falsePositives,
    cleanDocuments,
    cleanDocumentsFlagged,
    misses,
    falseAlarms,
  };
}
