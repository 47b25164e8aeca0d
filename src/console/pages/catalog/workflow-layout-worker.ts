/** The worker thread that lays workflow graphs out (workflow-layout.ts), one request at a time. */
import { parentPort } from 'node:worker_threads';
import { layoutWorkflow } from './workflow-layout.js';

export interface LayoutRequest {
  id: number;
  definition: unknown;
}

parentPort?.on('message', ({ id, definition }: LayoutRequest) => {
  parentPort?.postMessage({ id, result: layoutWorkflow(definition) });
});
// Loaded: the parent's layout timeout starts now (layout-off-thread.ts).
parentPort?.postMessage({ ready: true });
