/**
 * Judge: score a prompt (or an output) against optional criteria with run_judge, and read the
 * verdict, the reasoning and the suggestions. It costs credits as the API call does.
 */
import type { JSX } from 'preact';
import { ERROR_TABLE, type PorchError } from '../../core/errors.js';
import { JUDGE_MAX_CRITERIA_CHARS, JUDGE_MAX_PROMPT_CHARS } from '../../core/judge/index.js';
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

function Scores({ judged }: { judged: Judged }): JSX.Element {
  return (
    <section class="panel result" aria-labelledby="judged-heading" id="result">
      <h2 id="judged-heading">Verdict</h2>
      <div class="cards">
        <div class="card">
          <div class="label">Score</div>
          <div class="figure">
            {Math.round(judged.score)}
            <span class="muted"> / 100</span>
          </div>
          <meter min={0} max={100} low={40} high={70} optimum={100} value={judged.score} aria-label="Score out of 100">
            {Math.round(judged.score)} of 100
          </meter>
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

function show(ctx: PageContext, state: { prompt?: string; criteria?: string; judged?: Judged; error?: PorchError } = {}): void {
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
          <div class="actions">
            <button type="submit">Judge</button>
          </div>
        </PostForm>
        {state.judged ? <Scores judged={state.judged} /> : null}
      </section>
    ),
  });
}

export function registerJudgePages(pages: PageRegistrar): void {
  pages.page('GET', PATH, async (ctx) => show(ctx));
  pages.page('POST', PATH, async (ctx) => {
    const body = formBody(ctx.req);
    const prompt = typedText(formValue(body, 'prompt') ?? '');
    const typedCriteria = formValue(body, 'criteria');
    const criteria = typedCriteria === undefined ? undefined : typedText(typedCriteria);
    const judged = await ctx.api.call(runJudge, { prompt, ...(criteria ? { criteria } : {}) });
    if (!judged.ok) return show(ctx, { prompt, criteria, error: judged.error });
    show(ctx, { prompt, criteria, judged: judged.data });
  });
}
