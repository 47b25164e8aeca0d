/**
 * A workflow's DAG as an SVG drawn on the server: the engine's own dependency analysis gives the
 * edges (a node depends on the nodes its templates reference), dagre lays them out, and the
 * picture is named (<title>, <desc>) and repeated as a text list of edges for screen readers.
 */
import dagre from '@dagrejs/dagre';
import type { JSX } from 'preact';
import { analyseWorkflowGraph } from '../../../core/engine/workflow-graph.js';
import { workflowDefinitionSchema } from '../../../core/engine/workflow-schema.js';

const NODE_HEIGHT = 44;
/** Wide enough for the id in the node's font (13 px, about 7.5 px a character) plus padding. */
const CHARACTER_WIDTH = 7.5;
const NODE_PADDING = 28;
const MIN_NODE_WIDTH = 110;

interface LaidOutNode {
  id: string;
  kind: string;
  x: number;
  y: number;
  width: number;
}

interface LaidOutEdge {
  from: string;
  to: string;
  points: Array<{ x: number; y: number }>;
}

export interface WorkflowLayout {
  nodes: LaidOutNode[];
  edges: LaidOutEdge[];
  width: number;
  height: number;
}

/** The layout of a definition, or the reason there is none (the definition does not parse or has no sound graph). */
export function layoutWorkflow(definition: unknown): { layout: WorkflowLayout } | { reason: string } {
  const parsed = workflowDefinitionSchema.safeParse(definition);
  if (!parsed.success) return { reason: 'The graph appears once the definition is valid.' };
  const { graph, issues } = analyseWorkflowGraph(parsed.data);
  if (issues.length > 0) return { reason: 'The graph appears once every reference names a variable or a node and there is no cycle.' };
  const nodes = parsed.data.nodes;

  const layout = new dagre.graphlib.Graph();
  layout.setGraph({ rankdir: 'TB', nodesep: 24, ranksep: 44, marginx: 8, marginy: 8 });
  layout.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) {
    const width = Math.max(MIN_NODE_WIDTH, Math.max(node.id.length, node.kind.length + 2) * CHARACTER_WIDTH + NODE_PADDING);
    layout.setNode(node.id, { width, height: NODE_HEIGHT });
  }
  const edges: Array<{ from: string; to: string }> = [];
  graph.dependencies.forEach((dependencies, index) => {
    const to = nodes[index]?.id;
    for (const dependency of dependencies) {
      const from = nodes[dependency]?.id;
      if (from === undefined || to === undefined) continue;
      edges.push({ from, to });
      layout.setEdge(from, to);
    }
  });
  dagre.layout(layout);

  const laidOut: LaidOutNode[] = nodes.map((node) => {
    const placed = layout.node(node.id);
    return { id: node.id, kind: node.kind, x: placed.x, y: placed.y, width: placed.width };
  });
  const laidOutEdges: LaidOutEdge[] = edges.map(({ from, to }) => ({ from, to, points: layout.edge(from, to)?.points ?? [] }));
  const size = layout.graph();
  return { layout: { nodes: laidOut, edges: laidOutEdges, width: Math.ceil(size.width ?? 0), height: Math.ceil(size.height ?? 0) } };
}

function pathOf(points: ReadonlyArray<{ x: number; y: number }>): string {
  return points.map((point, index) => `${index === 0 ? 'M' : 'L'}${point.x.toFixed(1)},${point.y.toFixed(1)}`).join(' ');
}

export function WorkflowDag({ definition, name }: { definition: unknown; name: string }): JSX.Element {
  const result = layoutWorkflow(definition);
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
      <div class="dag-figure">
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
      </div>
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
