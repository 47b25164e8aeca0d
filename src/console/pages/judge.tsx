/**
 * Judge: score a prompt (or an output) against optional criteria with run_judge, with a model
 * the account may use, and read the verdict, the reasoning and the suggestions. It costs credits
 * as the API call does.
 */
import type { JSX } from 'preact';
import { ERROR_TABLE, type PorchError } from '../../core/errors.js';
import { JUDGE_MAX_CRITERIA_CHARS, JUDGE_MAX_PROMPT_CHARS, type JudgeThresholds } from '../../core/judge/index.js';
import { listModels } from '../../operations/list-models.js';
import type { OperationOutput } from '../../operations/operation.js';
import { runJudge } from '../../operations/run-judge.js';
import { CONSOLE_PATHS } from '../../operations/site-paths.js';
import { formBody, formValue, type PageContext, type PageRegistrar } from '../console-pages.js';
import { Notice, PostForm } from './layout.js';
import { textareaContent } from './format.js';
import { typedText } from './run/results.js';

const PATH = `${CONSOLE_PATHS.root}/judge`;

type Judged = OperationOutput<typeof runJudge>;

const VERDICT_BADGES: Record<Judged['verdict'], string> = { pass: 'badge-success', needs_revision: 'badge-warn', fail: 'badge-danger' };

export interface JudgeDependencies {
  /** The deployment's thresholds (judge.pass_threshold, judge.needs_revision_threshold): what the verdicts follow. */
  thresholds: JudgeThresholds;
}

/**
 * A score as the API gives it, with at most one decimal, cut rather than rounded: 69.96 reads
 * 69.9, never 70, which would contradict a verdict of needs revision under a pass mark of 70.
 */
const SCORE_FORMAT = new Intl.NumberFormat('en', { maximumFractionDigits: 1, roundingMode: 'trunc' });

function scoreText(score: number): string {
  return SCORE_FORMAT.format(score);
}

interface ModelChoice {
  models: string[];
  /** What the select starts on: the server's default when the account may use it, else the first it may. */
  selected: string | undefined;
}

/** The models the account may name (list_models: its plan and the organisation's EU-only policy), in the deployment's order. */
async function modelChoice(ctx: PageContext, chosen: string | undefined): Promise<ModelChoice> {
  const listed = await ctx.api.call(listModels, {});
  if (!listed.ok) throw listed.error;
  const models = listed.data.items.map((model) => model.id);
  return { models, selected: chosen ?? listed.data.default_model ?? models[0] };
}

function Scores({ judged, thresholds }: { judged: Judged; thresholds: JudgeThresholds }): JSX.Element {
  return (
    <section class="panel result" aria-labelledby="judged-heading" id="result">
      {/* biome-ignore lint/a11y/noAutofocus: the verdict sits below the form (out of sight on a phone) and is the answer to the action just taken: focus moves to it, as to an error notice. */}
      <h2 id="judged-heading" tabIndex={-1} autoFocus>
        Verdict
      </h2>
      <div class="cards">
        <div class="card">
          <div class="label">Score</div>
          <div class="figure">
            {scoreText(judged.score)}
            <span class="muted"> / 100</span>
          </div>
          <meter min={0} max={100} low={thresholds.needsRevision} high={thresholds.pass} optimum={100} value={judged.score} aria-label="Score out of 100">
            {scoreText(judged.score)} of 100
          </meter>
          <p class="hint">
            Pass from {scoreText(thresholds.pass)}, needs revision from {scoreText(thresholds.needsRevision)}.
          </p>
        </div>
        <div class="card">
          <div class="label">Verdict</div>
          <div class="figure">
            <span class={`badge ${VERDICT_BADGES[judged.verdict]}`}>{judged.verdict.replace('_', ' ')}</span>
          </div>
        </div>
      </div>
      <h3>Reasoning</h3>
      <p class="prose">{judged.reasoning}</p>
      <h3>Suggestions</h3>
      {judged.suggestions.length === 0 ? (
        <p class="empty">No suggestions.</p>
      ) : (
        <ol>
          {judged.suggestions.map((suggestion) => (
            <li key={suggestion}>{suggestion}</li>
          ))}
        </ol>
      )}
    </section>
  );
}

interface JudgeState {
  prompt?: string;
  criteria?: string;
  model?: string | undefined;
  judged?: Judged;
  error?: PorchError;
}

async function show(ctx: PageContext, deps: JudgeDependencies, state: JudgeState = {}): Promise<void> {
  const choice = await modelChoice(ctx, state.model);
  ctx.render({
    title: 'Judge',
    active: 'judge',
    address: ctx.req.originalUrl,
    status: state.error ? ERROR_TABLE[state.error.code].status : undefined,
    body: (
      <section>
        <h1>Judge</h1>
        <p class="lead">
          Score a prompt, or a model's output, from 0 to 100, with reasoning and concrete suggestions. Costs credits unless a BYOK key is active.
        </p>
        {state.error ? <Notice kind="error">{state.error.message}</Notice> : null}
        <PostForm action={PATH} csrfToken={ctx.signedIn.csrfToken} class="stack panel">
          <div class="field">
            <label for="prompt">Prompt</label>
            <textarea id="prompt" name="prompt" rows={8} maxLength={JUDGE_MAX_PROMPT_CHARS} class="code">
              {textareaContent(state.prompt ?? '')}
            </textarea>
          </div>
          <div class="field">
            <label for="criteria">Criteria (optional)</label>
            <textarea id="criteria" name="criteria" rows={3} maxLength={JUDGE_MAX_CRITERIA_CHARS} aria-describedby="criteria-hint">
              {textareaContent(state.criteria ?? '')}
            </textarea>
            <p class="hint" id="criteria-hint">
              What a good answer must do; judged in addition to the general rubric.
            </p>
          </div>
          {choice.models.length > 0 ? (
            <div class="field">
              <label for="model">Model</label>
              <select id="model" name="model" aria-describedby="model-hint">
                {choice.models.map((model) => (
                  <option value={model} selected={model === choice.selected} key={model}>
                    {model}
                  </option>
                ))}
              </select>
              <p class="hint" id="model-hint">
                The models your plan and organisation allow.
              </p>
            </div>
          ) : null}
          <div class="actions">
            <button type="submit">Judge</button>
          </div>
        </PostForm>
        {state.judged ? <Scores judged={state.judged} thresholds={deps.thresholds} /> : null}
      </section>
    ),
  });
}

export function registerJudgePages(pages: PageRegistrar, deps: JudgeDependencies): void {
  pages.page('GET', PATH, async (ctx) => show(ctx, deps));
  pages.page('POST', PATH, async (ctx) => {
    const body = formBody(ctx.req);
    const prompt = typedText(formValue(body, 'prompt') ?? '');
    const typedCriteria = formValue(body, 'criteria');
    const criteria = typedCriteria === undefined ? undefined : typedText(typedCriteria);
    // Sent as chosen: a model the account may not use is refused by run_judge, with its own message.
    const model = formValue(body, 'model');
    const judged = await ctx.api.call(runJudge, { prompt, ...(criteria ? { criteria } : {}), ...(model === undefined ? {} : { model }) });
    if (!judged.ok) return show(ctx, deps, { prompt, criteria, model, error: judged.error });
    await show(ctx, deps, { prompt, criteria, model, judged: judged.data });
  });
}
