/**
 * A workflow's DAG as an SVG drawn on the server from its layout (workflow-layout.ts, computed on
 * a worker thread), named (<title>, <desc>) and repeated as a text list of edges for screen readers.
 */
import type { JSX } from 'preact';
import { type LayoutResult, NODE_HEIGHT } from './workflow-layout.js';

function pathOf(points: ReadonlyArray<{ x: number; y: number }>): string {
  return points.map((point, index) => `${index === 0 ? 'M' : 'L'}${point.x.toFixed(1)},${point.y.toFixed(1)}`).join(' ');
}

export function WorkflowDag({ result, name }: { result: LayoutResult; name: string }): JSX.Element {
  if ('reason' in result) {
    return (
      <section class="panel dag" aria-labelledby="dag-heading">
        <h2 id="dag-heading">Graph</h2>
        <p class="empty">{result.reason}</p>
      </section>
    );
  }
  const { layout } = result;
  const description = `${layout.nodes.length} nodes and ${layout.edges.length} edges; each arrow points from a node to a node that reads its output.`;
  return (
    <section class="panel dag" aria-labelledby="dag-heading">
      <h2 id="dag-heading">Graph</h2>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: focusable, so a graph wider than the screen scrolls from the keyboard too (WCAG 2.1.1, axe's scrollable-region-focusable). */}
      <section class="dag-figure" tabIndex={0} aria-label={`Workflow graph of ${name}, scrollable`}>
        <svg
          role="img"
          aria-labelledby="dag-title dag-desc"
          viewBox={`0 0 ${layout.width} ${layout.height}`}
          width={layout.width}
          height={layout.height}
          xmlns="http://www.w3.org/2000/svg"
        >
          <title id="dag-title">{`Workflow graph of ${name}`}</title>
          <desc id="dag-desc">{description}</desc>
          <defs>
            <marker id="dag-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M0,0 L10,5 L0,10 z" class="dag-arrowhead" />
            </marker>
          </defs>
          {layout.edges.map((edge) => (
            <path key={`${edge.from}->${edge.to}`} d={pathOf(edge.points)} class="dag-edge" marker-end="url(#dag-arrow)" />
          ))}
          {layout.nodes.map((node) => (
            <g key={node.id} class="dag-node">
              <rect x={node.x - node.width / 2} y={node.y - NODE_HEIGHT / 2} width={node.width} height={NODE_HEIGHT} rx="6" />
              <text x={node.x} y={node.y - 4} text-anchor="middle" class="dag-id">
                {node.id}
              </text>
              <text x={node.x} y={node.y + 13} text-anchor="middle" class="dag-kind">
                {node.kind}
              </text>
            </g>
          ))}
        </svg>
      </section>
      <h3>Edges</h3>
      {layout.edges.length === 0 ? (
        <p class="muted">No node reads another: every node runs on the variables alone.</p>
      ) : (
        <ul class="dag-edges">
          {layout.edges.map((edge) => (
            <li key={`${edge.from}->${edge.to}`}>
              <code>{edge.from}</code> → <code>{edge.to}</code>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
