/**
 * An earlier commit's sanitiser: the first round's (the code before issue 22's rules) as a third
 * engine for bench/sanitiser-bench.ts, so the bench compares today's ratio to secretlint with the
 * ratio the first-round code reaches in the same run instead of a figure measured on another day;
 * any commit's for bench/sanitiser-fuzz-compare.ts, which checks that a change leaves findings as
 * they were.
 *
 * It is built from git history, not installed: `git archive` of the commit's `src` tree into a
 * cache folder, then one esbuild bundle of its createSanitiser with the npm packages left
 * external (re2, libphonenumber-js, zod resolve from this checkout's node_modules, as they did
 * then). The bundle is kept under node_modules/.cache, keyed by commit, so later runs only import
 * it. Without git history (a tarball checkout) or without the commit, the bench says why and
 * runs without this engine.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/** The last commit before issue 22's rules (8f10026 is the first rules commit). */
export const FIRST_ROUND_COMMIT = 'ce93ffa';

export interface BaselineScanner {
  scan(text: string): { findings: readonly { rule_id: string; start: number; end: number }[] };
}

export type Baseline =
  | { readonly available: true; readonly commit: string; readonly sanitiser: BaselineScanner }
  | { readonly available: false; readonly reason: string };

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function git(args: readonly string[]): Buffer {
  return execFileSync('git', ['-C', repoRoot, ...args], { stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 256 * 1024 * 1024 });
}

/**
 * A commit's createSanitiser() (the first round's by default), built on first use; `available:
 * false` with the reason when it cannot be. bench/sanitiser-fuzz-compare.ts builds any commit's.
 */
export async function loadSanitiserAt(commit = FIRST_ROUND_COMMIT): Promise<Baseline> {
  let fullCommit: string;
  try {
    fullCommit = git(['rev-parse', '--verify', '--quiet', `${commit}^{commit}`])
      .toString('utf8')
      .trim();
  } catch {
    return { available: false, reason: `commit ${commit} is not in this checkout's git history (no git, a tarball or a shallow clone)` };
  }
  const cacheDir = path.join(repoRoot, 'node_modules', '.cache', 'porch-bench', `sanitiser-${fullCommit.slice(0, 12)}`);
  const bundle = path.join(cacheDir, 'create-sanitiser.mjs');
  if (!existsSync(bundle)) {
    const tree = path.join(cacheDir, 'tree');
    rmSync(cacheDir, { recursive: true, force: true });
    mkdirSync(tree, { recursive: true });
    try {
      execFileSync('tar', ['-x', '-C', tree], { input: git(['archive', '--format=tar', fullCommit, 'src']), stdio: ['pipe', 'ignore', 'pipe'] });
      await build({
        entryPoints: [path.join(tree, 'src', 'core', 'sanitiser', 'create-sanitiser.ts')],
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        // Packages resolve from this checkout's node_modules, which the cache folder is inside.
        packages: 'external',
        outfile: bundle,
        logLevel: 'error',
      });
    } catch (error) {
      rmSync(cacheDir, { recursive: true, force: true });
      return {
        available: false,
        reason: `building commit ${commit}'s sanitiser failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      };
    }
    rmSync(tree, { recursive: true, force: true });
  }
  const loaded: unknown = await import(pathToFileURL(bundle).href);
  const create = typeof loaded === 'object' && loaded !== null && 'createSanitiser' in loaded ? loaded.createSanitiser : undefined;
  if (typeof create !== 'function') return { available: false, reason: `commit ${commit}'s bundle has no createSanitiser` };
  const sanitiser: unknown = create();
  if (typeof sanitiser !== 'object' || sanitiser === null || !('scan' in sanitiser) || typeof sanitiser.scan !== 'function') {
    return { available: false, reason: `commit ${commit}'s createSanitiser() returned no scanner` };
  }
  const scan = sanitiser.scan.bind(sanitiser) as BaselineScanner['scan'];
  return { available: true, commit: fullCommit.slice(0, 7), sanitiser: { scan } };
}
