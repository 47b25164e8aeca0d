/**
 * The dependency graph of a workflow definition: which node reads which, found from the
 * references in each node's template fields, and what makes a graph unusable (duplicate or
 * unknown names, cycles).
 */
import type { ValidationIssue } from '../validation.js';
import { nodeTemplateFields } from './node-fields.js';
import { parseTemplate } from './template.js';
import type { VariableDeclaration, WorkflowDefinition } from './workflow-schema.js';

/** The dependency graph of a definition, by node index. */
export interface WorkflowGraph {
  /** Index of each node id. */
  readonly indexById: ReadonlyMap<string, number>;
  /** For each node, the indices of the nodes it reads, each once, in order of first reference. */
  readonly dependencies: readonly (readonly number[])[];
}

/**
 * A declared variable both required and given a default: callers would be told to send a value
 * that a run never needs. A workflow's and a composition's declarations are held to this one
 * rule; `path` is where the list of declarations sits (`['variables']` in a request body).
 */
export function requiredWithDefaultIssues(
  variables: ReadonlyArray<Pick<VariableDeclaration, 'required' | 'default'>>,
  path: readonly PropertyKey[],
): ValidationIssue[] {
  return variables.flatMap((variable, index) =>
    variable.required && variable.default !== undefined
      ? [{ path: [...path, index, 'default'], message: 'a required variable cannot have a default (drop one of them)' }]
      : [],
  );
}

/**
 * Builds the dependency graph from the nodes' references and reports what makes it unusable:
 * duplicate ids, names that are both a variable and a node, references to unknown names, and
 * cycles. Cycles are only looked for when the names are sound, since a graph with duplicate or
 * unknown names has no well-defined edges.
 */
export function analyseWorkflowGraph(
  definition: Pick<WorkflowDefinition, 'variables' | 'nodes'>,
  parsedTemplate: (template: string) => { references: readonly string[] } = parseTemplate,
): { graph: WorkflowGraph; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const variableIndex = new Map<string, number>();
  definition.variables.forEach((variable, index) => {
    const first = variableIndex.get(variable.name);
    if (first !== undefined) {
      issues.push({
        path: ['variables', index, 'name'],
        message: `duplicate variable "${variable.name}" (also variables[${first}])`,
      });
    } else {
      variableIndex.set(variable.name, index);
    }
  });
  issues.push(...requiredWithDefaultIssues(definition.variables, ['variables']));

  const indexById = new Map<string, number>();
  definition.nodes.forEach((node, index) => {
    const first = indexById.get(node.id);
    if (first !== undefined) {
      issues.push({
        path: ['nodes', index, 'id'],
        message: `duplicate node id "${node.id}" (also nodes[${first}])`,
      });
      return;
    }
    indexById.set(node.id, index);
    if (variableIndex.has(node.id)) {
      issues.push({
        path: ['nodes', index, 'id'],
        message: `"${node.id}" is also a variable name; a name must mean one thing in templates`,
      });
    }
  });

  const dependencies = definition.nodes.map((node, index) => {
    const nodeDependencies: number[] = [];
    for (const field of nodeTemplateFields(node)) {
      for (const name of parsedTemplate(field.template).references) {
        const dependency = indexById.get(name);
        if (dependency !== undefined) {
          if (!nodeDependencies.includes(dependency)) nodeDependencies.push(dependency);
        } else if (!variableIndex.has(name)) {
          const suggestion = closestName(name, [...variableIndex.keys(), ...indexById.keys()]);
          issues.push({
            path: ['nodes', index, ...field.segments],
            message: `references unknown name "${name}"${suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`}`,
          });
        }
      }
    }
    return nodeDependencies;
  });

  const graph: WorkflowGraph = { indexById, dependencies };
  if (issues.length === 0) {
    const cycle = findCycle(graph);
    if (cycle !== undefined) {
      const names = cycle.map((index) => definition.nodes[index]?.id ?? String(index));
      issues.push({
        path: ['nodes'],
        message: `dependency cycle ${names.join(' -> ')} (each node reads the one before it)`,
      });
    }
  }
  return { graph, issues };
}

/**
 * A cycle as node indices in data-flow order, first node repeated at the end (`a -> b -> a`: b
 * reads a, a reads b), or undefined for an acyclic graph. Kahn's algorithm removes every node
 * outside cycles; each node left has a dependency that is also left, so following dependencies
 * from one of them must come back to a node already seen.
 */
function findCycle(graph: WorkflowGraph): number[] | undefined {
  const count = graph.dependencies.length;
  const remainingDependencies = graph.dependencies.map((list) => list.length);
  const dependants: number[][] = graph.dependencies.map(() => []);
  graph.dependencies.forEach((list, index) => {
    for (const dependency of list) dependants[dependency]?.push(index);
  });
  const queue: number[] = [];
  remainingDependencies.forEach((remaining, index) => {
    if (remaining === 0) queue.push(index);
  });
  const removed = new Array<boolean>(count).fill(false);
  for (let head = 0; head < queue.length; head += 1) {
    const index = queue[head] ?? 0;
    removed[index] = true;
    for (const dependant of dependants[index] ?? []) {
      const remaining = (remainingDependencies[dependant] ?? 0) - 1;
      remainingDependencies[dependant] = remaining;
      if (remaining === 0) queue.push(dependant);
    }
  }
  if (queue.length === count) return undefined;

  const start = removed.indexOf(false);
  const positionInWalk = new Map<number, number>();
  const walk: number[] = [];
  let current = start;
  while (!positionInWalk.has(current)) {
    positionInWalk.set(current, walk.length);
    walk.push(current);
    const next = (graph.dependencies[current] ?? []).find((dependency) => !removed[dependency]);
    if (next === undefined) return undefined; // cannot happen: see the comment above
    current = next;
  }
  // The walk follows "reads" edges; reverse it so the message reads in data-flow order.
  const cycle = walk.slice(positionInWalk.get(current) ?? 0).reverse();
  // Start at the node defined first, so the message is the same however the walk began.
  const earliest = cycle.indexOf(Math.min(...cycle));
  const rotated = [...cycle.slice(earliest), ...cycle.slice(0, earliest)];
  const first = rotated[0];
  return first === undefined ? undefined : [...rotated, first];
}

/** The known name closest to a misspelt one, when it is close enough to be a likely typo. */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  // Two edits catch transpositions and a dropped or doubled letter without suggesting noise.
  const maximumDistance = Math.min(2, Math.floor(name.length / 2));
  let best: string | undefined;
  let bestDistance = maximumDistance + 1;
  for (const candidate of candidates) {
    if (Math.abs(candidate.length - name.length) > maximumDistance) continue;
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance: Levenshtein plus adjacent transpositions. */
function editDistance(a: string, b: string): number {
  let previousPrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (previousPrevious[j - 2] ?? 0) + 1);
      }
      current.push(value);
    }
    previousPrevious = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}
