import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { PromptAnalysis } from '../../../src/core/analyzer/index.js';
import { DIMENSIONS, DIMENSION_WEIGHTS, MAX_SUGGESTIONS, analyzePrompt, promptAnalysisSchema } from '../../../src/core/analyzer/index.js';
import { DECENT_PROMPT, ONE_WORD_PROMPT, PROMPTS_BY_QUALITY, STRONG_PROMPT, VAGUE_PROMPT } from './sample-prompts.js';

const SITE_URL = 'http://127.0.0.1:3000';

function analyze(prompt: string, goal?: string): PromptAnalysis {
  return analyzePrompt({ prompt, goal }, { siteUrl: SITE_URL });
}

function hasSuggestion(analysis: PromptAnalysis, fragment: string): boolean {
  return analysis.suggestions.some((suggestion) => suggestion.includes(fragment));
}

function describeAnalysis(analysis: PromptAnalysis): string {
  return JSON.stringify({ scores: analysis.scores, overall: analysis.overall, suggestions: analysis.suggestions }, null, 2);
}

describe('analyzePrompt: ordering over real prompts', () => {
  const analyses = PROMPTS_BY_QUALITY.map(([name, prompt]) => [name, analyze(prompt)] as const);

  it('ranks overall scores strong > decent > vague > one-word', () => {
    for (let index = 1; index < analyses.length; index += 1) {
      const [weakerName, weaker] = analyses[index - 1] ?? [];
      const [strongerName, stronger] = analyses[index] ?? [];
      if (weaker === undefined || stronger === undefined) throw new Error('missing analysis');
      expect(stronger.overall, `${strongerName} vs ${weakerName}:\n${describeAnalysis(stronger)}\n${describeAnalysis(weaker)}`).toBeGreaterThan(weaker.overall);
    }
  });

  it('never ranks a weaker prompt above a stronger one on any dimension', () => {
    for (let index = 1; index < analyses.length; index += 1) {
      const [, weaker] = analyses[index - 1] ?? [];
      const [strongerName, stronger] = analyses[index] ?? [];
      if (weaker === undefined || stronger === undefined) throw new Error('missing analysis');
      for (const dimension of DIMENSIONS) {
        expect(stronger.scores[dimension], `${strongerName}, ${dimension}`).toBeGreaterThanOrEqual(weaker.scores[dimension]);
      }
    }
  });

  it('scores the strong prompt above the vague one on every dimension', () => {
    const strong = analyze(STRONG_PROMPT);
    const vague = analyze(VAGUE_PROMPT);
    for (const dimension of DIMENSIONS) {
      expect(strong.scores[dimension], dimension).toBeGreaterThan(vague.scores[dimension]);
    }
  });

  it('gives the fully specified prompt a high overall score and no suggestions', () => {
    const strong = analyze(STRONG_PROMPT);
    expect(strong.overall, describeAnalysis(strong)).toBeGreaterThanOrEqual(85);
    expect(strong.suggestions, describeAnalysis(strong)).toEqual([]);
  });

  it('gives a one-word prompt a low score and a suggestion about its length', () => {
    const oneWord = analyze(ONE_WORD_PROMPT);
    expect(oneWord.overall).toBeLessThan(15);
    expect(hasSuggestion(oneWord, 'very short (1 word)'), describeAnalysis(oneWord)).toBe(true);
  });

  it('computes overall as the documented weighted sum of the dimension scores', () => {
    for (const [, prompt] of PROMPTS_BY_QUALITY) {
      const analysis = analyze(prompt);
      const weighted = DIMENSIONS.reduce((sum, dimension) => sum + analysis.scores[dimension] * DIMENSION_WEIGHTS[dimension], 0);
      expect(analysis.overall).toBe(Math.round(weighted));
    }
    const totalWeight = DIMENSIONS.reduce((sum, dimension) => sum + DIMENSION_WEIGHTS[dimension], 0);
    expect(totalWeight).toBeCloseTo(1, 10);
  });
});

describe('analyzePrompt: suggestions follow what is missing', () => {
  const ROLE_LINE = 'You are a senior audio-product copywriter who specialises in travel gear.';

  it('asks for a role until one is added, and the role score rises', () => {
    const without = analyze(DECENT_PROMPT);
    const withRole = analyze(`${ROLE_LINE} ${DECENT_PROMPT}`);
    expect(hasSuggestion(without, 'Add a role'), describeAnalysis(without)).toBe(true);
    expect(hasSuggestion(withRole, 'Add a role'), describeAnalysis(withRole)).toBe(false);
    expect(withRole.scores.role).toBeGreaterThanOrEqual(85);
    expect(withRole.overall).toBeGreaterThan(without.overall);
  });

  it('asks to make a generic assistant role specific', () => {
    const generic = analyze(`You are a helpful assistant. ${DECENT_PROMPT}`);
    const specific = analyze(`${ROLE_LINE} ${DECENT_PROMPT}`);
    expect(generic.scores.role).toBeLessThan(specific.scores.role);
    expect(hasSuggestion(generic, 'Replace the generic assistant'), describeAnalysis(generic)).toBe(true);
  });

  it('asks for the output format until one is specified', () => {
    const without = analyze(DECENT_PROMPT);
    const withFormat = analyze(`${DECENT_PROMPT} Return a JSON object with the keys "headline" and "body"; the body is exactly 3 sentences.`);
    expect(hasSuggestion(without, 'Specify the output format'), describeAnalysis(without)).toBe(true);
    expect(hasSuggestion(withFormat, 'Specify the output format'), describeAnalysis(withFormat)).toBe(false);
    expect(withFormat.scores.format).toBeGreaterThanOrEqual(70);
  });

  it('names the missing audience in the context suggestion, and drops it once given', () => {
    const without = analyze(DECENT_PROMPT);
    const withAudience = analyze(`${DECENT_PROMPT} The audience is commuters who travel by train every day.`);
    expect(hasSuggestion(without, 'who the audience is'), describeAnalysis(without)).toBe(true);
    expect(hasSuggestion(withAudience, 'who the audience is'), describeAnalysis(withAudience)).toBe(false);
    expect(withAudience.scores.context).toBeGreaterThan(without.scores.context);
  });

  it('asks for the material a prompt refers to but does not include, until it is pasted', () => {
    const dangling = analyze('Summarise the following article for a busy executive in three bullet points.');
    const withArticle = analyze(
      'Summarise the following article for a busy executive in three bullet points.\n"""\nOur third-quarter revenue rose 12% on strong demand for the new subscription tier, while support costs fell after the self-service portal launched in July. Churn stayed flat at 3%.\n"""',
    );
    expect(hasSuggestion(dangling, 'does not include'), describeAnalysis(dangling)).toBe(true);
    expect(hasSuggestion(withArticle, 'does not include'), describeAnalysis(withArticle)).toBe(false);
    expect(withArticle.scores.clarity).toBeGreaterThan(dangling.scores.clarity);
    expect(withArticle.scores.context).toBeGreaterThan(dangling.scores.context);
  });

  it('names the vague words it found and stops once they are replaced', () => {
    const vague = analyze(VAGUE_PROMPT);
    const precise = analyze('Write a 100-word humorous story about a dog who learns to skateboard.');
    expect(vague.suggestions.find((suggestion) => suggestion.startsWith('Replace vague words'))).toContain('"something"');
    expect(hasSuggestion(precise, 'Replace vague words'), describeAnalysis(precise)).toBe(false);
    expect(precise.scores.clarity).toBeGreaterThan(vague.scores.clarity);
  });

  it('reports a contradiction even in an otherwise strong prompt, and scores its clarity lower', () => {
    const contradictory = analyze(`${STRONG_PROMPT}\n- Keep the body brief but exhaustive.`);
    const strong = analyze(STRONG_PROMPT);
    expect(contradictory.suggestions[0], describeAnalysis(contradictory)).toMatch(/^Resolve the contradiction: it asks for a brief answer/);
    expect(contradictory.scores.clarity).toBeLessThan(strong.scores.clarity);
  });

  it('detects numeric length limits that cannot both hold', () => {
    const analysis = analyze('Write an essay about the Roman Empire for students. Use at most 100 words and at least 500 words.');
    expect(hasSuggestion(analysis, 'at most 100 words and at least 500 words'), describeAnalysis(analysis)).toBe(true);
  });

  it('penalises all-caps shouting and suggests dropping it', () => {
    const calm = 'You must write a summary of the attached report. Do not use bullet points.';
    const shouted = 'YOU MUST WRITE A SUMMARY OF THE ATTACHED REPORT. DO NOT USE BULLET POINTS.';
    const calmAnalysis = analyze(calm);
    const shoutedAnalysis = analyze(shouted);
    expect(shoutedAnalysis.scores.clarity).toBeLessThan(calmAnalysis.scores.clarity);
    expect(hasSuggestion(shoutedAnalysis, 'all-caps'), describeAnalysis(shoutedAnalysis)).toBe(true);
    expect(hasSuggestion(calmAnalysis, 'all-caps')).toBe(false);
  });

  it('penalises runs of exclamation marks', () => {
    const calm = analyze('You must write a summary of the attached report. Do not use bullet points.');
    const exclaimed = analyze('You must write a summary of the attached report!!! Do not use bullet points!!');
    expect(exclaimed.scores.clarity).toBeLessThan(calm.scores.clarity);
  });

  it('does not mistake acronyms and capitalised section labels for shouting', () => {
    const analysis = analyze(`${STRONG_PROMPT}\nTASK NOTES: Return valid JSON for the API; keep URLs and SKU codes as given.`);
    expect(hasSuggestion(analysis, 'all-caps'), describeAnalysis(analysis)).toBe(false);
  });

  it('asks for a precise verb when the task is only "help me with ..."', () => {
    const weak = analyze('Can you help me with my essay about climate change for my history class?');
    const precise = analyze('Edit my essay about climate change for my history class: fix the structure and cut it to 800 words.');
    expect(hasSuggestion(weak, 'Say exactly what to do'), describeAnalysis(weak)).toBe(true);
    expect(weak.scores.task).toBeLessThan(precise.scores.task);
  });

  it('counts labelled tone and "Max N words" lines as constraints', () => {
    const bare = analyze('Draft a follow-up email to a client whose invoice is 30 days overdue.');
    const constrained = analyze('Draft a follow-up email to a client whose invoice is 30 days overdue. Tone: firm but friendly. Max 120 words.');
    expect(constrained.scores.constraints, describeAnalysis(constrained)).toBeGreaterThanOrEqual(70);
    expect(bare.scores.constraints).toBeLessThan(constrained.scores.constraints);
  });

  it('asks to turn a bare question into an instruction', () => {
    const analysis = analyze('What is the capital of France?');
    expect(hasSuggestion(analysis, 'Turn the question into an instruction'), describeAnalysis(analysis)).toBe(true);
  });

  it('orders suggestions weakest dimension first and returns at most the maximum', () => {
    const analysis = analyze(DECENT_PROMPT);
    const roleIndex = analysis.suggestions.findIndex((suggestion) => suggestion.startsWith('Add a role'));
    const constraintIndex = analysis.suggestions.findIndex((suggestion) => suggestion.startsWith('Tighten the constraints'));
    expect(analysis.scores.role).toBeLessThan(analysis.scores.constraints);
    expect(roleIndex, describeAnalysis(analysis)).toBeGreaterThanOrEqual(0);
    expect(constraintIndex, describeAnalysis(analysis)).toBeGreaterThan(roleIndex);
    for (const [, prompt] of PROMPTS_BY_QUALITY) {
      expect(analyze(prompt).suggestions.length).toBeLessThanOrEqual(MAX_SUGGESTIONS);
    }
  });

  it('does not read "answer as a JSON object" as a role', () => {
    const analysis = analyze('Answer as a JSON object with the keys "city" and "country". Which city hosted the 2012 Olympics?');
    expect(analysis.scores.role).toBe(0);
  });

  it('does not read the author describing themselves ("As a beginner, I ...") as a role', () => {
    const analysis = analyze('As a beginner, I want to learn Python. Explain list comprehensions with two examples.');
    expect(analysis.scores.role).toBe(0);
  });

  it('reads "As an experienced editor, ..." as a role', () => {
    const analysis = analyze('As an experienced editor of science magazines, review my draft introduction below for clarity.');
    expect(analysis.scores.role).toBeGreaterThanOrEqual(70);
  });
});

describe('analyzePrompt: the goal sharpens the suggestions', () => {
  it('says the prompt lacks JSON when the goal needs JSON, and not once the prompt asks for it', () => {
    const goal = 'Produce JSON our shop API can import';
    const without = analyze(DECENT_PROMPT, goal);
    const withJson = analyze(`${DECENT_PROMPT} Return only a JSON object with the keys "title" and "body".`, goal);
    expect(hasSuggestion(without, 'Your goal needs JSON output'), describeAnalysis(without)).toBe(true);
    expect(hasSuggestion(without, 'Specify the output format'), 'the goal suggestion replaces the generic one').toBe(false);
    expect(hasSuggestion(withJson, 'Your goal needs JSON'), describeAnalysis(withJson)).toBe(false);
  });

  it('asks for a machine-readable format when the goal is structured data without naming one', () => {
    const analysis = analyze(DECENT_PROMPT, 'structured data we can parse into our catalogue');
    expect(hasSuggestion(analysis, 'names no machine-readable format'), describeAnalysis(analysis)).toBe(true);
  });

  it('asks for the audience and the tone the goal mentions when the prompt omits them', () => {
    const analysis = analyze(DECENT_PROMPT, 'a friendly description for busy parents');
    expect(hasSuggestion(analysis, 'aimed at parents'), describeAnalysis(analysis)).toBe(true);
    expect(hasSuggestion(analysis, 'Your goal mentions "friendly"'), describeAnalysis(analysis)).toBe(true);
  });

  it('asks for a rule on missing information when the goal needs accuracy', () => {
    const goal = 'accurate answers with no hallucinated facts';
    const without = analyze(DECENT_PROMPT, goal);
    const withRule = analyze(`${DECENT_PROMPT} If a detail is not given, say so; do not guess.`, goal);
    expect(hasSuggestion(without, 'Your goal needs accurate answers'), describeAnalysis(without)).toBe(true);
    expect(hasSuggestion(withRule, 'Your goal needs accurate answers'), describeAnalysis(withRule)).toBe(false);
  });

  it('changes only the suggestions, never the scores', () => {
    const without = analyze(DECENT_PROMPT);
    const withGoal = analyze(DECENT_PROMPT, 'JSON for busy parents, accurate and friendly');
    expect(withGoal.scores).toEqual(without.scores);
    expect(withGoal.overall).toBe(without.overall);
  });
});

describe('analyzePrompt: determinism and robustness', () => {
  it('returns identical results for identical input, whatever was analysed in between', () => {
    const first = analyze(STRONG_PROMPT, 'JSON');
    for (const [, prompt] of PROMPTS_BY_QUALITY) analyze(prompt, 'structured data for kids');
    const second = analyze(STRONG_PROMPT, 'JSON');
    expect(second).toEqual(first);
  });

  it.each([
    ['an empty string', ''],
    ['whitespace only', ' \n\t  \r\n'],
    ['emoji only', '🙂🎉👩‍👩‍👧‍👦'],
    ['a lone high surrogate', 'Write \uD800 a poem'],
    ['a lone low surrogate', '\uDC00'],
    ['control characters', '\u0000\u0007\u001b[31m'],
    ['right-to-left text', 'اكتب قصيدة عن البحر'],
    ['a huge single word', 'a'.repeat(50_000)],
    ['many unclosed quotes and tags', '"<a <b <c '.repeat(2_000)],
  ])('handles %s without throwing and returns a schema-valid result', (_name, prompt) => {
    const analysis = analyze(prompt);
    expect(() => promptAnalysisSchema.parse(analysis)).not.toThrow();
  });

  it('scores a blank prompt 0 everywhere and says it is empty', () => {
    for (const prompt of ['', '   \n ']) {
      const analysis = analyze(prompt);
      expect(analysis.overall).toBe(0);
      for (const dimension of DIMENSIONS) expect(analysis.scores[dimension]).toBe(0);
      expect(hasSuggestion(analysis, 'The prompt is empty')).toBe(true);
    }
  });

  it('returns schema-valid integer scores for arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), fc.option(fc.string({ maxLength: 60 }), { nil: undefined }), (prompt, goal) => {
        const analysis = analyze(prompt, goal);
        promptAnalysisSchema.parse(analysis);
        for (const dimension of DIMENSIONS) {
          expect(Number.isInteger(analysis.scores[dimension])).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('promptAnalysisSchema', () => {
  it('describes every field, so the MCP tool and OpenAPI document explain them', () => {
    const jsonSchema = z.toJSONSchema(promptAnalysisSchema) as {
      description?: string;
      properties: Record<string, { description?: string; properties?: Record<string, { description?: string }> }>;
    };
    expect(jsonSchema.description).toBeTruthy();
    for (const [name, property] of Object.entries(jsonSchema.properties)) {
      expect(property.description, name).toBeTruthy();
      for (const [innerName, inner] of Object.entries(property.properties ?? {})) {
        expect(inner.description, `${name}.${innerName}`).toBeTruthy();
      }
    }
    expect(Object.keys(jsonSchema.properties).sort()).toEqual(['overall', 'refine_url', 'scores', 'suggestions']);
  });
});
