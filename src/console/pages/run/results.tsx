/**
 * How the run pages show what an execution produced: the answer, the figures (model, tokens,
 * credits, duration) and a workflow's per-node trace. The playground shows an execute answer;
 * the run detail shows the same shapes read back from the stored run.
 */
import type { ComponentChildren, JSX } from 'preact';
import type { z } from 'zod';
import type { TokenUsage } from '../../../core/ai/token-usage.js';
import { executeWorkflow } from '../../../operations/execute-workflow.js';
import { kindOfSection } from '../catalog/kinds.js';
import { credits, wholeNumber } from '../format.js';
import { TableWrap } from '../layout.js';

export type NodeResult = z.output<typeof executeWorkflow.output.shape.node_results>[number];

/** A stored run's result read as a workflow trace, when it is one. */
export function nodeResultsOf(result: unknown): NodeResult[] | null {
  if (typeof result !== 'object' || result === null || !('node_results' in result)) return null;
  const parsed = executeWorkflow.output.shape.node_results.safeParse(result.node_results);
  return parsed.success ? parsed.data : null;
}

const STATUS_BADGES: Record<string, string> = {
  completed: 'badge-success',
  failed: 'badge-danger',
  cancelled: 'badge-warn',
  skipped: '',
  queued: '',
  running: 'badge-warn',
};

/** A status as a badge: the word itself carries the meaning, the colour only repeats it. */
export function StatusBadge({ status }: { status: string }): JSX.Element {
  return <span class={`badge ${STATUS_BADGES[status] ?? ''}`}>{status}</span>;
}

/** Label/value pairs: the figures of a run. */
export function Facts({ items }: { items: Array<[string, ComponentChildren]> }): JSX.Element {
  return (
    <dl class="facts">
      {items.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * An identifier that may wrap after an underscore (`execute_` / `composition`) rather than
 * inside a word, where a narrow column would otherwise cut it.
 */
export function breakableAfterUnderscores(identifier: string): ComponentChildren {
  return identifier.split(/(?<=_)/).flatMap((part, index) => (index === 0 ? [part] : [<wbr key={index} />, part]));
}

export function tokensText(usage: TokenUsage): string {
  return `${wholeNumber(usage.total_tokens)} (${wholeNumber(usage.input_tokens)} in, ${wholeNumber(usage.output_tokens)} out)`;
}

export function creditsText(creditsCharged: number): string {
  return credits(creditsCharged);
}

/** A textarea's value as typed: browsers send line breaks as CRLF, which no prompt means. */
export function typedText(value: string): string {
  return value.replace(/\r\n/g, '\n');
}

/** A value as text: strings as they are, anything else as indented JSON. */
export function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** A node's kind; for a skill, composition or persona node, with a link to the version it ran. */
function NodeKind({ node }: { node: NodeResult }): JSX.Element {
  const kind = node.resource === undefined ? undefined : kindOfSection(`${node.kind}s`);
  if (node.resource === undefined || kind === undefined) return <>{node.kind}</>;
  return (
    <>
      {node.kind}{' '}
      <a
        href={`${kind.path}/${encodeURIComponent(node.resource.id)}/versions/${node.resource.version}`}
        aria-label={`v${node.resource.version}: the version of the ${kind.noun} it ran`}
      >
        v{node.resource.version}
      </a>
    </>
  );
}

/** A workflow's nodes in trace order, each with its status, model, tokens, time, and output or error. */
export function NodeTrace({ nodes }: { nodes: NodeResult[] }): JSX.Element {
  if (nodes.length === 0) return <p class="empty">No node trace.</p>;
  return (
    <>
      <TableWrap label="Node trace">
        <table>
          <caption class="muted table-caption">Per-node trace</caption>
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">Kind</th>
              <th scope="col">Status</th>
              <th scope="col">Model</th>
              <th scope="col" class="number">
                Tokens
              </th>
              <th scope="col" class="number">
                Duration
              </th>
            </tr>
          </thead>
          <tbody>
            {nodes.map((node) => (
              <tr key={node.node_id}>
                <td>
                  <code>{node.node_id}</code>
                </td>
                <td>
                  <NodeKind node={node} />
                </td>
                <td>
                  <StatusBadge status={node.status} />
                </td>
                <td>{node.model ?? '—'}</td>
                <td class="number">{node.token_usage ? wholeNumber(node.token_usage.total_tokens) : '—'}</td>
                <td class="number">{wholeNumber(node.duration_ms)} ms</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <h4>Node outputs</h4>
      <div class="node-outputs">
        {nodes.map((node) => (
          <details key={node.node_id} open={node.status === 'failed'}>
            <summary>
              <code>{node.node_id}</code> · {node.status}
              {node.error ? ` · ${node.error.code}` : ''}
            </summary>
            {node.error ? (
              <p class="notice notice-error">{node.error.message}</p>
            ) : node.output === null ? (
              <p class="muted">No output.</p>
            ) : (
              <pre class="output">{asText(node.output)}</pre>
            )}
          </details>
        ))}
      </div>
    </>
  );
}
