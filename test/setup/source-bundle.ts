/**
 * Vitest global setup: the `porch` entry bundled from the working tree's sources, once per run,
 * for the tests that start Porch as a process (`porch serve`, `porch mcp`, the CLI's exit codes).
 * Under tsx every such process loads ~700 modules through tsx's loader, 1.6 s before it does
 * anything; the bundle starts in under 0.5 s. Its modules keep their source files'
 * `import.meta.url` (scripts/build-bundle.ts, `locations: 'sources'`), so they find migrations,
 * assets and packages exactly where the sources do.
 *
 * The folder is inside node_modules, so the bundle's native externals (better-sqlite3, re2)
 * resolve from this checkout; one folder per run, so two runs in one checkout do not collide.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { BUNDLE_ENTRY, buildBundle } from '../../scripts/build-bundle.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The bundled `porch` entry of this run (a file path). */
    sourceBundleEntry: string;
  }
}

const CACHE = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'porch-test-bundle');

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const outdir = join(CACHE, String(process.pid));
  await buildBundle(outdir, 'sources');
  project.provide('sourceBundleEntry', join(outdir, BUNDLE_ENTRY));
  return () => rm(outdir, { recursive: true, force: true });
}
