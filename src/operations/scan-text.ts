import { z } from 'zod';
import { expertScopes } from '../core/access/scopes.js';
import { scanResultSchema } from '../core/sanitiser/schemas.js';
import { defineKeyedOperation } from './operation.js';

/** Texts up to this many characters are scanned; the 1 MiB body limit applies first. */
export const MAX_SCAN_TEXT_LENGTH = 1_000_000;

export const scanText = defineKeyedOperation({
  name: 'scan_text',
  title: 'Scan text for personal data and secrets',
  description:
    "Scans text with the organisation's sanitiser ruleset (personal data such as emails, phone numbers, cards, IBANs and national ids; secrets such as provider API keys, private keys and passwords; the organisation's custom rules) and returns each finding with its position and severity. Deterministic, no AI, no credits. Use it before sending text to a model.",
  method: 'POST',
  path: '/sanitiser/scan',
  tag: 'Sanitiser',
  effect: 'read',
  // A scan of a megabyte of crafted text takes up to a second of the sanitiser's worker.
  holdsInFlightSlot: true,
  successStatus: 200,
  scopes: expertScopes('sanitiser'),
  body: z.strictObject({
    text: z.string().max(MAX_SCAN_TEXT_LENGTH, `must be at most ${MAX_SCAN_TEXT_LENGTH} characters`).describe('The text to scan.'),
  }),
  output: scanResultSchema,
  run: ({ text }, { core, caller }) => core.sanitiser.scan(caller.account.organisationId, text),
});
