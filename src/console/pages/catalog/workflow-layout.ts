/**
 * Lays a workflow's DAG out with dagre: the engine's own dependency analysis gives the edges (a
 * node depends on the nodes its templates reference). Pure and synchronous, and slow for large
 * dense graphs (seconds at 200 nodes), so the console runs it on a worker thread
 * (workflow-layout-worker.ts), never on the event loop.
 */
import dagre from '@dagrejs/dagre';
import { analyseWorkflowGraph } from '../../../core/engine/workflow-graph.js';
import { workflowDefinitionSchema } from '../../../core/engine/workflow-schema.js';

export const NODE_HEIGHT = 44;
/** Wide enough for the id in the node's font (13 px, about 7.5 px a character) plus padding. */
const CHARACTER_WIDTH = 7.5;
const NODE_PADDING = 28;
const MIN_NODE_WIDTH = 110;

export interface LaidOutNode {
  id: string;
  kind: string;
  x: number;
  y: number;
  width: number;
}

export interface LaidOutEdge {
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
export type LayoutResult = { layout: WorkflowLayout } | { reason: string };

export function layoutWorkflow(definition: unknown): LayoutResult {
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
