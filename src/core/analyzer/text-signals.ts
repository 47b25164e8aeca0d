/**
 * Structural facts about a prompt, computed once and shared by every dimension scorer.
 * Everything here is plain string and regex work over the text: linear in its length, no
 * backtracking-prone patterns, and safe on any JavaScript string (emoji, lone surrogates,
 * control characters), because the analyzer is public and must never throw on input.
 */

export interface Sentence {
  /** The sentence or list item, trimmed, with any leading list marker removed. */
  readonly text: string;
  /** Lower-cased `text`, for matching. */
  readonly lower: string;
  /** Number of words (letter/digit runs). */
  readonly wordCount: number;
}

export interface TextSignals {
  /** The prompt exactly as given. */
  readonly text: string;
  /** Lower-cased prompt, for case-insensitive matching without the `i` flag on every regex. */
  readonly lower: string;
  /** Words as letter/digit runs (apostrophes and hyphens inside a word are kept); list markers excluded. */
  readonly wordCount: number;
  readonly sentences: readonly Sentence[];
  /** Markdown headings (`# Title`) and label lines (`Context:` alone, or `TASK:` with text after). */
  readonly headingCount: number;
  /** Lines starting with a bullet (`-`, `*`, `•`) or a number (`1.`, `2)`). */
  readonly listItemCount: number;
  /** Fenced or tagged blocks: ``` pairs, """ pairs, <tag>...</tag> pairs, and `---`/`===` rules. */
  readonly delimitedBlockCount: number;
  /** Quoted passages of at least QUOTED_PASSAGE_MIN_WORDS words. */
  readonly quotedPassageCount: number;
  /** Paragraphs separated by blank lines. */
  readonly paragraphCount: number;
  /**
   * Material to work from is present in the prompt: a delimited block, a long quoted passage,
   * or a "label: ..." / "here is ..." lead-in followed by enough text to be the material itself.
   */
  readonly providesInput: boolean;
  /** Words in ALL CAPS (2+ letters, not a known acronym), outside heading and label lines. */
  readonly shoutedWordCount: number;
  /** Runs of two or more exclamation marks. */
  readonly exclamationRunCount: number;
}

/** A quote this long is material (an example, a passage to work on), not a quoted word. */
const QUOTED_PASSAGE_MIN_WORDS = 8;

/** Text after a "here is ..." lead-in that is long enough to be the material it announces. */
const PROVIDED_INPUT_MIN_WORDS = 15;

const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;
const SENTENCE_BREAK = /(?<=[.!?。！？])\s+|\n+/u;
const LIST_MARKER = /^\s*(?:[-*•‣▪]|\d{1,3}[.)]|[a-z][.)])\s+/;
const HEADING_LINE = /^\s{0,3}#{1,6}\s+\S/;
/** `Context:` alone on a line, or a short capitalised label followed by text (`Task: write ...`). */
const LABEL_LINE = /^\s*[\p{Lu}][\p{L} /&'-]{1,30}:(?:\s*$|\s+\S)/u;
const FENCE = /^\s*(?:```|~~~)/;
const TRIPLE_QUOTE = /"""|'''/g;
const OPENING_TAG = /<([a-z][a-z0-9_-]{0,30})(?:\s[^<>]{0,100})?>/g;
const CLOSING_TAG = /<\/([a-z][a-z0-9_-]{0,30})>/g;
const RULE_LINE = /^\s*(?:-{3,}|={3,}|\*{3,}|#{3,}\s*$)/;
const QUOTED = /["“«]([^"“”«»\n]{1,2000})["”»]/g;
const INPUT_LEAD_IN =
  /\b(?:here is|here's|here are|below is|below are|the following|text:|input:|data:|article:|email:|document:|transcript:|code:|passage:|source:|review:|reviews:|notes:)/g;
const SHOUT_CANDIDATE = /\b[A-Z]{2,}\b/g;

/**
 * Common acronyms and initialisms that are written in capitals by convention; they are not
 * shouting. Kept short on purpose: a false "shouting" only costs a few clarity points.
 */
const ACRONYMS = new Set([
  'AI',
  'AM',
  'API',
  'APIS',
  'AWS',
  'B2B',
  'B2C',
  'CD',
  'CEO',
  'CFO',
  'CI',
  'CLI',
  'CMO',
  'COO',
  'CPU',
  'CRM',
  'CRUD',
  'CSS',
  'CSV',
  'CTA',
  'CTO',
  'CV',
  'DB',
  'DIY',
  'DNS',
  'DOM',
  'EOF',
  'ERP',
  'ETA',
  'ETL',
  'EU',
  'FAQ',
  'FAQS',
  'GCP',
  'GDP',
  'GDPR',
  'GPT',
  'GPU',
  'HR',
  'HTML',
  'HTTP',
  'HTTPS',
  'ID',
  'IDS',
  'II',
  'III',
  'IO',
  'IP',
  'ISO',
  'IT',
  'IV',
  'JS',
  'JSON',
  'JWT',
  'KPI',
  'KPIS',
  'LLM',
  'LLMS',
  'ML',
  'MVP',
  'NASA',
  'NB',
  'NDA',
  'NLP',
  'NPS',
  'NYC',
  'OCR',
  'OK',
  'OKR',
  'OKRS',
  'OS',
  'PDF',
  'PHP',
  'PM',
  'PR',
  'PS',
  'QA',
  'RAM',
  'REST',
  'RFC',
  'ROI',
  'RSS',
  'SAAS',
  'SDK',
  'SEO',
  'SLA',
  'SMS',
  'SMB',
  'SQL',
  'SSH',
  'SSL',
  'TL',
  'DR',
  'TLDR',
  'TLS',
  'TS',
  'TV',
  'UI',
  'UK',
  'UN',
  'URI',
  'URL',
  'URLS',
  'US',
  'USA',
  'USD',
  'EUR',
  'GBP',
  'UTC',
  'UTF',
  'UUID',
  'UX',
  'VAT',
  'VM',
  'VP',
  'XML',
  'YAML',
  'TOML',
  'TSV',
  'JSONL',
  'MCP',
  'RAG',
  'SOP',
  'SWOT',
  'TODO',
]);

function countWords(text: string): number {
  let count = 0;
  WORD.lastIndex = 0;
  while (WORD.exec(text) !== null) count += 1;
  return count;
}

/** True once `text` has `minimum` words; stops counting there, so a long tail costs nothing. */
function hasAtLeastWords(text: string, minimum: number): boolean {
  let count = 0;
  WORD.lastIndex = 0;
  while (count < minimum && WORD.exec(text) !== null) count += 1;
  return count >= minimum;
}

function countMatches(pattern: RegExp, text: string): number {
  pattern.lastIndex = 0;
  let count = 0;
  while (pattern.exec(text) !== null) count += 1;
  return count;
}

/** Tag pairs such as <article>...</article>, by distinct tag name; one pass over each kind. */
function countTagPairs(lower: string): number {
  const opened = new Set<string>();
  const closed = new Set<string>();
  OPENING_TAG.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = OPENING_TAG.exec(lower)) !== null) opened.add(match[1] ?? '');
  CLOSING_TAG.lastIndex = 0;
  while ((match = CLOSING_TAG.exec(lower)) !== null) closed.add(match[1] ?? '');
  let pairs = 0;
  for (const name of opened) if (closed.has(name)) pairs += 1;
  return pairs;
}

function countQuotedPassages(text: string): number {
  QUOTED.lastIndex = 0;
  let passages = 0;
  let match: RegExpExecArray | null;
  while ((match = QUOTED.exec(text)) !== null) {
    if (countWords(match[1] ?? '') >= QUOTED_PASSAGE_MIN_WORDS) passages += 1;
  }
  return passages;
}

/**
 * True when a "here is ..." style lead-in is followed by enough words to be the material it
 * announces. Only the first lead-in is checked: it has the most text after it, so if it fails
 * every later one fails too (and the check stays linear on adversarial input).
 */
function hasInputAfterLeadIn(text: string, lower: string): boolean {
  INPUT_LEAD_IN.lastIndex = 0;
  const match = INPUT_LEAD_IN.exec(lower);
  if (match === null) return false;
  return hasAtLeastWords(text.slice(match.index + match[0].length), PROVIDED_INPUT_MIN_WORDS);
}

function splitSentences(text: string): Sentence[] {
  const sentences: Sentence[] = [];
  for (const piece of text.split(SENTENCE_BREAK)) {
    const cleaned = piece.replace(LIST_MARKER, '').trim();
    if (cleaned.length === 0) continue;
    const wordCount = countWords(cleaned);
    if (wordCount === 0) continue;
    sentences.push({ text: cleaned, lower: cleaned.toLowerCase(), wordCount });
  }
  return sentences;
}

export function extractTextSignals(prompt: string): TextSignals {
  const text = prompt;
  const lower = text.toLowerCase();
  const lines = text.split('\n');

  let headingCount = 0;
  let listItemCount = 0;
  let fenceCount = 0;
  let ruleCount = 0;
  let shoutedWordCount = 0;
  for (const line of lines) {
    const isHeading = HEADING_LINE.test(line) || LABEL_LINE.test(line);
    if (isHeading) headingCount += 1;
    if (LIST_MARKER.test(line)) listItemCount += 1;
    if (FENCE.test(line)) fenceCount += 1;
    else if (RULE_LINE.test(line)) ruleCount += 1;
    // Capitalised section labels ("TASK:", "## RULES") are structure, not shouting.
    const body = isHeading ? line.slice(line.indexOf(':') + 1) : line;
    SHOUT_CANDIDATE.lastIndex = 0;
    let match: RegExpExecArray | null;
    while ((match = SHOUT_CANDIDATE.exec(body)) !== null) {
      if (!ACRONYMS.has(match[0])) shoutedWordCount += 1;
    }
  }

  const tripleQuotePairs = Math.floor(countMatches(TRIPLE_QUOTE, text) / 2);
  const delimitedBlockCount = Math.floor(fenceCount / 2) + tripleQuotePairs + countTagPairs(lower) + ruleCount;
  const quotedPassageCount = countQuotedPassages(text);
  const paragraphCount = text.split(/\n\s*\n/).filter((part) => part.trim().length > 0).length;
  const sentences = splitSentences(text);
  // Summed over sentences so list markers ("1.", "-") are not counted as words.
  const wordCount = sentences.reduce((total, sentence) => total + sentence.wordCount, 0);

  return {
    text,
    lower,
    wordCount,
    sentences,
    headingCount,
    listItemCount,
    delimitedBlockCount,
    quotedPassageCount,
    paragraphCount,
    providesInput: delimitedBlockCount > 0 || quotedPassageCount > 0 || hasInputAfterLeadIn(text, lower),
    shoutedWordCount,
    exclamationRunCount: countMatches(/!{2,}/g, text),
  };
}
