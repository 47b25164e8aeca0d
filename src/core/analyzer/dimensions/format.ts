/**
 * Format: does the prompt say what shape the answer must take?
 *
 * Heuristics (points, capped at 100):
 * - A named format (+35): JSON, YAML, CSV, Markdown, a table, bullet points, a numbered list,
 *   headings or sections, a code block, a haiku, an email ...
 * - An explicit output instruction (+20): "Format:", "Output format", "Respond with ...",
 *   "Return only ...", "Answer as ...", "Use the following template".
 * - A length or count (+20): "in 3 sentences", "five bullet points", "under 200 words".
 * - A schema (+15): keys, fields, columns or properties named, or a JSON-like example object.
 * - An example of the output (+10): "Example output:", "For example", "e.g.", "like this:".
 */
import type { TextSignals } from '../text-signals.js';
import { clampScore, distinctMatches } from './score-math.js';

export interface FormatFindings {
  /** Named formats found, lower-cased, at most MAX_LISTED_FORMATS. */
  readonly formatNames: readonly string[];
  readonly instruction: boolean;
  readonly lengthOrCount: boolean;
  readonly schema: boolean;
  readonly example: boolean;
}

export interface FormatResult {
  readonly score: number;
  readonly findings: FormatFindings;
}

const NAMED_FORMAT_POINTS = 35;
const INSTRUCTION_POINTS = 20;
const LENGTH_POINTS = 20;
const SCHEMA_POINTS = 15;
const EXAMPLE_POINTS = 10;
const MAX_LISTED_FORMATS = 5;

export const FORMAT_NAMES =
  /\b(?:json(?:l| lines)?|yaml|toml|xml|csv|tsv|markdown|html|latex|mermaid|plain text|table|tabular|bullet(?:ed)?(?: points?| list)?|bullets|numbered list|checklist|list of|code blocks?|headings?|headers|sections?|paragraphs?|one-liners?|tweets?|haikus?|sonnets?|limericks?|email format|outline|key[- ]value|spreadsheet|diagram|flowchart|slide|q&a|faq format|sql|regex|yes or no|yes\/no|true or false|a single (?:word|number|sentence|line|label)|one (?:word|number|sentence|line|label))\b/g;

const OUTPUT_INSTRUCTION =
  /\b(?:(?:output|response|answer|result) (?:format|structure|shape)|format (?:the|your|it|each|as)|formatted (?:as|like|in)|respond (?:in|with|as|using|only)|reply (?:in|with|as|only)|answer (?:in|with|as|only|using)|return (?:only|a|an|the|it|as|in|your|exactly|just)|output (?:only|a|an|the|as|in|exactly|just)|structure (?:the|your|it|as)|use (?:the|this) (?:following )?(?:format|structure|template|schema)|in the (?:following )?(?:format|form|structure) of|(?:format|template|output)(?=\s*:))\b/;

const LENGTH_OR_COUNT =
  /\b(?:(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|a single)[ -](?:words?|sentences?|paragraphs?|bullets?|bullet points?|items?|lines?|characters?|chars|points?|examples?|options?|ideas?|questions?|steps?|sections?|tips?|rows?|columns?|headlines?|titles?|variants?|versions?|pages?|slides?|tweets?)|(?:under|at most|no more than|maximum of|max|up to|fewer than|less than|at least|between|exactly|around|about|roughly|approximately)\s+\d+)\b/;

const SCHEMA =
  /\b(?:keys?|fields?|columns?|properties|attributes|schema|headings?|headers)\b\s*(?::|named|called|such as|like|for|\(|["“'`])|\{\s*"[^"\n]{1,40}"\s*:|"[\w -]{1,40}"\s*:\s*(?:"|\d|\[|\{|true|false|null)|\|[^|\n]{1,40}\|[^|\n]{1,40}\|/;

const OUTPUT_EXAMPLE =
  /\b(?:example (?:output|response|answer|result)|sample (?:output|response|answer)|output example|here is an example|for example|for instance|e\.g\.|such as|like this|looks like)(?=\W|$)/;

export function scoreFormat(signals: TextSignals): FormatResult {
  const { lower } = signals;
  const findings: FormatFindings = {
    formatNames: distinctMatches(FORMAT_NAMES, lower, MAX_LISTED_FORMATS),
    instruction: OUTPUT_INSTRUCTION.test(lower),
    lengthOrCount: LENGTH_OR_COUNT.test(lower),
    schema: SCHEMA.test(lower),
    example: OUTPUT_EXAMPLE.test(lower),
  };

  let score = 0;
  if (findings.formatNames.length > 0) score += NAMED_FORMAT_POINTS;
  if (findings.instruction) score += INSTRUCTION_POINTS;
  if (findings.lengthOrCount) score += LENGTH_POINTS;
  if (findings.schema) score += SCHEMA_POINTS;
  if (findings.example) score += EXAMPLE_POINTS;
  return { score: clampScore(score), findings };
}
