/**
 * Guardrails: the organisation's policy applied to every model call (model-calls.ts is the one
 * place every call passes). Each direction, the messages sent (`inputs`) and the model's answer
 * (`outputs`), is `off`, `report`, `redact` or `block`, acting on findings of at least
 * `min_severity`:
 * - `block` refuses the call with 422 CONTENT_BLOCKED, naming rule ids and positions, never the
 *   matched text (an input is refused before any provider sees it or any credit is reserved);
 * - `redact` sends the model (or returns to the caller) the text with each finding replaced by
 *   its typed placeholder (redact.ts);
 * - `report` changes nothing and returns the findings, without their text, with the result.
 */
import { GUARDRAIL_MODES, GUARDRAIL_SEVERITIES, type GuardrailMode, type GuardrailSeverity, type OrganisationRecord } from '../../db/store.js';
import type { ChatMessage } from '../ai/ai-types.js';
import { PorchError } from '../errors.js';
import { MAX_FINDINGS_PER_SCAN } from './limits.js';
import { createRedactor, redactText } from './redact.js';
import { SEVERITY_RANK, type Finding, type ScanResult } from './types.js';

export { GUARDRAIL_MODES, GUARDRAIL_SEVERITIES, type GuardrailMode, type GuardrailSeverity };

/** A finding as a guardrail reports it: where and what rule, never the matched text. */
export interface GuardrailFinding {
  direction: 'input' | 'output';
  /**
   * Index of the message in the call's messages (input), or of the part checked when the caller
   * checks parts of its own (checkInputParts, checkOutputParts: the judge's prompt and criteria, its
   * verdict's text); null for a whole answer.
   */
  message_index: number | null;
  rule_id: string;
  label: string;
  severity: Finding['severity'];
  start: number;
  end: number;
}

/** Most findings named in a CONTENT_BLOCKED message; the rest are counted. */
const MAX_FINDINGS_NAMED = 10;

export interface GuardrailScanner {
  scan(organisationId: string, text: string): Promise<ScanResult>;
}

function actionable(result: ScanResult, minimum: GuardrailSeverity): Finding[] {
  return result.findings.filter((finding) => SEVERITY_RANK[finding.severity] >= SEVERITY_RANK[minimum]);
}

/** What a finding's index counts: the call's messages, or the parts a caller checks itself. */
type TextUnit = 'message' | 'part';

function blocked(direction: 'input' | 'output', unit: TextUnit, findings: readonly GuardrailFinding[], incomplete: boolean): PorchError {
  const named = findings
    .slice(0, MAX_FINDINGS_NAMED)
    .map((finding) => `${finding.rule_id} at ${finding.message_index === null ? '' : `${unit} ${finding.message_index} `}[${finding.start}, ${finding.end})`);
  const more = findings.length > MAX_FINDINGS_NAMED ? ` and ${findings.length - MAX_FINDINGS_NAMED} more` : '';
  const what = direction === 'input' ? 'The request' : "The model's answer";
  const held = named.length > 0 ? `${what} holds content the organisation's guardrail blocks: ${named.join('; ')}${more}.` : '';
  const unread = incomplete
    ? `${held === '' ? what : ' It'} could not be checked completely (more than ${MAX_FINDINGS_PER_SCAN.toLocaleString('en')} findings, or an organisation rule reached its limit of matches or searches), so the guardrail refuses it; send it in smaller parts.`
    : '';
  return new PorchError('CONTENT_BLOCKED', `${held}${unread}`);
}

function report(direction: 'input' | 'output', messageIndex: number | null, findings: readonly Finding[]): GuardrailFinding[] {
  return findings.map((finding) => ({
    direction,
    message_index: messageIndex,
    rule_id: finding.rule_id,
    label: finding.label,
    severity: finding.severity,
    start: finding.start,
    end: finding.end,
  }));
}

/**
 * What the guardrail does with one scanned text under `mode`: the findings it acts on, and whether
 * it refuses the call. A scan that stopped early (`truncated`) may hold, past what it read or
 * listed, something the policy acts on whenever its overall severity reaches the minimum: `block`
 * refuses it, and so does `redact`, which cannot replace what it was not shown.
 */
function judge(mode: GuardrailMode, result: ScanResult, minimum: GuardrailSeverity): { acting: Finding[]; refuse: boolean; incomplete: boolean } {
  const acting = actionable(result, minimum);
  const incomplete = result.truncated && SEVERITY_RANK[result.severity] >= SEVERITY_RANK[minimum];
  const refuse = (mode === 'block' && acting.length > 0) || ((mode === 'block' || mode === 'redact') && incomplete);
  return { acting, refuse, incomplete };
}

export function createGuardrails(scanner: GuardrailScanner) {
  /**
   * `texts` after the guardrail `mode` of `direction`, each finding naming its text's index;
   * throws CONTENT_BLOCKED under `block`. One redaction numbering spans the texts: a value in
   * two of them reads alike, two values never do.
   */
  async function checkTexts(
    organisation: OrganisationRecord,
    direction: 'input' | 'output',
    unit: TextUnit,
    mode: GuardrailMode,
    texts: readonly string[],
  ): Promise<{ texts: readonly string[]; findings: GuardrailFinding[] }> {
    const findings: GuardrailFinding[] = [];
    let refuse = false;
    let incomplete = false;
    const redactor = createRedactor(texts);
    const checked: string[] = [];
    for (const [index, text] of texts.entries()) {
      const verdict = judge(mode, await scanner.scan(organisation.id, text), organisation.guardrailMinSeverity);
      findings.push(...report(direction, index, verdict.acting));
      refuse ||= verdict.refuse;
      incomplete ||= verdict.incomplete;
      checked.push(mode === 'redact' && verdict.acting.length > 0 ? redactor.redact(text, verdict.acting) : text);
    }
    if (refuse) throw blocked(direction, unit, findings, incomplete);
    return { texts: checked, findings };
  }

  return {
    /** The messages to send, after the input guardrail; throws CONTENT_BLOCKED under `block`. */
    async checkInput(
      organisation: OrganisationRecord,
      messages: readonly ChatMessage[],
    ): Promise<{ messages: readonly ChatMessage[]; findings: GuardrailFinding[] }> {
      const mode = organisation.guardrailInputs;
      if (mode === 'off') return { messages, findings: [] };
      const { texts, findings } = await checkTexts(
        organisation,
        'input',
        'message',
        mode,
        messages.map((message) => message.content),
      );
      if (mode !== 'redact') return { messages, findings };
      return {
        messages: messages.map((message, index) => (texts[index] === message.content ? message : { ...message, content: texts[index] ?? '' })),
        findings,
      };
    },

    /**
     * The parts of an answer its caller returns instead of the answer itself (the judge's
     * reasoning, then each suggestion), after the output guardrail; findings name each part's
     * index. Throws CONTENT_BLOCKED under `block`.
     */
    async checkOutputParts(organisation: OrganisationRecord, parts: readonly string[]): Promise<{ parts: readonly string[]; findings: GuardrailFinding[] }> {
      const mode = organisation.guardrailOutputs;
      if (mode === 'off') return { parts, findings: [] };
      const { texts, findings } = await checkTexts(organisation, 'output', 'part', mode, parts);
      return { parts: texts, findings };
    },

    /**
     * The parts of a request its caller builds its messages from (the judge's prompt, then its
     * criteria), after the input guardrail, so positions name what the caller sent rather than
     * the messages built around it; findings name each part's index. Throws CONTENT_BLOCKED under `block`.
     */
    async checkInputParts(organisation: OrganisationRecord, parts: readonly string[]): Promise<{ parts: readonly string[]; findings: GuardrailFinding[] }> {
      const mode = organisation.guardrailInputs;
      if (mode === 'off') return { parts, findings: [] };
      const { texts, findings } = await checkTexts(organisation, 'input', 'part', mode, parts);
      return { parts: texts, findings };
    },

    /** The answer to return, after the output guardrail; throws CONTENT_BLOCKED under `block`. */
    async checkOutput(organisation: OrganisationRecord, content: string): Promise<{ content: string; findings: GuardrailFinding[] }> {
      const mode = organisation.guardrailOutputs;
      if (mode === 'off') return { content, findings: [] };
      const { acting, refuse, incomplete } = judge(mode, await scanner.scan(organisation.id, content), organisation.guardrailMinSeverity);
      const findings = report('output', null, acting);
      if (refuse) throw blocked('output', 'part', findings, incomplete);
      return { content: mode === 'redact' && acting.length > 0 ? redactText(content, acting) : content, findings };
    },
  };
}

export type Guardrails = ReturnType<typeof createGuardrails>;
