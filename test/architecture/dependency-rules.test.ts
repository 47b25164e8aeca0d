/**
 * The house's dependency rules (.dependency-cruiser.cjs, run by `npm test` over the real tree)
 * catch what they claim to: each rule is shown a small tree that breaks it, and one that keeps it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type IForbiddenRuleType } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { forbidden } = require('../../.dependency-cruiser.cjs') as { forbidden: IForbiddenRuleType[] };

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** Writes `files` (path → source) into a fresh tree and reports which rules its imports break. */
async function violations(files: Record<string, string>): Promise<string[]> {
  const root = mkdtempSync(join(tmpdir(), 'porch-layers-'));
  roots.push(root);
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  const result = await cruise(['src'], { validate: true, ruleSet: { forbidden }, baseDir: root, tsPreCompilationDeps: true });
  if (typeof result.output === 'string') throw new Error('dependency-cruiser answered text, not a report');
  return [...new Set(result.output.summary.violations.map((violation) => violation.rule.name))].sort();
}

const leaf = 'export const value = 1;\n';
const importing = (path: string) => `import { value } from '${path}';\nexport const copy = value;\n`;

describe('the dependency rules', () => {
  it('let the arrows of ARCHITECTURE.md through: door → operation → core → storage port', async () => {
    expect(
      await violations({
        'src/rest/route.ts': importing('../operations/op.js'),
        'src/operations/op.ts': importing('../core/service.js'),
        'src/core/service.ts': importing('../db/store.js'),
        'src/db/store.ts': importing('../core/domain/plans.js'),
        'src/core/domain/plans.ts': leaf,
        'src/db/create-store.ts': importing('./sqlite/index.js'),
        'src/db/sqlite/index.ts': importing('../store.js'),
      }),
    ).toEqual([]);
  });

  it('refuse core importing a door, an operation or an engine', async () => {
    expect(await violations({ 'src/core/service.ts': importing('../rest/route.js'), 'src/rest/route.ts': leaf })).toContain('core-stays-inside');
    expect(await violations({ 'src/core/service.ts': importing('../operations/op.js'), 'src/operations/op.ts': leaf })).toContain('core-stays-inside');
    expect(await violations({ 'src/core/service.ts': importing('../db/sqlite/index.js'), 'src/db/sqlite/index.ts': leaf })).toContain('core-stays-inside');
  });

  it('refuse a storage engine importing a core service', async () => {
    expect(await violations({ 'src/db/sqlite/credits.ts': importing('../../core/ids.js'), 'src/core/ids.ts': leaf })).toEqual(['storage-knows-no-core']);
  });

  it('refuse anything but the store factory reaching an engine', async () => {
    expect(await violations({ 'src/main.ts': importing('./db/sqlite/index.js'), 'src/db/sqlite/index.ts': leaf })).toEqual(['engines-stay-behind-the-factory']);
  });

  it('refuse one door importing another', async () => {
    expect(await violations({ 'src/rest/app.ts': importing('../mcp/server.js'), 'src/mcp/server.ts': leaf })).toEqual(['doors-never-import-each-other']);
  });

  it('refuse operations importing a door', async () => {
    expect(await violations({ 'src/operations/op.ts': importing('../mcp/server.js'), 'src/mcp/server.ts': leaf })).toEqual(['operations-know-no-door']);
  });

  it('refuse the client importing server code other than types', async () => {
    expect(await violations({ 'src/client/client.ts': importing('../operations/index.js'), 'src/operations/index.ts': leaf })).toEqual(['client-ships-alone']);
    expect(
      await violations({
        'src/client/client.ts': "import type { Op } from '../operations/index.js';\nexport type Alias = Op;\n",
        'src/operations/index.ts': 'export type Op = string;\n',
      }),
    ).toEqual([]);
  });

  it('refuse core or an operation importing prom-client or the OpenTelemetry SDK, and let the API through', async () => {
    const packages = {
      'node_modules/prom-client/package.json': '{"name":"prom-client","main":"index.js"}',
      'node_modules/prom-client/index.js': leaf,
      'node_modules/@opentelemetry/sdk-trace/package.json': '{"name":"@opentelemetry/sdk-trace","main":"index.js"}',
      'node_modules/@opentelemetry/sdk-trace/index.js': leaf,
      'node_modules/@opentelemetry/api/package.json': '{"name":"@opentelemetry/api","main":"index.js"}',
      'node_modules/@opentelemetry/api/index.js': leaf,
    };
    expect(await violations({ ...packages, 'src/core/telemetry/metrics.ts': importing('prom-client') })).toEqual(['core-uses-only-the-telemetry-api']);
    expect(await violations({ ...packages, 'src/operations/op.ts': importing('@opentelemetry/sdk-trace') })).toEqual(['core-uses-only-the-telemetry-api']);
    expect(await violations({ ...packages, 'src/core/telemetry/spans.ts': importing('@opentelemetry/api') })).toEqual([]);
  });

  it('let only the composition root import observability, which imports no door', async () => {
    expect(
      await violations({
        'src/main.ts': importing('./observability/metrics.js'),
        'src/observability/metrics.ts': importing('../core/telemetry/telemetry.js'),
        'src/core/telemetry/telemetry.ts': leaf,
      }),
    ).toEqual([]);
    expect(await violations({ 'src/core/service.ts': importing('../observability/metrics.js'), 'src/observability/metrics.ts': leaf })).toEqual([
      'observability-is-wired-by-the-root',
    ]);
    expect(await violations({ 'src/rest/app.ts': importing('../observability/metrics.js'), 'src/observability/metrics.ts': leaf })).toEqual([
      'observability-is-wired-by-the-root',
    ]);
    expect(await violations({ 'src/observability/endpoints.ts': importing('../rest/app.js'), 'src/rest/app.ts': leaf })).toEqual([
      'observability-knows-no-door',
    ]);
  });

  it('refuse a cycle of run-time imports', async () => {
    expect(await violations({ 'src/core/a.ts': importing('./b.js'), 'src/core/b.ts': importing('./a.js') })).toEqual(['no-circular']);
  });
});
