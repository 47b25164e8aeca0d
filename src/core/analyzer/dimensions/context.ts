/**
 * Context: does the prompt give the background the model cannot guess?
 *
 * Heuristics (points per kind of context found, capped at 100):
 * - Material to work from (+25): a delimited block (``` fences, """ quotes, <tag>...</tag>,
 *   --- rules), a quoted passage of 8+ words, or "here is / the following / Text:" followed by at
 *   least 15 words.
 * - A labelled background section (+20): "Context:", "Background:", "## Situation", ...
 * - The audience (+20): "audience", "readers", "customers", "beginners", "executives", ...
 * - The purpose (+20): "so that", "in order to", "the goal is", "because", "will be used", ...
 * - The author's situation (+15): "I am a ...", "we are a ...", "our company/team/product ...".
 * - Substantive length (+5 / +10 / +15 at 30 / 60 / 120 words): longer prompts carry more
 *   background, but length alone is capped so padding cannot buy a high score.
 * A prompt that points at material it does not include ("summarise the following", "this text")
 * is flagged so the suggestions can ask for it.
 */
import type { TextSignals } from '../text-signals.js';
import { clampScore } from './score-math.js';

export interface ContextFindings {
  readonly providesInput: boolean;
  readonly background: boolean;
  readonly audience: boolean;
  readonly purpose: boolean;
  readonly situation: boolean;
  /** Refers to material ("the following", "this article") that the prompt does not contain. */
  readonly danglingReference: boolean;
}

export interface ContextResult {
  readonly score: number;
  readonly findings: ContextFindings;
}

const INPUT_POINTS = 25;
const BACKGROUND_POINTS = 20;
const AUDIENCE_POINTS = 20;
const PURPOSE_POINTS = 20;
const SITUATION_POINTS = 15;
const LENGTH_STEPS: ReadonlyArray<readonly [minWords: number, points: number]> = [
  [120, 15],
  [60, 10],
  [30, 5],
];

/**
 * A "Context:" or "Background" label at a line start. A line start is the start of the text or a
 * line break followed by horizontal whitespace only (`[^\S\n]`: every `\s` but `\n`), so each
 * whitespace run is scanned from its last line break alone. With `\s*` there, every line break of a
 * run rescanned the rest of it, which took quadratic time (tens of seconds on 100,000 newlines);
 * the lines that match are the same, because a run holding a line break still reaches the label
 * from its last one.
 */
const BACKGROUND_LABEL =
  /(?:^|\n)[^\S\n]*(?:#{1,6}\s*)?(?:context|background|situation|scenario|about (?:me|us|the (?:project|company|product|user))|details|information|project|setting|facts)\s*(?::|\n|$)/;

export const AUDIENCE =
  /\b(?:audience|readers?|readership|customers?|clients?|students?|pupils|learners|beginners?|novices?|newcomers|laypeople|lay readers|non-experts?|non-technical|stakeholders?|executives?|board|investors?|children|kids|teenagers|teens|parents|patients|employees|colleagues|recruiters?|hiring managers?|visitors|subscribers|followers|viewers|listeners|users?|developers|engineers|managers|team members|community|public|buyers|shoppers|prospects|donors|voters|citizens|tourists|seniors)\b/;

const PURPOSE =
  /\b(?:so that|so they|so we|so i|in order to|the (?:goal|purpose|aim|objective|intent) (?:is|of)|(?:goal|purpose|objective|use case)(?=\s*:)|because|since we|we (?:want|need|plan|hope) to|i (?:want|need|plan|hope) to|will be used|is used (?:for|to|in)|to help (?:them|us|me|our|the|my)|intended (?:for|to|as)|meant (?:for|to)|the reason)\b/;

const SITUATION =
  /\b(?:i am an?|i'm an?|i am the|i'm the|i work|i run|i manage|i teach|we are an?|we're an?|we sell|we offer|we run|we build|our (?:company|team|product|startup|business|app|website|site|client|clients|organisation|organization|store|shop|service|project|brand|school|agency|customers|users)|my (?:company|team|product|startup|business|app|website|client|project|manager|boss|class|students|audience)|currently|working on|at the moment)\b/;

/** Phrases that point at material the prompt is expected to carry. */
const MATERIAL_REFERENCE =
  /\b(?:below|above):|\b(?:the following|attached|(?:is|are|provided|given|pasted|shown|listed|included) (?:below|above)|(?:this|these|that) (?:text|article|document|doc|email|e-mail|code|snippet|data|dataset|file|passage|essay|transcript|report|paragraph|review|reviews|message|thread|list|table|paper|draft|letter|post|story|excerpt|notes|spreadsheet|csv|json|log|logs|page|content)|the (?:text|article|document|email|e-mail|code|snippet|passage|essay|transcript|excerpt|draft|paragraph|reviews|attachment))\b/;

export function scoreContext(signals: TextSignals): ContextResult {
  const { lower } = signals;
  const findings: ContextFindings = {
    providesInput: signals.providesInput,
    background: BACKGROUND_LABEL.test(lower),
    audience: AUDIENCE.test(lower),
    purpose: PURPOSE.test(lower),
    situation: SITUATION.test(lower),
    danglingReference: !signals.providesInput && MATERIAL_REFERENCE.test(lower),
  };

  let score = 0;
  if (findings.providesInput) score += INPUT_POINTS;
  if (findings.background) score += BACKGROUND_POINTS;
  if (findings.audience) score += AUDIENCE_POINTS;
  if (findings.purpose) score += PURPOSE_POINTS;
  if (findings.situation) score += SITUATION_POINTS;
  const lengthStep = LENGTH_STEPS.find(([minWords]) => signals.wordCount >= minWords);
  if (lengthStep !== undefined) score += lengthStep[1];

  return { score: clampScore(score), findings };
}
