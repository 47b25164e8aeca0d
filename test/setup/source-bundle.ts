/**
 * Vitest global setup: where this run keeps its bundle of the `porch` entry (test/helpers/cli.ts,
 * `porchEntryArgs`, builds it from the working tree's sources on the first test that starts Porch
 * as a process), and its removal when the run ends. A run of unit tests alone never builds it.
 *
 * The folder is inside node_modules, so the bundle's native externals (better-sqlite3, re2)
 * resolve from this checkout; one folder per run, so two runs in one checkout do not collide.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder of this run's bundle of the sources (built on first use). */
    sourceBundleDir: string;
  }
}

const CACHE = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'porch-test-bundle');

export default function setup(project: TestProject): () => Promise<void> {
  const folder = join(CACHE, String(process.pid));
  project.provide('sourceBundleDir', folder);
  return () => rm(folder, { recursive: true, force: true });
}
