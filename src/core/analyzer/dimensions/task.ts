/**
 * Task: is there a direct instruction with a concrete verb and object, and how specific is the
 * deliverable?
 *
 * Heuristics (points, capped at 100):
 * - The strongest task sentence sets the base:
 *   - an imperative ("Write ...", "Please summarise ...", "Task: classify ...") or a request that
 *     leads to a task verb ("Can you explain ...", "Your task is to draft ...", "I need you to
 *     translate ..."): IMPERATIVE_BASE;
 *   - a request for a thing without a verb ("I need a cover letter ..."): NOUN_REQUEST_BASE;
 *   - a weak verb that does not say what to do ("help me with my essay" could mean write, edit
 *     or critique it): NOUN_REQUEST_BASE, and the task score is capped at WEAK_VERB_CAP;
 *   - a question ("What is ...?"): QUESTION_BASE, since a question is a task with an implied
 *     deliverable (an answer) but no stated shape;
 *   - a task verb used elsewhere in the text, not as an instruction: VERB_MENTION_BASE;
 *   - a deliverable noun alone ("poem"): DELIVERABLE_ONLY_BASE.
 * - Object after the verb, in content words (stop words and vague words excluded): 4+ words +20,
 *   2-3 words +12, 1 word +6; no object at all -10 (a verb with nothing to act on).
 * - A vague object, i.e. one headed by "something", "stuff", "it" ..., -10: the deliverable is unnamed.
 * - A named deliverable ("email", "table", "unit tests", "three headlines") +10, a quantity
 *   ("3", "five") +10, a topic or scope marker ("about", "into", "based on", "for") +10.
 * - An explicit task label ("Task:", "Your task is ...") +5; two or more imperative steps +5.
 */
import type { Sentence, TextSignals } from '../text-signals.js';
import { clampScore } from './score-math.js';

export type TaskKind = 'none' | 'deliverable_only' | 'mention' | 'question' | 'weak_verb' | 'noun_request' | 'imperative';

export interface TaskFindings {
  readonly kind: TaskKind;
  /** Content words after the task verb in the strongest task sentence. */
  readonly objectWordCount: number;
  readonly vagueObject: boolean;
  readonly hasDeliverable: boolean;
  readonly hasQuantity: boolean;
  readonly hasTopic: boolean;
}

export interface TaskResult {
  readonly score: number;
  readonly findings: TaskFindings;
}

const IMPERATIVE_BASE = 45;
const NOUN_REQUEST_BASE = 35;
const QUESTION_BASE = 30;
const VERB_MENTION_BASE = 15;
const DELIVERABLE_ONLY_BASE = 10;
const WEAK_VERB_CAP = 60;
const MISSING_OBJECT_PENALTY = 10;
const VAGUE_OBJECT_PENALTY = 10;
const SPECIFICITY_BONUS = 10;
const TASK_LABEL_BONUS = 5;
const STEPS_BONUS = 5;

const TASK_VERBS = new Set([
  'write',
  'rewrite',
  'draft',
  'compose',
  'create',
  'generate',
  'produce',
  'make',
  'build',
  'design',
  'develop',
  'implement',
  'code',
  'program',
  'summarise',
  'summarize',
  'condense',
  'shorten',
  'expand',
  'explain',
  'describe',
  'define',
  'outline',
  'list',
  'enumerate',
  'classify',
  'categorise',
  'categorize',
  'label',
  'tag',
  'sort',
  'rank',
  'rate',
  'score',
  'grade',
  'evaluate',
  'assess',
  'review',
  'critique',
  'analyse',
  'analyze',
  'compare',
  'contrast',
  'extract',
  'identify',
  'find',
  'detect',
  'locate',
  'translate',
  'convert',
  'transform',
  'format',
  'reformat',
  'edit',
  'proofread',
  'correct',
  'fix',
  'improve',
  'refactor',
  'debug',
  'optimise',
  'optimize',
  'simplify',
  'clarify',
  'paraphrase',
  'answer',
  'respond',
  'reply',
  'suggest',
  'recommend',
  'propose',
  'brainstorm',
  'plan',
  'schedule',
  'calculate',
  'compute',
  'estimate',
  'predict',
  'forecast',
  'solve',
  'prove',
  'derive',
  'test',
  'verify',
  'validate',
  'check',
  'audit',
  'research',
  'investigate',
  'prepare',
  'organise',
  'organize',
  'structure',
  'map',
  'match',
  'group',
  'cluster',
  'filter',
  'merge',
  'combine',
  'split',
  'fill',
  'complete',
  'continue',
  'tell',
  'give',
  'show',
  'teach',
  'provide',
  'name',
  'pick',
  'choose',
  'select',
  'decide',
  'determine',
  'draw',
  'sketch',
  'illustrate',
  'visualise',
  'visualize',
  'chart',
  'plot',
  'narrate',
  'document',
  'annotate',
  'comment',
  'highlight',
  'flag',
  'mark',
  'redact',
  'anonymise',
  'anonymize',
  'parse',
  'query',
  'search',
  'transcribe',
  'simulate',
  'interview',
  'quiz',
  'recap',
  'tabulate',
  'diagnose',
  'compile',
  'collect',
  'gather',
  'localise',
  'localize',
  'personalise',
  'personalize',
  'polish',
  'tighten',
  'lengthen',
]);

/** Verbs that ask for action without saying which: "help me with X" could mean write, fix or explain X. */
const WEAK_TASK_VERBS = new Set(['help', 'do', 'handle', 'work', 'deal', 'assist', 'look']);

/** Sentences that start like an imperative but state a rule ("Do not ...", "Make sure ..."). */
const RULE_START = /^(?:do not|make sure|make certain)\b/;

const DELIVERABLES =
  /\b(?:e-?mails?|letters?|essays?|articles?|blog posts?|posts?|tweets?|threads?|headlines?|titles?|subject lines?|summary|summaries|reports?|memos?|proposals?|plans?|outlines?|lists?|tables?|functions?|classes?|scripts?|quer(?:y|ies)|regexp?|unit tests?|tests?|code|programs?|poems?|haikus?|stor(?:y|ies)|slogans?|taglines?|descriptions?|bios?|cover letters?|résumés?|resumes?|press releases?|newsletters?|captions?|ads?|adverts?|landing pages?|faqs?|agendas?|checklists?|guides?|tutorials?|lessons?|quiz(?:zes)?|questions?|answers?|recipes?|itinerar(?:y|ies)|speech(?:es)?|pitch(?:es)?|abstracts?|reviews?|critiques?|analys[ie]s|comparisons?|translations?|categor(?:y|ies)|labels?|json|csv|diagrams?|charts?|paragraphs?|sentences?|bullet points?|steps?|ideas?|names?|options?|recommendations?|messages?|replies|responses?|prompts?|polic(?:y|ies)|contracts?|clauses?|job descriptions?|user stor(?:y|ies)|specifications?|specs?|documentation|readme|commit messages?|changelogs?|slides?|presentations?|sql|schema|endpoints?|components?|queries|lesson plans?|worksheets?|scenarios?|personas?|examples?|jokes?|limericks?|lyrics|songs?)\b/;

const QUANTITY = /\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|fifty|hundred|a single|a pair of|each|every)\b/;

const TOPIC_MARKER =
  /\b(?:about|on|into|for|from|based on|using|regarding|covering|explaining|describing|comparing|between|targeting|aimed at|that|which)\s+[\p{L}\p{N}"'“]/u;

/**
 * A "Task:" label at a line start, or "your task is". A line start is the start of the text or a
 * line break followed by horizontal whitespace only (`[^\S\n]`: every `\s` but `\n`), so each
 * whitespace run is scanned from its last line break alone. With `\s*` there, every line break of a
 * run rescanned the rest of it, which took quadratic time (tens of seconds on 100,000 newlines);
 * the lines that match are the same, because a run holding a line break still reaches the label
 * from its last one.
 */
const TASK_LABEL = /(?:^|\n)[^\S\n]*(?:#{1,6}\s*)?(?:task|your task|instructions?|objective|assignment)\s*:|\byour (?:task|job|assignment|mission) is\b/;

const LEADING_FILLERS =
  /^(?:(?:please|kindly|now|then|next|first|second|third|finally|lastly|also|and|so|just|quickly|carefully|step \d+|task|instructions?|your task|objective|goal|request)[,:]?\s+)+/;

const REQUEST_LEAD_IN =
  /\b(?:your (?:task|job|goal|mission|assignment) is to|you (?:will|should|must|need to|are to)|i (?:need|want|would like|'d like) you to|i(?:'d| would) like you to|(?:can|could|would|will) you(?: please)?|please|help me|i need to|i want to|let's|lets)\s+(?:(?:also|then|now|carefully|quickly|briefly)\s+)?([\p{L}'-]+)/u;

const NOUN_REQUEST =
  /\b(?:i need|i want|i'd like|i would like|looking for|give me|get me|send me)\s+(?:an?|the|some|my|\d+|one|two|three|four|five)\s+[\p{L}]/u;

const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

const STOP_WORDS = new Set([
  'a',
  'an',
  'the',
  'of',
  'to',
  'for',
  'in',
  'on',
  'at',
  'by',
  'with',
  'and',
  'or',
  'but',
  'me',
  'my',
  'us',
  'our',
  'you',
  'your',
  'is',
  'are',
  'be',
  'been',
  'was',
  'were',
  'some',
  'any',
  'about',
  'from',
  'into',
  'as',
  'please',
  'i',
  'we',
  'so',
  'then',
  'very',
  'really',
  'just',
  'up',
  'out',
  'that',
  'which',
  'who',
  'what',
  'how',
  'there',
  'here',
  'its',
  'their',
  'them',
  'they',
  'he',
  'she',
  'his',
  'her',
  'do',
  'does',
  'can',
  'could',
  'would',
  'will',
  'should',
  'also',
  'too',
  'if',
  'when',
  'than',
  'more',
  'most',
  'not',
]);

const VAGUE_OBJECT_WORDS = new Set([
  'something',
  'stuff',
  'thing',
  'things',
  'anything',
  'whatever',
  'it',
  'this',
  'that',
  'these',
  'those',
  'maybe',
  'etc',
  'bit',
  'kind',
  'sort',
  'somehow',
  'kinda',
  'sorta',
]);

interface TaskCandidate {
  readonly kind: TaskKind;
  readonly base: number;
  /** Text of the sentence after the task verb (empty when no verb). */
  readonly object: string;
  readonly sentence: Sentence;
}

function firstWord(text: string): string {
  WORD.lastIndex = 0;
  const match = WORD.exec(text);
  return match === null ? '' : match[0].toLowerCase();
}

function verbCandidate(verb: string, object: string, sentence: Sentence): TaskCandidate {
  return WEAK_TASK_VERBS.has(verb)
    ? { kind: 'weak_verb', base: NOUN_REQUEST_BASE, object, sentence }
    : { kind: 'imperative', base: IMPERATIVE_BASE, object, sentence };
}

function imperativeCandidate(sentence: Sentence): TaskCandidate | undefined {
  const stripped = sentence.lower.replace(LEADING_FILLERS, '');
  if (RULE_START.test(stripped)) return undefined;
  const verb = firstWord(stripped);
  if (TASK_VERBS.has(verb) || WEAK_TASK_VERBS.has(verb)) {
    return verbCandidate(verb, stripped.slice(stripped.indexOf(verb) + verb.length), sentence);
  }
  const request = REQUEST_LEAD_IN.exec(sentence.lower);
  if (request !== null) {
    const requestedVerb = (request[1] ?? '').toLowerCase();
    if (TASK_VERBS.has(requestedVerb) || WEAK_TASK_VERBS.has(requestedVerb)) {
      return verbCandidate(requestedVerb, sentence.lower.slice(request.index + request[0].length), sentence);
    }
  }
  const nounRequest = NOUN_REQUEST.exec(sentence.lower);
  if (nounRequest !== null) {
    // The object starts at the article or number after the request words.
    const object = sentence.lower.slice(nounRequest.index + nounRequest[0].length - 1);
    return { kind: 'noun_request', base: NOUN_REQUEST_BASE, object, sentence };
  }
  if (sentence.text.trimEnd().endsWith('?')) {
    return { kind: 'question', base: QUESTION_BASE, object: sentence.lower, sentence };
  }
  return undefined;
}

interface ObjectAnalysis {
  readonly contentWords: number;
  readonly vague: boolean;
}

function analyseObject(object: string): ObjectAnalysis {
  let contentWords = 0;
  let head: string | undefined;
  WORD.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = WORD.exec(object)) !== null) {
    const word = match[0].toLowerCase();
    if (VAGUE_OBJECT_WORDS.has(word)) head ??= word;
    else if (!STOP_WORDS.has(word)) {
      head ??= word;
      contentWords += 1;
    }
  }
  // The object is vague when its head is ("write something about dogs", "fix it"); a vague word
  // later on ("... about dogs, maybe") is clarity's concern, not the task's.
  return { contentWords, vague: head !== undefined && VAGUE_OBJECT_WORDS.has(head) };
}

function scoreCandidate(candidate: TaskCandidate, hasTaskLabel: boolean): TaskResult {
  const { contentWords, vague } = analyseObject(candidate.object);
  const sentence = candidate.sentence.lower;
  const hasDeliverable = DELIVERABLES.test(candidate.object) || DELIVERABLES.test(sentence);
  const hasQuantity = QUANTITY.test(sentence);
  const hasTopic = TOPIC_MARKER.test(candidate.object);

  let score = candidate.base;
  if (contentWords >= 4) score += 20;
  else if (contentWords >= 2) score += 12;
  else if (contentWords === 1) score += 6;
  else if (!vague) score -= MISSING_OBJECT_PENALTY;
  if (vague) score -= VAGUE_OBJECT_PENALTY;
  if (hasDeliverable) score += SPECIFICITY_BONUS;
  if (hasQuantity) score += SPECIFICITY_BONUS;
  if (hasTopic) score += SPECIFICITY_BONUS;
  if (hasTaskLabel) score += TASK_LABEL_BONUS;
  if (candidate.kind === 'weak_verb') score = Math.min(score, WEAK_VERB_CAP);

  return {
    score: clampScore(score),
    findings: {
      kind: candidate.kind,
      objectWordCount: contentWords,
      vagueObject: vague,
      hasDeliverable,
      hasQuantity,
      hasTopic,
    },
  };
}

export function scoreTask(signals: TextSignals): TaskResult {
  let best: TaskResult | undefined;
  let imperativeCount = 0;
  const hasTaskLabel = TASK_LABEL.test(signals.lower);
  for (const sentence of signals.sentences) {
    const candidate = imperativeCandidate(sentence);
    if (candidate === undefined) continue;
    if (candidate.kind === 'imperative') imperativeCount += 1;
    const result = scoreCandidate(candidate, hasTaskLabel);
    if (best === undefined || result.score > best.score) best = result;
  }

  if (best !== undefined) {
    const steps = imperativeCount >= 2 && signals.listItemCount >= 2 ? STEPS_BONUS : 0;
    return { score: clampScore(best.score + steps), findings: best.findings };
  }

  const hasVerb = signals.sentences.some((sentence) => {
    WORD.lastIndex = 0;
    let match: RegExpExecArray | null;
    while ((match = WORD.exec(sentence.lower)) !== null) {
      if (TASK_VERBS.has(match[0])) return true;
    }
    return false;
  });
  const hasDeliverable = DELIVERABLES.test(signals.lower);
  const kind: TaskKind = hasVerb ? 'mention' : hasDeliverable ? 'deliverable_only' : 'none';
  const base = hasVerb ? VERB_MENTION_BASE : hasDeliverable ? DELIVERABLE_ONLY_BASE : 0;
  return {
    score: base,
    findings: {
      kind,
      objectWordCount: 0,
      vagueObject: false,
      hasDeliverable,
      hasQuantity: false,
      hasTopic: false,
    },
  };
}
