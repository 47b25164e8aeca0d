/**
 * Starts a worker thread on a module beside the caller. From the built package the module is the
 * compiled `.js`; from the TypeScript sources (tests, benches under tsx) a worker cannot load
 * `.ts` by itself, so it first registers tsx, the loader the sources already run under.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** `moduleName` without extension (`scan-worker`), resolved against `callerUrl` (the caller's import.meta.url). */
export function startModuleWorker(moduleName: string, callerUrl: string): Worker {
  const fromSources = /\.tsx?$/.test(new URL(callerUrl).pathname);
  const entry = new URL(`./${moduleName}.${fromSources ? 'ts' : 'js'}`, callerUrl);
  if (!fromSources) return new Worker(entry);
  // tsx is resolved from the sources' folder, not the working directory. require.resolve finds
  // the CommonJS build of its API, whose register() resolves its hooks wrongly from a worker;
  // the ES module build sits beside it.
  const tsxApi = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const boot = `import(${JSON.stringify(tsxApi)}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(boot, { eval: true });
}
