/**
 * Workflow layouts off the event loop: dagre takes seconds for a large, dense workflow (200 nodes
 * is allowed), which on the event loop would stall every other request. One worker thread,
 * started on first use; a layout that takes longer than LAYOUT_TIMEOUT_MS stops the worker (the
 * next layout starts a fresh one) and the page shows the edges without the picture.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../../core/module-worker.js';
import type { LayoutRequest } from './workflow-layout-worker.js';
import type { LayoutResult } from './workflow-layout.js';

/** Long enough for any workflow a person reads as a picture (a 40-node dense graph takes ~0.2 s). */
export const LAYOUT_TIMEOUT_MS = 2_000;

const TOO_LARGE: LayoutResult = { reason: 'This graph is too large to lay out here; the definition is saved and runs as usual.' };

interface LayoutWorker {
  thread: Worker;
  /** The requests this thread has not answered; settled with TOO_LARGE if it stops. */
  pending: Map<number, (result: LayoutResult) => void>;
}

let current: LayoutWorker | undefined;
let nextId = 1;

function running(): LayoutWorker {
  if (current !== undefined) return current;
  const started: LayoutWorker = { thread: startModuleWorker('workflow-layout-worker', import.meta.url), pending: new Map() };
  started.thread.on('message', ({ id, result }: { id: number; result: LayoutResult }) => {
    started.pending.get(id)?.(result);
    started.pending.delete(id);
    // An idle worker must not keep a test process alive.
    if (started.pending.size === 0) started.thread.unref();
  });
  const stopped = () => {
    if (current === started) current = undefined;
    for (const resolve of started.pending.values()) resolve(TOO_LARGE);
    started.pending.clear();
  };
  started.thread.on('error', stopped);
  started.thread.on('exit', stopped);
  current = started;
  return started;
}

export function layoutOffThread(definition: unknown): Promise<LayoutResult> {
  const target = running();
  const id = nextId;
  nextId += 1;
  return new Promise<LayoutResult>((resolve) => {
    const timer = setTimeout(() => {
      // A layout cannot be interrupted inside the worker: stopping the worker is the only way,
      // and what else waited on it gets no picture either.
      if (current === target) current = undefined;
      void target.thread.terminate();
    }, LAYOUT_TIMEOUT_MS);
    target.pending.set(id, (result) => {
      clearTimeout(timer);
      resolve(result);
    });
    target.thread.ref();
    target.thread.postMessage({ id, definition } satisfies LayoutRequest);
  });
}
