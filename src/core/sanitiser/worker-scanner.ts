/**
 * Runs scans on one worker thread, started on the first scan sent to it. A scan of crafted text
 * costs up to about a second per megabyte, and compiling a large organisation ruleset seconds;
 * on the event loop that time is every other request's too, on the worker only the scans waiting
 * there wait. One worker, as the server has the other core: scans queue there, bounded by the
 * per-key in-flight limit.
 */
import type { Worker } from 'node:worker_threads';
import { ERROR_CODES, PorchError, type ErrorCode } from '../errors.js';
import { startModuleWorker } from '../module-worker.js';
import type { OrganisationRuleset, ScanResult } from './types.js';
import type { ScanReply, ScanRequest } from './worker-protocol.js';

export interface WorkerScanner {
  /** Scans `text` with version `version` of the ruleset named `rulesetKey` (see ScanRequest). */
  scan(rulesetKey: string, version: number, ruleset: OrganisationRuleset, text: string): Promise<ScanResult>;
  /** Stops the worker; a later scan starts a new one. */
  close(): Promise<void>;
}

interface Pending {
  /** The request as it would be sent again with its ruleset, should the worker lack it. */
  request: ScanRequest & { ruleset: OrganisationRuleset };
  resolve(result: ScanResult): void;
  reject(err: Error): void;
}

/**
 * Rulesets whose version the current worker was sent, past which the record starts afresh: a
 * ruleset not recorded is only sent again, which the worker answers at once if it holds it.
 */
const MAX_SENT_RULESETS = 10_000;

function toError(reply: Extract<ScanReply, { status: 'failed' }>): Error {
  const code = ERROR_CODES.find((candidate): candidate is ErrorCode => candidate === reply.code);
  return code === undefined ? new Error(`The sanitiser worker failed: ${reply.message}`) : new PorchError(code, reply.message);
}

export function createWorkerScanner(): WorkerScanner {
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, Pending>();
  /** The version of each ruleset the running worker has been sent, so that it is sent once. */
  const sentVersions = new Map<string, number>();

  function send(target: Worker, request: ScanRequest): void {
    if (request.ruleset !== null) {
      if (sentVersions.size >= MAX_SENT_RULESETS) sentVersions.clear();
      sentVersions.set(request.rulesetKey, request.version);
    }
    target.postMessage(request);
  }

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
      if (reply.status === 'ruleset-needed') {
        send(started, waiting.request);
        return;
      }
      pending.delete(reply.id);
      if (reply.status === 'done') waiting.resolve(reply.result);
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
    sentVersions.clear();
    worker = started;
    return started;
  }

  return {
    scan(rulesetKey, version, ruleset, text) {
      const target = running();
      const id = nextId;
      nextId += 1;
      const request = { id, rulesetKey, version, ruleset, text };
      const sent = sentVersions.get(rulesetKey) === version;
      return new Promise<ScanResult>((resolve, reject) => {
        pending.set(id, { request, resolve, reject });
        target.ref();
        send(target, sent ? { ...request, ruleset: null } : request);
      });
    },
    async close() {
      const stopping = worker;
      worker = undefined;
      if (stopping !== undefined) await stopping.terminate();
    },
  };
}
