/**
 * Runs scans on one worker thread, started on the first scan sent to it. A scan of crafted text
 * costs up to about a second per megabyte, and on the event loop that second is every other
 * request's too; on the worker only the scan's own request waits. One worker, as the server
 * has the other core: scans queue there, bounded by the per-key in-flight limit.
 */
import type { Worker } from 'node:worker_threads';
import { ERROR_CODES, PorchError, type ErrorCode } from '../errors.js';
import { startModuleWorker } from '../module-worker.js';
import type { OrganisationRuleset, ScanResult } from './types.js';
import type { ScanReply, ScanRequest } from './worker-protocol.js';

export interface WorkerScanner {
  scan(rulesetKey: string, ruleset: OrganisationRuleset, text: string): Promise<ScanResult>;
  /** Stops the worker; a later scan starts a new one. */
  close(): Promise<void>;
}

interface Pending {
  resolve(result: ScanResult): void;
  reject(err: Error): void;
}

function toError(reply: Extract<ScanReply, { ok: false }>): Error {
  const code = ERROR_CODES.find((candidate): candidate is ErrorCode => candidate === reply.code);
  return code === undefined ? new Error(`The sanitiser worker failed: ${reply.message}`) : new PorchError(code, reply.message);
}

export function createWorkerScanner(): WorkerScanner {
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  function failAll(err: Error): void {
    for (const waiting of pending.values()) waiting.reject(err);
    pending.clear();
  }

  function running(): Worker {
    if (worker !== undefined) return worker;
    const started = startModuleWorker('scan-worker', import.meta.url);
    started.on('message', (reply: ScanReply) => {
      const waiting = pending.get(reply.id);
      if (waiting === undefined) return;
      pending.delete(reply.id);
      if (reply.ok) waiting.resolve(reply.result);
      else waiting.reject(toError(reply));
      // An idle worker must not keep a CLI or a test process alive.
      if (pending.size === 0) started.unref();
    });
    started.on('error', (err) => {
      if (worker === started) worker = undefined;
      failAll(err);
    });
    started.on('exit', (exitCode) => {
      if (worker === started) worker = undefined;
      failAll(new Error(`The sanitiser worker stopped (exit code ${exitCode}).`));
    });
    worker = started;
    return started;
  }

  return {
    scan(rulesetKey, ruleset, text) {
      const target = running();
      const id = nextId;
      nextId += 1;
      const request: ScanRequest = { id, rulesetKey, ruleset, text };
      return new Promise<ScanResult>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        target.ref();
        target.postMessage(request);
      });
    },
    async close() {
      const stopping = worker;
      worker = undefined;
      if (stopping !== undefined) await stopping.terminate();
    },
  };
}
