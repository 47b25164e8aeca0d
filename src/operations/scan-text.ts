import { z } from 'zod';
import { expertScopes } from '../core/access/scopes.js';
import { scanTextResultSchema } from '../core/sanitiser/schemas.js';
import { defineKeyedOperation } from './operation.js';

/** Texts up to this many characters are scanned; the 1 MiB body limit applies first. */
export const MAX_SCAN_TEXT_LENGTH = 1_000_000;

export const scanText = defineKeyedOperation({
  name: 'scan_text',
  title: 'Scan text for personal data and secrets',
  description:
    "Scans text with the organisation's sanitiser ruleset (personal data such as emails, phone numbers, cards, IBANs and national ids; secrets such as provider API keys, private keys and passwords; the organisation's custom rules) and returns each finding with its position and severity. Deterministic, no AI, no credits. Use it before sending text to a model; with redact: true it also returns the text with each finding replaced by a typed placeholder ([EMAIL_1]).",
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
    redact: z
      .boolean()
      .optional()
      .describe('true also returns redacted_text: the text with each finding replaced by a typed placeholder such as [EMAIL_1] (default false).'),
  }),
  output: scanTextResultSchema,
  run: ({ text, redact }, { core, caller }) => core.sanitiser.scanText(caller.account.organisationId, text, { redact }),
});
