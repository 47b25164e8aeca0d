/**
 * The overlap policy. Detectors report candidates independently; where candidates of different
 * rules overlap, exactly one survives:
 *   1. the higher severity (so resolving overlaps never lowers the overall severity),
 *   2. then the more specific rule (rule-catalog.ts: a provider key beats the generic
 *      assignment around it, URL credentials beat the email inside them, a card beats a phone),
 *   3. then the longer match, then the earlier one.
 * Custom rules rank above every built-in rule at equal severity: the organisation wrote them
 * for exactly that text. Candidates of one rule that overlap are resolved the same way.
 *
 * One exception: an organisation rule never hides a built-in finding that reaches past it. A
 * keyword ("acme") inside an email or a URL with a password would otherwise leave the rest of
 * that value unreported, and unredacted under a `redact` guardrail. Both are then kept, the
 * only findings that may overlap, and redaction replaces the text either covers.
 */
import { SEVERITY_RANK, type Finding, type FindingSeverity } from './types.js';

/** The specificity of organisation rules: above every built-in rule's (rule-catalog.ts). */
export const CUSTOM_RULE_SPECIFICITY = 1_000;

export interface RankedCandidate {
  readonly ruleId: string;
  readonly label: string;
  readonly severity: FindingSeverity;
  readonly specificity: number;
  readonly start: number;
  readonly end: number;
}

function outranks(left: RankedCandidate, right: RankedCandidate): number {
  return (
    SEVERITY_RANK[right.severity] - SEVERITY_RANK[left.severity] ||
    right.specificity - left.specificity ||
    right.end - right.start - (left.end - left.start) ||
    left.start - right.start ||
    (left.ruleId < right.ruleId ? -1 : left.ruleId > right.ruleId ? 1 : 0)
  );
}

function toFinding(text: string, candidate: RankedCandidate): Finding {
  return {
    rule_id: candidate.ruleId,
    label: candidate.label,
    severity: candidate.severity,
    match: text.slice(candidate.start, candidate.end),
    start: candidate.start,
    end: candidate.end,
  };
}

/** Above this many candidates a cluster is resolved with a claim map instead of pairwise checks. */
const PAIRWISE_CLUSTER_LIMIT = 32;

function isCustom(candidate: RankedCandidate): boolean {
  return candidate.specificity >= CUSTOM_RULE_SPECIFICITY;
}

function overlaps(left: RankedCandidate, right: RankedCandidate): boolean {
  return left.start < right.end && right.start < left.end;
}

/** Whether `spans` together cover every unit of `candidate`. */
function coveredBy(candidate: RankedCandidate, spans: readonly RankedCandidate[]): boolean {
  let reach = candidate.start;
  for (const span of [...spans].sort((left, right) => left.start - right.start)) {
    if (span.start > reach) return false;
    reach = Math.max(reach, span.end);
  }
  return reach >= candidate.end;
}

/**
 * Whether `candidate` survives the candidates `kept` before it: it overlaps none of them, or it
 * is a built-in finding that overlaps only organisation rules and reaches past them.
 */
function survives(candidate: RankedCandidate, kept: readonly RankedCandidate[]): boolean {
  const overlapping = kept.filter((other) => overlaps(candidate, other));
  if (overlapping.length === 0) return true;
  return !isCustom(candidate) && overlapping.every(isCustom) && !coveredBy(candidate, overlapping);
}

/** What a unit of a cluster's claim map holds. */
const UNCLAIMED = 0;
const BUILT_IN_CLAIM = 1;
const CUSTOM_CLAIM = 2;

/** Resolves one group of transitively overlapping candidates by priority. */
function resolveCluster(cluster: readonly RankedCandidate[], clusterStart: number, clusterEnd: number, accepted: RankedCandidate[]): void {
  const byPriority = [...cluster].sort(outranks);
  if (cluster.length <= PAIRWISE_CLUSTER_LIMIT) {
    const kept: RankedCandidate[] = [];
    for (const candidate of byPriority) if (survives(candidate, kept)) kept.push(candidate);
    accepted.push(...kept);
    return;
  }
  // One flag per UTF-16 unit of the cluster's range: checking and claiming a span costs its
  // length, so a large cluster (many custom-rule matches inside one long match) stays linear.
  // It decides as `survives` does.
  const claimed = new Uint8Array(clusterEnd - clusterStart);
  for (const candidate of byPriority) {
    const span = claimed.subarray(candidate.start - clusterStart, candidate.end - clusterStart);
    if (isCustom(candidate)) {
      if (span.includes(BUILT_IN_CLAIM) || span.includes(CUSTOM_CLAIM)) continue;
      span.fill(CUSTOM_CLAIM);
    } else {
      if (span.includes(BUILT_IN_CLAIM) || !span.includes(UNCLAIMED)) continue;
      span.fill(BUILT_IN_CLAIM);
    }
    accepted.push(candidate);
  }
}

function byStartThenLonger(left: RankedCandidate, right: RankedCandidate): number {
  return left.start - right.start || right.end - left.end;
}

function isSortedByStart(candidates: readonly RankedCandidate[]): boolean {
  for (let index = 1; index < candidates.length; index += 1) {
    const previous = candidates[index - 1];
    const current = candidates[index];
    if (previous !== undefined && current !== undefined && byStartThenLonger(previous, current) > 0) return false;
  }
  return true;
}

/** Picks non-overlapping findings and returns them sorted by start, longer first on ties. */
export function resolveOverlaps(text: string, candidates: readonly RankedCandidate[]): Finding[] {
  const byStart = [...candidates].sort(byStartThenLonger);
  // Sweep into clusters of transitively overlapping candidates; most candidates overlap nothing.
  const accepted: RankedCandidate[] = [];
  let cluster: RankedCandidate[] = [];
  let clusterStart = 0;
  let clusterEnd = -1;
  const flush = (): void => {
    if (cluster.length === 1) accepted.push(...cluster);
    else if (cluster.length > 1) resolveCluster(cluster, clusterStart, clusterEnd, accepted);
    cluster = [];
  };
  for (const candidate of byStart) {
    if (cluster.length > 0 && candidate.start >= clusterEnd) flush();
    if (cluster.length === 0) {
      clusterStart = candidate.start;
      clusterEnd = candidate.end;
    } else {
      clusterEnd = Math.max(clusterEnd, candidate.end);
    }
    cluster.push(candidate);
  }
  flush();
  // Only clusters of several candidates push out of order; most texts have none, and a sorted
  // array is left as it is by the (stable) sort, so the sort runs only when something is out of order.
  if (!isSortedByStart(accepted)) accepted.sort(byStartThenLonger);
  return accepted.map((candidate) => toFinding(text, candidate));
}

/** Findings that overlap, as one stretch of the text: what a highlighter marks, or redaction replaces. */
export interface FindingSpan<Found extends Pick<Finding, 'start' | 'end' | 'severity'>> {
  start: number;
  end: number;
  /** The highest severity of its findings. */
  severity: FindingSeverity;
  findings: Found[];
}

/**
 * Groups findings sorted by start into spans of those that overlap: only an organisation rule
 * and a built-in finding reaching past it do (see above), and each must be shown whole.
 */
export function findingSpans<Found extends Pick<Finding, 'start' | 'end' | 'severity'>>(findings: readonly Found[]): FindingSpan<Found>[] {
  const spans: FindingSpan<Found>[] = [];
  for (const finding of findings) {
    const last = spans.at(-1);
    if (last !== undefined && finding.start < last.end) {
      last.end = Math.max(last.end, finding.end);
      if (SEVERITY_RANK[finding.severity] > SEVERITY_RANK[last.severity]) last.severity = finding.severity;
      last.findings.push(finding);
    } else {
      spans.push({ start: finding.start, end: finding.end, severity: finding.severity, findings: [finding] });
    }
  }
  return spans;
}
