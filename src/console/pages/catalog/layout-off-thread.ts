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
/**
 * How long a new worker may take to load before it is given up. The layout timeout starts only
 * once it has loaded: its start (a module graph to load, under load on a small host) is not the
 * layout's time, and counting it left a first page without its picture.
 */
const STARTUP_TIMEOUT_MS = 30_000;

const TOO_LARGE: LayoutResult = { reason: 'This graph is too large to lay out here; the definition is saved and runs as usual.' };
const UNAVAILABLE: LayoutResult = { reason: 'The graph could not be drawn just now; the definition is saved and runs as usual.' };

interface LayoutWorker {
  thread: Worker;
  /** Whether the thread has loaded and said so; until then layouts wait without a timer. */
  ready: boolean;
  /** Starts the timers of the layouts that waited for the thread to load. */
  onReady: Array<() => void>;
  /** The requests this thread has not answered; settled with `result` if it stops. */
  pending: Map<number, (result: LayoutResult) => void>;
}

let current: LayoutWorker | undefined;
let nextId = 1;

function running(): LayoutWorker {
  if (current !== undefined) return current;
  const started: LayoutWorker = { thread: startModuleWorker('workflow-layout-worker', import.meta.url), ready: false, onReady: [], pending: new Map() };
  const startup = setTimeout(() => stop(UNAVAILABLE), STARTUP_TIMEOUT_MS);
  started.thread.on('message', (message: { ready: true } | { id: number; result: LayoutResult }) => {
    if ('ready' in message) {
      clearTimeout(startup);
      started.ready = true;
      for (const arm of started.onReady.splice(0)) arm();
      return;
    }
    started.pending.get(message.id)?.(message.result);
    started.pending.delete(message.id);
    // An idle worker must not keep a test process alive.
    if (started.pending.size === 0) started.thread.unref();
  });
  let stopReason = TOO_LARGE;
  /** Stops the thread; what waited on it gets `reason`. */
  function stop(reason: LayoutResult): void {
    stopReason = reason;
    if (current === started) current = undefined;
    void started.thread.terminate();
  }
  const stopped = () => {
    clearTimeout(startup);
    if (current === started) current = undefined;
    for (const resolve of started.pending.values()) resolve(stopReason);
    started.pending.clear();
  };
  started.thread.on('error', () => {
    stopReason = UNAVAILABLE;
    stopped();
  });
  started.thread.on('exit', stopped);
  current = started;
  return started;
}

export function layoutOffThread(definition: unknown): Promise<LayoutResult> {
  const target = running();
  const id = nextId;
  nextId += 1;
  return new Promise<LayoutResult>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      timer = setTimeout(() => {
        // A layout cannot be interrupted inside the worker: stopping the worker is the only way,
        // and what else waited on it gets no picture either.
        if (current === target) current = undefined;
        void target.thread.terminate();
      }, LAYOUT_TIMEOUT_MS);
    };
    target.pending.set(id, (result) => {
      clearTimeout(timer);
      resolve(result);
    });
    if (target.ready) arm();
    else target.onReady.push(arm);
    target.thread.ref();
    target.thread.postMessage({ id, definition } satisfies LayoutRequest);
  });
}
