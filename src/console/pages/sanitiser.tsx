/**
 * Sanitiser: scan a text with the organisation's ruleset (scan_text) and see each finding marked
 * where it is, named by its rule and severity in words (readable without colour), with the
 * findings table and, on request, the redacted text.
 */
import type { JSX } from 'preact';
import { ERROR_TABLE, type PorchError } from '../../core/errors.js';
import { findingSpans } from '../../core/sanitiser/overlap.js';
import type { OperationOutput } from '../../operations/operation.js';
import { MAX_SCAN_TEXT_LENGTH, scanText } from '../../operations/scan-text.js';
import { CONSOLE_PATHS } from '../../operations/site-paths.js';
import { formBody, formValue, type PageContext, type PageRegistrar } from '../console-pages.js';
import { textareaContent, wholeNumber } from './format.js';
import { Notice, PostForm, TableWrap } from './layout.js';
import { typedText } from './run/results.js';

const PATH = `${CONSOLE_PATHS.root}/sanitiser`;

type Scanned = OperationOutput<typeof scanText>;
type Finding = Scanned['findings'][number];

const SEVERITY_BADGES: Record<Scanned['severity'], string> = { clean: 'badge-success', info: '', warn: 'badge-warn', block: 'badge-danger' };

/** The text cut at the findings, each a <mark> naming its rule and severity (overlapping ones share one, naming every rule). */
export function Highlighted({ text, findings }: { text: string; findings: Finding[] }): JSX.Element {
  const parts: Array<string | JSX.Element> = [];
  let cursor = 0;
  findingSpans(findings).forEach((span, index) => {
    if (span.start > cursor) parts.push(text.slice(cursor, span.start));
    const rules = span.findings.map((finding) => finding.rule_id).join(', ');
    parts.push(
      <mark
        class={`finding finding-${span.severity}`}
        title={span.findings.map((finding) => `${finding.label}: ${finding.rule_id}, ${finding.severity}`).join('; ')}
        key={index}
      >
        {text.slice(span.start, span.end)}
        <span class="finding-tag">
          {' '}
          [{rules} · {span.severity}]
        </span>
      </mark>,
    );
    cursor = span.end;
  });
  if (cursor < text.length) parts.push(text.slice(cursor));
  return <pre class="output highlighted">{parts}</pre>;
}

function FindingsTable({ findings }: { findings: Finding[] }): JSX.Element {
  return (
    <TableWrap label="Findings">
      <table>
        <caption class="muted table-caption">Findings, in order of position</caption>
        <thead>
          <tr>
            <th scope="col">Rule</th>
            <th scope="col">What</th>
            <th scope="col">Severity</th>
            <th scope="col">Match</th>
            <th scope="col" class="number">
              Position
            </th>
          </tr>
        </thead>
        <tbody>
          {findings.map((finding) => (
            <tr key={`${finding.start}-${finding.end}`}>
              <td>
                <code>{finding.rule_id}</code>
              </td>
              <td>{finding.label}</td>
              <td>
                <span class={`badge ${SEVERITY_BADGES[finding.severity]}`}>{finding.severity}</span>
              </td>
              <td>
                <code class="match">{finding.match}</code>
              </td>
              <td class="number">
                {wholeNumber(finding.start)}–{wholeNumber(finding.end)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function show(ctx: PageContext, state: { text?: string; redact?: boolean; scanned?: Scanned; error?: PorchError } = {}): void {
  const { scanned, text = '' } = state;
  ctx.render({
    title: 'Sanitiser',
    active: 'sanitiser',
    address: ctx.req.originalUrl,
    status: state.error ? ERROR_TABLE[state.error.code].status : undefined,
    body: (
      <section>
        <h1>Sanitiser</h1>
        <p class="lead">Scan text for personal data and secrets with your organisation's rules before it goes to a model. No AI, no credits.</p>
        {state.error ? <Notice kind="error">{state.error.message}</Notice> : null}
        <PostForm action={PATH} csrfToken={ctx.signedIn.csrfToken} class="stack panel">
          <div class="field">
            <label for="text">Text</label>
            <textarea id="text" name="text" rows={8} maxLength={MAX_SCAN_TEXT_LENGTH} class="code">
              {textareaContent(text)}
            </textarea>
          </div>
          <div class="checkboxes">
            <label>
              <input type="checkbox" name="redact" value="1" checked={state.redact === true} /> Also show the redacted text
            </label>
          </div>
          <div class="actions">
            <button type="submit">Scan</button>
          </div>
        </PostForm>
        {scanned ? (
          <section class="panel result" aria-labelledby="scan-heading" id="result">
            <h2 id="scan-heading">
              {scanned.findings.length === 0 ? 'No findings' : `${scanned.findings.length} finding${scanned.findings.length === 1 ? '' : 's'}`}{' '}
              <span class={`badge ${SEVERITY_BADGES[scanned.severity]}`}>{scanned.severity}</span>
            </h2>
            <h3>Text with findings marked</h3>
            <Highlighted text={text} findings={scanned.findings} />
            {scanned.findings.length > 0 ? <FindingsTable findings={scanned.findings} /> : null}
            {scanned.redacted_text === undefined ? null : (
              <>
                <h3>Redacted text</h3>
                <pre class="output" id="redacted-text">
                  {scanned.redacted_text}
                </pre>
                <div class="actions">
                  <button type="button" class="secondary" data-copy="#redacted-text">
                    Copy redacted text
                  </button>
                </div>
              </>
            )}
          </section>
        ) : null}
      </section>
    ),
  });
}

export function registerSanitiserPages(pages: PageRegistrar): void {
  pages.page('GET', PATH, async (ctx) => show(ctx));
  pages.page('POST', PATH, async (ctx) => {
    const body = formBody(ctx.req);
    // A textarea's text as typed (an empty one too): scan_text decides what it accepts.
    const text = typedText(typeof body.text === 'string' ? body.text : (formValue(body, 'text') ?? ''));
    const redact = formValue(body, 'redact') !== undefined;
    const scanned = await ctx.api.call(scanText, { text, redact });
    if (!scanned.ok) return show(ctx, { text, redact, error: scanned.error });
    show(ctx, { text, redact, scanned: scanned.data });
  });
}
