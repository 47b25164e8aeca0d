/**
 * The sanitiser on a worker thread: large scans run here so the server's event loop stays free
 * for other requests while a megabyte is scanned (see worker-scanner.ts, which starts it). The
 * same createSanitiser runs as on the main thread, so the findings are the same.
 */
import { parentPort } from 'node:worker_threads';
import { createSanitiser } from './create-sanitiser.js';
import type { Sanitiser } from './types.js';
import type { ScanReply, ScanRequest } from './worker-protocol.js';

/** Compiled rulesets kept by the worker; a few organisations send large texts at once. */
const COMPILED_RULESET_CACHE_SIZE = 50;

const compiled = new Map<string, Sanitiser>();

function sanitiserFor(request: ScanRequest): Sanitiser {
  const cached = compiled.get(request.rulesetKey);
  if (cached !== undefined) return cached;
  const sanitiser = createSanitiser(request.ruleset);
  if (compiled.size >= COMPILED_RULESET_CACHE_SIZE) compiled.delete(compiled.keys().next().value ?? '');
  compiled.set(request.rulesetKey, sanitiser);
  return sanitiser;
}

function answer(request: ScanRequest): ScanReply {
  try {
    return { id: request.id, ok: true, result: sanitiserFor(request).scan(request.text) };
  } catch (err) {
    const code = typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : null;
    return { id: request.id, ok: false, code, message: err instanceof Error ? err.message : String(err) };
  }
}

const port = parentPort;
if (port === null) throw new Error('scan-worker.ts runs as a worker thread only.');
port.on('message', (request: ScanRequest) => port.postMessage(answer(request)));
