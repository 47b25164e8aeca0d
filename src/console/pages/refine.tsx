/**
 * The refine page, where the link `analyze_prompt` hands out (`{site_url}/refine?prompt=...`)
 * lands: the prompt in an editable box with the analyzer's scores and suggestions, analysed again
 * as the author types (htmx posts the form to the analysis fragment after a pause) or, without
 * JavaScript, when the form is sent. Open to everyone: the analyzer is deterministic, local and
 * linear in the prompt's length, and this page takes no prompt longer than the link can carry.
 * A link whose prompt was cut to fit says so (`shortened_from`), and the page says its scores are
 * of that part.
 */
import type { JSX } from 'preact';
import {
  ANALYZER_MAX_PROMPT_CHARS,
  DIMENSIONS,
  type Dimension,
  REFINE_PROMPT_MAX_CODE_POINTS,
  REFINE_SHORTENED_FROM_PARAMETER,
  SUGGESTION_THRESHOLD,
} from '../../core/analyzer/index.js';
import type { PromptAnalysis } from '../../core/analyzer/index.js';
import { PorchError } from '../../core/errors.js';
import { analyzePrompt } from '../../operations/analyze-prompt.js';
import { CONSOLE_PATHS } from '../../operations/site-paths.js';
import { formBody, formValue, type PageRegistrar, type PublicPageContext } from '../console-pages.js';
import { textareaContent, wholeNumber } from './format.js';
import { Notice } from './layout.js';

const PATH = CONSOLE_PATHS.refine;
/** The fragment htmx swaps in as the author types: the analysis alone, without the frame. */
export const REFINE_ANALYSIS_PATH = `${CONSOLE_PATHS.refine}/analysis`;
const ANALYSIS_ID = 'analysis';
/** Below this an overall score reads as failing (the judge's own fail line). */
const LOW_SCORE = 40;

const DIMENSION_LABELS: Record<Dimension, { label: string; hint: string }> = {
  clarity: { label: 'Clarity', hint: 'Unambiguous sentences, no vague words or hedges.' },
  role: { label: 'Role', hint: 'Who the model should be.' },
  task: { label: 'Task', hint: 'A direct instruction and a concrete deliverable.' },
  context: { label: 'Context', hint: 'Audience, purpose and the material to work from.' },
  format: { label: 'Format', hint: 'The shape and length of the answer.' },
  constraints: { label: 'Constraints', hint: 'Rules, limits, tone, what to do when unsure.' },
};

/** What one analysis request produced: nothing yet (an empty box), the analysis, or why there is none. */
type Outcome = { kind: 'empty' } | { kind: 'analysed'; analysis: PromptAnalysis } | { kind: 'refused'; error: PorchError };

/** A link's prompt cut to fit: the characters the page shows, and the whole prompt's. */
interface Shortening {
  keptCharacters: number;
  wholeCharacters: number;
}

function codePointCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/**
 * Analyses `prompt` through the `analyze_prompt` operation, unless it is longer than the refine
 * link carries: such a prompt is refused before any work, with a message saying what to do.
 */
async function analyse(ctx: PublicPageContext, prompt: string | undefined, goal: string | undefined): Promise<Outcome> {
  if (prompt === undefined) return { kind: 'empty' };
  // Counting is one linear pass over at most the form body's limit; the analyzer itself never
  // sees more than REFINE_PROMPT_MAX_CODE_POINTS, which is what keeps anonymous use cheap.
  if (prompt.length > REFINE_PROMPT_MAX_CODE_POINTS && codePointCount(prompt) > REFINE_PROMPT_MAX_CODE_POINTS) {
    return {
      kind: 'refused',
      error: new PorchError(
        'VALIDATION_ERROR',
        `This prompt has ${wholeNumber(codePointCount(prompt))} characters; the refine page analyses prompts of up to ${wholeNumber(REFINE_PROMPT_MAX_CODE_POINTS)}. ` +
          'Shorten it, or analyse the whole prompt with the analyze_prompt MCP tool.',
      ),
    };
  }
  const result = await ctx.api.call(analyzePrompt, { prompt, ...(goal === undefined ? {} : { goal }) });
  return result.ok ? { kind: 'analysed', analysis: result.data } : { kind: 'refused', error: result.error };
}

function scoreClass(score: number): string {
  if (score >= SUGGESTION_THRESHOLD) return 'badge-success';
  return score >= LOW_SCORE ? 'badge-warn' : 'badge-danger';
}

function scoreWord(score: number): string {
  if (score >= SUGGESTION_THRESHOLD) return 'good';
  return score >= LOW_SCORE ? 'could be better' : 'weak';
}

/**
 * The analysis: overall score, one row per dimension, the suggestions; first, for a link whose
 * prompt was cut, that the scores are of the part shown. Swapped whole by htmx, so the notice
 * goes with the first edit, after which the scores are of the author's own text.
 */
export function Analysis({ outcome, shortening }: { outcome: Outcome; shortening?: Shortening | undefined }): JSX.Element {
  return (
    <section id={ANALYSIS_ID} class="refine-analysis" aria-live="polite" aria-labelledby="analysis-heading">
      <h2 id="analysis-heading">Analysis</h2>
      {outcome.kind === 'empty' ? <p class="empty">Write or paste a prompt to see its scores and suggestions.</p> : null}
      {outcome.kind === 'refused' ? <Notice kind="error">{outcome.error.message}</Notice> : null}
      {outcome.kind === 'analysed' && shortening ? (
        <Notice kind="info">
          The prompt was shortened to its first {wholeNumber(shortening.keptCharacters)} of {wholeNumber(shortening.wholeCharacters)} characters to fit in the
          link, and these scores are of that part. Analyse the whole prompt with the analyze_prompt MCP tool.
        </Notice>
      ) : null}
      {outcome.kind === 'analysed' ? <Scores analysis={outcome.analysis} /> : null}
    </section>
  );
}

function Scores({ analysis }: { analysis: PromptAnalysis }): JSX.Element {
  return (
    <>
      <div class="refine-overall">
        <span class="figure" data-score="overall">
          {analysis.overall}
        </span>
        <span class="label">
          overall score out of 100 · <span class={`badge ${scoreClass(analysis.overall)}`}>{scoreWord(analysis.overall)}</span>
        </span>
      </div>
      <ul class="refine-scores">
        {DIMENSIONS.map((dimension) => {
          const score = analysis.scores[dimension];
          const { label, hint } = DIMENSION_LABELS[dimension];
          return (
            <li key={dimension}>
              <span class="refine-dimension">
                <strong id={`score-${dimension}-label`}>{label}</strong> <span class="hint">{hint}</span>
              </span>
              <meter min={0} max={100} low={LOW_SCORE} high={SUGGESTION_THRESHOLD} optimum={100} value={score} aria-labelledby={`score-${dimension}-label`} />
              <span class="number" data-score={dimension}>
                {score}
              </span>
            </li>
          );
        })}
      </ul>
      <h3>Suggestions</h3>
      {analysis.suggestions.length === 0 ? (
        <p class="muted">None: every dimension scores {SUGGESTION_THRESHOLD} or more.</p>
      ) : (
        <ol class="refine-suggestions">
          {analysis.suggestions.map((suggestion) => (
            <li key={suggestion}>{suggestion}</li>
          ))}
        </ol>
      )}
    </>
  );
}

function RefinePage({
  prompt,
  goal,
  csrfToken,
  outcome,
  shortening,
}: {
  prompt: string;
  goal: string;
  csrfToken: string;
  outcome: Outcome;
  shortening: Shortening | undefined;
}): JSX.Element {
  // htmx posts the whole form (CSRF field included) to the fragment; `replace` drops an answer
  // still in flight when the author types on, so the last text always wins.
  const live = {
    'hx-post': REFINE_ANALYSIS_PATH,
    'hx-trigger': 'input changed delay:400ms',
    'hx-target': `#${ANALYSIS_ID}`,
    'hx-swap': 'outerHTML',
    'hx-sync': 'closest form:replace',
  };
  return (
    <section>
      <h1>Refine a prompt</h1>
      <p class="lead">
        Porch’s analyzer scores a prompt for clarity, role, task, context, format and constraints, and says what would improve it. Edit the prompt and the
        scores follow. It is deterministic, uses no AI model and costs no credits.
      </p>
      <div class="refine-layout">
        <form method="post" action={PATH} class="stack refine-form">
          <input type="hidden" name="_csrf" value={csrfToken} />
          <div class="field">
            <label for="prompt">Prompt</label>
            <textarea id="prompt" name="prompt" rows={14} aria-describedby="prompt-hint" {...live}>
              {textareaContent(prompt)}
            </textarea>
            <span id="prompt-hint" class="hint">
              Up to {wholeNumber(REFINE_PROMPT_MAX_CODE_POINTS)} characters. Analysed as you type.
            </span>
          </div>
          <div class="field">
            <label for="goal">Goal (optional)</label>
            <input id="goal" name="goal" type="text" value={goal} maxLength={2_000} placeholder="e.g. extract invoice fields as JSON" {...live} />
          </div>
          <div class="actions">
            <button type="submit">Analyse</button>
          </div>
        </form>
        <Analysis outcome={outcome} shortening={shortening} />
      </div>
    </section>
  );
}

function statusOf(outcome: Outcome): number {
  return outcome.kind === 'refused' ? outcome.error.status : 200;
}

/** A length as `shortened_from` writes it: decimal digits, no leading zero, no more than the longest prompt's six. */
const LENGTH_DIGITS = /^[1-9][0-9]{0,5}$/;

/**
 * The shortening a link's `shortened_from` states, when it is one a cut could have left: a whole
 * number of characters above the prompt shown and within what analyze_prompt accepts, beside a
 * prompt the page analysed. Anything else is ignored: the parameter is only ever shown as a
 * number, so a crafted link can at most state another length.
 */
function shorteningOf(value: unknown, prompt: string | undefined, outcome: Outcome): Shortening | undefined {
  const text = queryValue(value);
  if (text === undefined || prompt === undefined || outcome.kind !== 'analysed' || !LENGTH_DIGITS.test(text)) return undefined;
  const wholeCharacters = Number(text);
  const keptCharacters = codePointCount(prompt);
  return wholeCharacters > keptCharacters && wholeCharacters <= ANALYZER_MAX_PROMPT_CHARS ? { keptCharacters, wholeCharacters } : undefined;
}

async function renderPage(ctx: PublicPageContext, prompt: string | undefined, goal: string | undefined, shortenedFrom?: unknown): Promise<void> {
  const outcome = await analyse(ctx, prompt, goal);
  const shortening = shorteningOf(shortenedFrom, prompt, outcome);
  ctx.render({
    title: 'Refine a prompt',
    active: 'refine',
    status: statusOf(outcome),
    // Answering the form without JavaScript: reloading reads the prompt's address rather than
    // sending the form again (regression: the browser asked to resend). A prompt too long for an
    // address, or refused, leaves the bare page there, as the live analysis does.
    address: outcome.kind === 'analysed' && prompt !== undefined ? refinePath(prompt, goal) : PATH,
    body: <RefinePage prompt={prompt ?? ''} goal={goal ?? ''} csrfToken={ctx.csrfToken} outcome={outcome} shortening={shortening} />,
  });
}

/** A query parameter as one string (the last, if repeated); absent or empty reads as undefined. */
function queryValue(value: unknown): string | undefined {
  const single = Array.isArray(value) ? value[value.length - 1] : value;
  return typeof single === 'string' && single !== '' ? single : undefined;
}

/**
 * A response header's worth of address: Node refuses a request whose headers pass 16 KiB, so an
 * address longer than this could be shown but not reloaded (a prompt in a non-Latin script
 * takes up to twelve bytes a character once percent-encoded).
 */
const MAX_ADDRESS_BYTES = 8_192;

/** The page's address for this prompt, or the bare page when the prompt is too long to carry. */
function refinePath(prompt: string, goal: string | undefined): string {
  const query = new URLSearchParams({ prompt, ...(goal === undefined ? {} : { goal }) });
  const path = `${PATH}?${query.toString().replaceAll('+', '%20')}`;
  return path.length <= MAX_ADDRESS_BYTES ? path : PATH;
}

export function registerRefinePages(pages: PageRegistrar): void {
  pages.publicPage('GET', PATH, (ctx) =>
    renderPage(ctx, queryValue(ctx.req.query.prompt), queryValue(ctx.req.query.goal), ctx.req.query[REFINE_SHORTENED_FROM_PARAMETER]),
  );

  // Without JavaScript: the form is sent and the whole page comes back, analysed.
  pages.publicPage('POST', PATH, (ctx) => {
    const body = formBody(ctx.req);
    return renderPage(ctx, formValue(body, 'prompt'), formValue(body, 'goal'));
  });

  pages.publicPage('POST', REFINE_ANALYSIS_PATH, async (ctx) => {
    const body = formBody(ctx.req);
    const prompt = formValue(body, 'prompt');
    const outcome = await analyse(ctx, prompt, formValue(body, 'goal'));
    // The address bar follows the text, so reloading or sharing the page keeps the prompt; a
    // prompt cleared or refused leaves the bare page there (regression: reloading brought back
    // the last prompt analysed).
    ctx.res.setHeader('HX-Replace-Url', outcome.kind === 'analysed' && prompt !== undefined ? refinePath(prompt, formValue(body, 'goal')) : PATH);
    // htmx swaps only successful answers: a refusal is still a 200, its message in the fragment.
    ctx.fragment(<Analysis outcome={outcome} />);
  });
}
