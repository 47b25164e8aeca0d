/**
 * Turns the scorers' findings into concrete, ordered suggestions.
 *
 * Rules:
 * - A dimension scoring below SUGGESTION_THRESHOLD gets suggestions naming what is missing.
 *   A dimension at or above it gets none, with two exceptions that are defects rather than
 *   omissions and are always reported: a contradiction, and material referred to but missing.
 * - The optional goal adds suggestions where the prompt does not serve it (the goal needs JSON
 *   but the prompt asks for none; the goal names an audience, a tone or brevity the prompt never
 *   states; the goal needs accuracy but the prompt has no rule for missing information). These
 *   are reported whatever the dimension scores, since they are concrete mismatches. A goal
 *   suggestion for format or constraints replaces that dimension's generic one (it is the same
 *   advice, sharper); a goal audience suggestion takes the audience out of the generic context one.
 * - Ordered by impact: defects first, then the weakest dimension first, ties broken by the
 *   dimension's weight in the overall score, then by the suggestion's priority within the
 *   dimension. At most MAX_SUGGESTIONS.
 */
import type { ClarityFindings } from './dimensions/clarity.js';
import { LONG_SENTENCE_WORDS } from './dimensions/clarity.js';
import type { ConstraintFindings } from './dimensions/constraints.js';
import { TONE } from './dimensions/constraints.js';
import type { ContextFindings } from './dimensions/context.js';
import { AUDIENCE } from './dimensions/context.js';
import type { FormatFindings } from './dimensions/format.js';
import type { RoleFindings } from './dimensions/role.js';
import type { TaskFindings } from './dimensions/task.js';
import type { Dimension, DimensionScores } from './rubric.js';
import { DIMENSION_WEIGHTS, MAX_SUGGESTIONS, SUGGESTION_THRESHOLD } from './rubric.js';

export interface AnalyzerFindings {
  readonly role: RoleFindings;
  readonly task: TaskFindings;
  readonly context: ContextFindings;
  readonly format: FormatFindings;
  readonly constraints: ConstraintFindings;
  readonly clarity: ClarityFindings;
}

interface Suggestion {
  readonly dimension: Dimension;
  /** Lower comes first within a dimension. */
  readonly priority: number;
  readonly text: string;
  /** Reported even when the dimension scores high (a defect, not an omission). */
  readonly always?: boolean;
  /** Comes from the goal; replaces the dimension's generic suggestions. */
  readonly fromGoal?: boolean;
}

const STRUCTURED_GOAL =
  /\b(?:json|csv|yaml|xml|tsv|structured|machine[- ]readable|parse|parsable|parseable|programmatic(?:ally)?|spreadsheet|database|api|extract(?:ion)?|fields|schema)\b/;
const GOAL_FORMAT_NAMES: ReadonlyArray<readonly [pattern: RegExp, name: string, example: string]> = [
  [/\bjson\b/, 'JSON', 'Return only a JSON object with the keys "..." and "...", and no other text.'],
  [/\bcsv\b/, 'CSV', 'Return only CSV with a header row: column1,column2,...'],
  [/\byaml\b/, 'YAML', 'Return only YAML with the keys ...'],
  [/\bxml\b/, 'XML', 'Return only XML with the elements <...>...'],
  [/\btables?\b/, 'table', 'Answer as a Markdown table with the columns ...'],
  [/\bbullet(?:s|ed| points?| list)?\b/, 'bullet-list', 'Answer as 5 bullet points, one sentence each.'],
  [/\bmarkdown\b/, 'Markdown', 'Format the answer as Markdown with a heading per section.'],
];
/** Formats that a program can parse; a goal about structured data is served by any of them. */
const MACHINE_READABLE_FORMAT = /^(?:json|jsonl|json lines|yaml|toml|xml|csv|tsv|table|tabular|key[- ]value|sql)$/;
const BREVITY_GOAL = /\b(?:short|brief|concise|succinct|quick|tweet|one-liner|tl;?dr|summary|summari[sz]e|snippet)\b/;
const ACCURACY_GOAL =
  /\b(?:accura\w*|factual(?:ly)?|facts?|correct(?:ness)?|reliabl[ey]|hallucinat\w*|trustworthy|cite|citations?|sources?|grounded|truthful|verifiable)\b/;

function quoteList(words: readonly string[]): string {
  return words.map((word) => `"${word}"`).join(', ');
}

function joinParts(parts: readonly string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1] ?? ''}`;
}

function roleSuggestions(findings: RoleFindings): Suggestion[] {
  const dimension = 'role';
  switch (findings.kind) {
    case 'none':
      return [
        {
          dimension,
          priority: 0,
          text: "Add a role: start with 'You are a <expert> who ...', e.g. 'You are a senior support engineer who explains fixes to non-technical customers.'",
        },
      ];
    case 'implicit':
      return [
        {
          dimension,
          priority: 0,
          text: "State the role outright instead of implying a perspective: 'You are a <profession> with <experience> who ...'.",
        },
      ];
    case 'generic':
      return [
        {
          dimension,
          priority: 0,
          text: "Replace the generic assistant with a specific expert: 'You are a <seniority> <profession> specialising in <field> ...'.",
        },
      ];
    case 'explicit': {
      const missing: string[] = [];
      if (!findings.namesProfession) missing.push('the profession');
      if (!findings.hasSeniority) missing.push('the seniority or experience');
      if (!findings.hasDomain) missing.push('the field it specialises in');
      if (missing.length === 0) return [];
      return [
        {
          dimension,
          priority: 0,
          text: `Sharpen the role by naming ${joinParts(missing)}, e.g. 'You are a senior tax accountant specialising in small businesses.'`,
        },
      ];
    }
  }
}

function taskSuggestions(findings: TaskFindings): Suggestion[] {
  const dimension = 'task';
  if (findings.kind === 'none' || findings.kind === 'deliverable_only' || findings.kind === 'mention') {
    return [
      {
        dimension,
        priority: 0,
        text: "State the task as one direct instruction with a verb and an object, e.g. 'Write a 150-word product description of <product> for <audience>.'",
      },
    ];
  }
  if (findings.kind === 'question') {
    return [
      {
        dimension,
        priority: 0,
        text: "Turn the question into an instruction that names the deliverable, e.g. 'Explain <topic> in 5 bullet points for <audience>.'",
      },
    ];
  }
  if (findings.kind === 'weak_verb') {
    return [
      {
        dimension,
        priority: 0,
        text: "Say exactly what to do: 'help me with' or 'do' could mean write, edit or critique; use a precise verb, e.g. 'Edit my essay for structure and cut it to 800 words.'",
      },
    ];
  }
  if (findings.vagueObject) {
    return [
      {
        dimension,
        priority: 0,
        text: "Name the deliverable instead of 'something' or 'it': say what to produce, how many and about what, e.g. 'Write 3 subject lines for our spring sale email.'",
      },
    ];
  }
  const missing: string[] = [];
  if (!findings.hasDeliverable) missing.push('what exactly to produce');
  if (!findings.hasQuantity) missing.push('how many or how long');
  if (!findings.hasTopic) missing.push('about what or for whom');
  if (findings.objectWordCount < 2 && missing.length === 0) missing.push('the object of the task');
  return [
    {
      dimension,
      priority: 0,
      text: `Make the task specific: say ${joinParts(missing.length > 0 ? missing : ['what to produce, how many and about what'])}, e.g. 'Classify each review into positive, neutral or negative.'`,
    },
  ];
}

function contextSuggestions(findings: ContextFindings, audienceFromGoal: boolean): Suggestion[] {
  const dimension = 'context';
  const suggestions: Suggestion[] = [];
  if (findings.danglingReference) {
    suggestions.push({
      dimension,
      priority: 0,
      always: true,
      text: 'The prompt refers to material ("the following", "this text") that it does not include: paste it between delimiters, e.g. """<the text>""".',
    });
  }
  const missing: string[] = [];
  // The goal's own audience suggestion is sharper than this generic one.
  if (!findings.audience && !audienceFromGoal) missing.push('who the audience is');
  if (!findings.purpose) missing.push('what the result is for');
  if (!findings.background && !findings.situation) missing.push('the background of your situation');
  if (missing.length > 0) {
    suggestions.push({
      dimension,
      priority: 1,
      text: `Add the context the model cannot guess: ${joinParts(missing)}, e.g. 'The readers are first-time buyers; the goal is to reduce support tickets.'`,
    });
  }
  return suggestions;
}

function formatSuggestions(findings: FormatFindings): Suggestion[] {
  const dimension = 'format';
  if (findings.formatNames.length === 0 && !findings.instruction) {
    return [
      {
        dimension,
        priority: 0,
        text: "Specify the output format, e.g. 'Answer as a JSON object with the keys \"title\" and \"summary\"', 'a table with the columns ...' or '5 bullet points'.",
      },
    ];
  }
  if (!findings.lengthOrCount) {
    return [
      {
        dimension,
        priority: 0,
        text: "Say how long the output should be, e.g. 'at most 150 words' or 'exactly 5 bullet points'.",
      },
    ];
  }
  if (!findings.schema && !findings.example) {
    return [
      {
        dimension,
        priority: 0,
        text: 'Show the exact shape of the output: name the keys, columns or sections, or give one example of a good answer.',
      },
    ];
  }
  return [];
}

function constraintSuggestions(findings: ConstraintFindings): Suggestion[] {
  const dimension = 'constraints';
  if (findings.ruleSentenceCount === 0 && !findings.lengthLimit && !findings.tone) {
    return [
      {
        dimension,
        priority: 0,
        text: "Add constraints: what the answer must include or avoid, its length and tone, e.g. 'Use plain English, stay under 200 words and do not invent figures.'",
      },
    ];
  }
  const missing: string[] = [];
  if (!findings.lengthLimit) missing.push("a length limit ('at most 120 words')");
  if (!findings.uncertaintyRule) missing.push('what to do when information is missing (\'if the text does not say, answer "unknown"\')');
  if (!findings.tone) missing.push("the tone ('friendly and plain, no jargon')");
  if (!findings.successCriteria) missing.push('what a good answer must include');
  if (missing.length === 0) return [];
  return [
    {
      dimension,
      priority: 0,
      text: `Tighten the constraints: add ${joinParts(missing.slice(0, 2))}.`,
    },
  ];
}

function claritySuggestions(findings: ClarityFindings): Suggestion[] {
  const dimension = 'clarity';
  const suggestions: Suggestion[] = findings.contradictions.map((contradiction, index) => ({
    dimension,
    priority: index,
    always: true,
    text: `Resolve the contradiction: ${contradiction}. Keep one, or say which part each applies to.`,
  }));
  const next = suggestions.length;
  if (findings.wordCount === 0) {
    suggestions.push({
      dimension,
      priority: next,
      text: 'The prompt is empty: write what the model should do, for whom, and in what format.',
    });
  } else if (findings.wordCount < 12) {
    suggestions.push({
      dimension,
      priority: next,
      text: `The prompt is very short (${findings.wordCount} ${findings.wordCount === 1 ? 'word' : 'words'}): say what you want, for whom, and what a good answer looks like.`,
    });
  }
  if (findings.vagueWords.length > 0) {
    suggestions.push({
      dimension,
      priority: next + 1,
      text: `Replace vague words (${quoteList(findings.vagueWords)}) with specifics: name the thing, the amount and the quality you expect.`,
    });
  }
  if (findings.ambiguityMarkers.length > 0) {
    suggestions.push({
      dimension,
      priority: next + 2,
      text: `Remove hedges such as ${quoteList(findings.ambiguityMarkers)}: state each instruction as a decision.`,
    });
  }
  if (findings.shouting || findings.exclamationRuns > 0) {
    suggestions.push({
      dimension,
      priority: next + 3,
      text: "Drop the all-caps and '!!' emphasis: state each rule once, calmly, and say why it matters.",
    });
  }
  if (findings.longSentenceCount > 0) {
    suggestions.push({
      dimension,
      priority: next + 4,
      text: `Split the ${findings.longSentenceCount === 1 ? 'sentence' : `${findings.longSentenceCount} sentences`} over ${LONG_SENTENCE_WORDS} words into one instruction per sentence or a list.`,
    });
  }
  if (findings.needsStructure) {
    suggestions.push({
      dimension,
      priority: next + 5,
      text: 'Break the long prompt into sections with headings or lists, e.g. Role, Task, Context, Format, Rules.',
    });
  }
  return suggestions;
}

function goalSuggestions(goal: string, findings: AnalyzerFindings): Suggestion[] {
  const lower = goal.toLowerCase();
  const suggestions: Suggestion[] = [];
  const promptFormats = findings.format.formatNames;

  const namedFormat = GOAL_FORMAT_NAMES.find(([pattern]) => pattern.test(lower));
  if (namedFormat !== undefined) {
    const [pattern, name, example] = namedFormat;
    if (!promptFormats.some((format) => pattern.test(format))) {
      suggestions.push({
        dimension: 'format',
        priority: 0,
        fromGoal: true,
        text: `Your goal needs ${name} output, but the prompt does not ask for it: add '${example}' and show one example.`,
      });
    }
  } else if (STRUCTURED_GOAL.test(lower) && !promptFormats.some((format) => MACHINE_READABLE_FORMAT.test(format))) {
    suggestions.push({
      dimension: 'format',
      priority: 0,
      fromGoal: true,
      text: 'Your goal is structured data, but the prompt names no machine-readable format: add \'Return only a JSON object with the keys "..." and "..."\' and show one example object.',
    });
  }

  const audience = AUDIENCE.exec(lower);
  if (audience !== null && !findings.context.audience) {
    suggestions.push({
      dimension: 'context',
      priority: 1,
      fromGoal: true,
      text: `Your goal is aimed at ${audience[0]}, but the prompt never says so: add 'The audience is ${audience[0]} ...' so the model pitches the answer right.`,
    });
  }

  if (BREVITY_GOAL.test(lower) && !findings.constraints.lengthLimit) {
    suggestions.push({
      dimension: 'constraints',
      priority: 0,
      fromGoal: true,
      text: "Your goal needs a short result, but the prompt sets no length: add a hard limit, e.g. 'at most 50 words'.",
    });
  }
  const tone = TONE.exec(lower);
  if (tone !== null && !findings.constraints.tone) {
    suggestions.push({
      dimension: 'constraints',
      priority: 1,
      fromGoal: true,
      text: `Your goal mentions "${tone[0]}", but the prompt sets no tone: add e.g. 'Use a ${tone[0] === 'tone' || tone[0] === 'voice' ? '<adjective>' : tone[0]} tone.'`,
    });
  }
  if (ACCURACY_GOAL.test(lower) && !findings.constraints.uncertaintyRule) {
    suggestions.push({
      dimension: 'constraints',
      priority: 2,
      fromGoal: true,
      text: "Your goal needs accurate answers: add 'Use only the information given; if the answer is not there, say so instead of guessing.'",
    });
  }
  return suggestions;
}

/** Dimensions whose generic suggestion a goal suggestion supersedes (it says the same, sharper). */
const GOAL_SUPERSEDES: ReadonlySet<Dimension> = new Set<Dimension>(['format', 'constraints']);

export function buildSuggestions(scores: DimensionScores, findings: AnalyzerFindings, goal: string | undefined): string[] {
  const fromGoal = goal !== undefined && goal.trim().length > 0 ? goalSuggestions(goal, findings) : [];
  const supersededByGoal = new Set(fromGoal.map((suggestion) => suggestion.dimension).filter((dimension) => GOAL_SUPERSEDES.has(dimension)));
  const audienceFromGoal = fromGoal.some((suggestion) => suggestion.dimension === 'context');

  const generic: Suggestion[] = [
    ...roleSuggestions(findings.role),
    ...taskSuggestions(findings.task),
    ...contextSuggestions(findings.context, audienceFromGoal),
    ...formatSuggestions(findings.format),
    ...constraintSuggestions(findings.constraints),
    ...claritySuggestions(findings.clarity),
  ].filter((suggestion) => {
    if (suggestion.always === true) return true;
    if (scores[suggestion.dimension] >= SUGGESTION_THRESHOLD) return false;
    return !supersededByGoal.has(suggestion.dimension);
  });

  // Defects (contradictions, missing material) come first: they derail an answer outright.
  // Then the weakest dimension first; ties go to the dimension that weighs more overall.
  const ordered = [...fromGoal, ...generic].sort(
    (a, b) =>
      Number(b.always === true) - Number(a.always === true) ||
      scores[a.dimension] - scores[b.dimension] ||
      DIMENSION_WEIGHTS[b.dimension] - DIMENSION_WEIGHTS[a.dimension] ||
      a.priority - b.priority,
  );

  const texts: string[] = [];
  for (const suggestion of ordered) {
    if (!texts.includes(suggestion.text)) texts.push(suggestion.text);
    if (texts.length >= MAX_SUGGESTIONS) break;
  }
  return texts;
}
