#!/usr/bin/env node
/**
 * The entry `npm start` and the `porch` bin run (dist/bundle/porch.js): it turns on Node's
 * compile cache, then loads the CLI. From Node 22.1, V8's compiled code for the modules loaded
 * after the call is kept on disk, and later starts read it instead of compiling the bundle again
 * (measured in bench/RESULTS-NOTES.md, cold start). Node 20 has no compile cache: there this is
 * one dynamic import more.
 *
 * The cache lives in the package's own node_modules/.cache, writable by whoever may change the
 * code it caches, not in the shared temporary folder Node uses by default, where another local
 * user could plant compiled code first. NODE_COMPILE_CACHE, when set, still decides where it goes,
 * and NODE_DISABLE_COMPILE_CACHE=1 turns it off; a folder that cannot be written leaves it off.
 */
import module from 'node:module';
import { fileURLToPath } from 'node:url';

type EnableCompileCache = (directory?: string) => unknown;
const enableCompileCache = (module as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
// This file is dist/cli/start.js (src/cli/start.ts in the tests' bundle): the package root is two folders up.
enableCompileCache?.(fileURLToPath(new URL('../../node_modules/.cache/porch-compile-cache/', import.meta.url)));

await import('./index.js');
