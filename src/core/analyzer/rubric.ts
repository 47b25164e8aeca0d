/**
 * The analyzer's rubric: its dimensions, how they combine, and when a dimension earns a
 * suggestion. The judge's offline fallback reads the same table, so both explain scores alike.
 */

export const DIMENSIONS = ['clarity', 'role', 'task', 'context', 'format', 'constraints'] as const;

export type Dimension = (typeof DIMENSIONS)[number];

export type DimensionScores = Readonly<Record<Dimension, number>>;

/**
 * Weights of the overall score (they sum to 1). The task carries most: a prompt with no clear
 * task fails whatever else it has. Context and clarity come next because missing background and
 * ambiguity are the commonest causes of off-target answers. Format matters whenever the output
 * is consumed by a program or a template. Role and constraints refine a prompt that already
 * works, so they weigh least.
 */
export const DIMENSION_WEIGHTS: Readonly<Record<Dimension, number>> = {
  task: 0.25,
  context: 0.2,
  clarity: 0.2,
  format: 0.15,
  role: 0.1,
  constraints: 0.1,
};

/** A dimension at or above this score is good enough that a suggestion would be noise. */
export const SUGGESTION_THRESHOLD = 70;

/** More than this many suggestions stops being a to-do list and becomes a lecture. */
export const MAX_SUGGESTIONS = 6;

export function overallScore(scores: DimensionScores): number {
  let total = 0;
  for (const dimension of DIMENSIONS) total += scores[dimension] * DIMENSION_WEIGHTS[dimension];
  return Math.round(Math.min(100, Math.max(0, total)));
}
