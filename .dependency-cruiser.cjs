/**
 * The arrows of ARCHITECTURE.md, checked by `npm test` (npm run lint:deps): dependencies point
 * inward, doors -> operations -> core -> the storage ports, and only the composition roots
 * (src/main.ts and the CLI) wire the parts together.
 */
const DOORS = '^src/(rest|mcp|console|cli|oauth)/';
const ENGINES = '^src/db/(sqlite|postgres)/';

module.exports = {
  forbidden: [
    {
      name: 'core-stays-inside',
      comment: 'Core is the domain: it never imports a door, an operation, a storage engine or the composition root.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: [DOORS, '^src/operations/', ENGINES, '^src/db/create-store', '^src/main\\.ts$', '^src/config\\.ts$', '^src/client/'] },
    },
    {
      name: 'domain-is-a-leaf',
      comment: 'core/domain holds the types the storage ports share with core; it imports nothing of Porch.',
      severity: 'error',
      from: { path: '^src/core/domain/' },
      to: { path: '^src/', pathNot: '^src/core/domain/' },
    },
    {
      name: 'storage-knows-no-core',
      comment: 'The storage ports and engines see only each other and the shared domain types, never core services.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^src/', pathNot: ['^src/db/', '^src/core/domain/'] },
    },
    {
      name: 'engines-stay-behind-the-factory',
      comment: 'Only create-store.ts (and an engine itself) may import a storage engine; everything else sees the ports.',
      severity: 'error',
      from: { path: '^src/', pathNot: [ENGINES, '^src/db/create-store\\.ts$'] },
      to: { path: ENGINES },
    },
    {
      name: 'core-uses-only-the-telemetry-api',
      comment:
        'Core reports spans through @opentelemetry/api alone; the trace SDK, the exporter and prom-client are wired by the composition root (src/observability), so a domain change never drags in an exporter.',
      severity: 'error',
      from: { path: '^src/(core|operations)/' },
      to: { path: 'node_modules/(prom-client|@opentelemetry/(?!api/))' },
    },
    {
      name: 'observability-is-wired-by-the-root',
      comment:
        'src/observability (metrics registry, trace SDK, operator endpoints) is built by the composition root and handed in; core, operations and the doors never import it, and it imports no door.',
      severity: 'error',
      from: { path: ['^src/(core|operations|rest|mcp|console|db|client)/'] },
      to: { path: '^src/observability/' },
    },
    {
      name: 'observability-knows-no-door',
      comment: 'The operator endpoints are mounted by the composition root; observability never reaches into a door.',
      severity: 'error',
      from: { path: '^src/observability/' },
      to: { path: [DOORS, '^src/operations/', '^src/main\\.ts$'] },
    },
    {
      name: 'operations-know-no-door',
      comment: 'Operations are data plus run; the doors read them, never the reverse.',
      severity: 'error',
      from: { path: '^src/operations/' },
      to: { path: [DOORS, '^src/main\\.ts$', '^src/config\\.ts$', '^src/client/'] },
    },
    {
      name: 'doors-never-import-each-other',
      comment: 'REST, MCP and the console are independent doors; the composition root mounts them side by side.',
      severity: 'error',
      from: { path: '^src/(rest|mcp|console|oauth)/' },
      to: { path: [DOORS, '^src/main\\.ts$'], pathNot: '^src/$1/' },
    },
    {
      name: 'client-ships-alone',
      comment: 'porch/client runs in other programs: it may read the operation definitions for types only.',
      severity: 'error',
      from: { path: '^src/client/' },
      to: { path: '^src/', pathNot: '^src/client/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-circular',
      comment: 'A cycle of run-time imports makes module initialisation order matter; cycles through type-only imports are erased at compile time.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'tests-reach-engines-through-one-helper',
      comment: 'Tests use the storage ports; engine-level inspection goes through test/helpers only.',
      severity: 'error',
      from: { path: '^test/', pathNot: ['^test/helpers/', '^test/db/'] },
      to: { path: ENGINES },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
