/**
 * Role: does the prompt give the model an explicit persona, and how specific is it?
 *
 * Heuristics (points, capped at 100):
 * - An explicit role ("You are a ...", "Act as ...", "Take on the role of ...", "Role: ...",
 *   "As an experienced editor, ...") scores EXPLICIT_ROLE_BASE.
 *   - +10 when it comes early (the first 200 characters or first fifth of the prompt), because a
 *     role frames everything after it.
 *   - +15 when it names a profession ("copywriter", "data analyst", "tax lawyer" ...).
 *   - +10 for seniority or expertise ("senior", "experienced", "10 years", "expert").
 *   - +10 for a domain qualifier after the noun ("... in retail", "... who specialises in ...").
 * - A generic assistant ("You are a helpful assistant") with no profession is capped at
 *   GENERIC_ROLE_CAP: it sets no expertise.
 * - Only an implied perspective ("from the point of view of ...", "in the voice of ...")
 *   scores IMPLICIT_ROLE_SCORE.
 * - Nothing: 0.
 */
import type { TextSignals } from '../text-signals.js';
import { clampScore } from './score-math.js';

export type RoleKind = 'none' | 'implicit' | 'generic' | 'explicit';

export interface RoleFindings {
  readonly kind: RoleKind;
  readonly namesProfession: boolean;
  readonly hasSeniority: boolean;
  readonly hasDomain: boolean;
}

export interface RoleResult {
  readonly score: number;
  readonly findings: RoleFindings;
}

const EXPLICIT_ROLE_BASE = 55;
const EARLY_ROLE_BONUS = 10;
const PROFESSION_BONUS = 15;
const SENIORITY_BONUS = 10;
const DOMAIN_BONUS = 10;
const GENERIC_ROLE_CAP = 45;
const IMPLICIT_ROLE_SCORE = 30;
/** A role within this many characters (or the first fifth of the prompt) counts as "early". */
const EARLY_ROLE_CHARS = 200;

/** Each pattern captures the role phrase that follows the trigger (to the end of the sentence). */
const ROLE_TRIGGERS: readonly RegExp[] = [
  /\b(?:you are|you're|you will be|you will act as|you act as|you are now)\s+(?:an?|the|my|our)\s+([^.!?\n]{1,120})/,
  /\b(?:act|acting|behave) as\s+(?:an?|the|my|our)\s+([^.!?\n]{1,120})/,
  /\b(?:take on|assume|play|adopt|step into) the (?:role|persona|part|position) of\s+(?:an?\s+|the\s+)?([^.!?\n]{1,120})/,
  /\b(?:your role is(?: to be)?|role:|persona:|you are playing)\s*(?:an?\s+|the\s+)?([^.!?\n]{1,120})/,
  /\b(?:pretend (?:to be|you are)|imagine you are)\s+(?:an?\s+|the\s+)?([^.!?\n]{1,120})/,
];

/**
 * "As an experienced editor, ..." at a sentence start; the word after the comma is checked too.
 * A sentence starts at the start of the text, after `.`, `!` or `?` and any whitespace, or after
 * the first line break of a whitespace run: the lookbehind skips a line break with another one
 * before it in the same run (`\n`, horizontal whitespace, `\n`), which would only rescan the rest
 * of the run. Starting at every line break took quadratic time (tens of seconds on 100,000
 * newlines). The match and its index (the early-role bonus reads it) are unchanged: the first
 * line break of a run is the leftmost place a match through that run could start.
 */
const AS_A_ROLE = /(?:^|[.!?]\s*|\n(?<!\n[^\S\n]*\n)\s*)as an?\s+([^,.!?\n]{1,60}),\s*([\p{L}']+)/u;

const IMPLIED_PERSPECTIVE =
  /\b(?:from the (?:perspective|point of view|viewpoint|standpoint) of|in the (?:voice|style|shoes) of|through the eyes of|speaking as|wearing the hat of)\b/;

const PROFESSIONS =
  /\b(?:copywriter|writer|author|editor|journalist|reporter|novelist|poet|screenwriter|storyteller|blogger|translator|linguist|proofreader|engineer|developer|programmer|architect|devops|sre|administrator|analyst|scientist|researcher|statistician|mathematician|economist|historian|philosopher|consultant|advisor|adviser|strategist|marketer|recruiter|manager|director|executive|founder|entrepreneur|investor|trader|banker|accountant|auditor|lawyer|attorney|solicitor|paralegal|doctor|physician|nurse|pharmacist|dentist|psychologist|therapist|counsellor|counselor|coach|mentor|teacher|tutor|instructor|professor|lecturer|educator|trainer|designer|illustrator|photographer|chef|nutritionist|dietitian|critic|reviewer|interviewer|negotiator|salesperson|seller|representative|agent|planner|scheduler|librarian|archivist|curator|moderator|facilitator|tester|qa|hacker|pentester|technician|mechanic|electrician|pilot|officer|inspector|specialist|expert|professional|copyeditor|ghostwriter|speechwriter|technologist|ux|designer|product owner|product manager|project manager|data analyst|data scientist|support agent|customer support|recruiting|sommelier|guide|assistant)\b/g;

const GENERIC_ROLE_NOUNS = new Set(['assistant', 'agent', 'expert', 'specialist', 'professional', 'guide']);

const SENIORITY =
  /\b(?:senior|expert|experienced|seasoned|veteran|principal|lead|staff|chief|head|certified|licensed|professional|world-class|award-winning|renowned|leading|skilled|accomplished|specialist|\d+\+?\s*(?:years?|yrs))\b/;

const DOMAIN_QUALIFIER = /\b(?:specialis(?:ing|es|ed)|specializ(?:ing|es|ed)|focus(?:ed|ing|es) on|who|with|in|at|for|of|working|from)\s+[\p{L}\p{N}]/u;

const SELF_DESCRIPTION_STARTERS = new Set(['i', 'we', 'my', 'our', "i'm", "we're"]);

function roleFromPhrase(phrase: string, index: number, textLength: number): RoleResult {
  const professions = phrase.match(PROFESSIONS) ?? [];
  const namesProfession = professions.some((noun) => !GENERIC_ROLE_NOUNS.has(noun));
  const hasSeniority = SENIORITY.test(phrase);
  const hasDomain = DOMAIN_QUALIFIER.test(phrase);
  const isGeneric = !namesProfession && !hasSeniority && /\b(?:assistant|chatbot|bot|ai|model|helper|agent)\b/.test(phrase);

  let score = EXPLICIT_ROLE_BASE;
  if (index <= Math.max(EARLY_ROLE_CHARS, textLength / 5)) score += EARLY_ROLE_BONUS;
  if (namesProfession) score += PROFESSION_BONUS;
  if (hasSeniority) score += SENIORITY_BONUS;
  if (hasDomain) score += DOMAIN_BONUS;
  if (isGeneric) score = Math.min(score, GENERIC_ROLE_CAP);

  return {
    score: clampScore(score),
    findings: { kind: isGeneric ? 'generic' : 'explicit', namesProfession, hasSeniority, hasDomain },
  };
}

export function scoreRole(signals: TextSignals): RoleResult {
  const { lower } = signals;
  let best: RoleResult | undefined;
  const consider = (candidate: RoleResult): void => {
    if (best === undefined || candidate.score > best.score) best = candidate;
  };

  for (const trigger of ROLE_TRIGGERS) {
    const match = trigger.exec(lower);
    if (match !== null) consider(roleFromPhrase(match[1] ?? '', match.index, lower.length));
  }

  const asRole = AS_A_ROLE.exec(lower);
  if (asRole !== null) {
    const phrase = asRole[1] ?? '';
    const nextWord = asRole[2] ?? '';
    // "As a beginner, I ..." describes the author (context), not the model's role.
    const describesModel = !SELF_DESCRIPTION_STARTERS.has(nextWord);
    const professions = phrase.match(PROFESSIONS) ?? [];
    if (describesModel && professions.length > 0) {
      consider(roleFromPhrase(phrase, asRole.index, lower.length));
    }
  }

  if (best !== undefined) return best;
  if (IMPLIED_PERSPECTIVE.test(lower)) {
    return {
      score: IMPLICIT_ROLE_SCORE,
      findings: { kind: 'implicit', namesProfession: false, hasSeniority: false, hasDomain: false },
    };
  }
  return {
    score: 0,
    findings: { kind: 'none', namesProfession: false, hasSeniority: false, hasDomain: false },
  };
}
