/** The messages between the server and the sanitiser's worker thread (scan-worker.ts). */
import type { OrganisationRuleset, ScanResult } from './types.js';

export interface ScanRequest {
  id: number;
  /** Names the ruleset's version, so the worker compiles each version once. */
  rulesetKey: string;
  ruleset: OrganisationRuleset;
  text: string;
}

/** A failed scan carries the error's code when it was a PorchError (an invalid stored rule). */
export type ScanReply = { id: number; ok: true; result: ScanResult } | { id: number; ok: false; code: string | null; message: string };
