/** The messages between the server and the sanitiser's worker thread (scan-worker.ts). */
import type { OrganisationRuleset, ScanResult } from './types.js';

export interface ScanRequest {
  id: number;
  /** Names whose ruleset this is (an organisation, or the built-in rules); the worker keeps one compiled version of each. */
  rulesetKey: string;
  /** The ruleset's version: the worker compiles each version once, reusing the rules the last one had. */
  version: number;
  /**
   * The rules, sent with the first scan of a version only: an organisation's rules can be megabytes
   * of keywords, and copying them to the worker with every scan would cost the event loop that much.
   */
  ruleset: OrganisationRuleset | null;
  text: string;
}

/**
 * A failed scan carries the error's code when it was a PorchError (an invalid stored rule).
 * `ruleset-needed`: the request came without its ruleset and the worker does not hold that
 * version (it started afresh or let the version go); the server sends the request again with it.
 */
export type ScanReply =
  | { id: number; status: 'done'; result: ScanResult }
  | { id: number; status: 'failed'; code: string | null; message: string }
  | { id: number; status: 'ruleset-needed' };
