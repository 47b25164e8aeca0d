/** Schemas shared by the execute operations. */
import { z } from 'zod';
import { modelIdSchema } from '../core/ai/model-id.js';
import { tokenUsageSchema } from '../core/ai/token-usage.js';

/** Text fields sent to models: generous, and well inside the 1 MiB body limit. */
export const MAX_INPUT_TEXT_LENGTH = 200_000;

export const variablesSchema = z
  .record(z.string().min(1).max(64), z.unknown())
  .describe('Values for the {{variables}} of the template, by name. Strings are inserted as they are; other values as JSON.');

export const useByokSchema = z
  .boolean()
  .optional()
  .describe('Set false to route this call through the shared gateway even when a BYOK key is active (refused when the organisation is strict BYOK).');

export const modelOverrideSchema = modelIdSchema.optional().describe('Model override, <provider>/<model_name>; gated by plan and organisation policy.');

export const inputTextSchema = z.string().max(MAX_INPUT_TEXT_LENGTH, `must be at most ${MAX_INPUT_TEXT_LENGTH} characters`);

export const executionResultFields = {
  content: z.string().describe("The model's answer."),
  model_used: z.string().describe('The model that answered, <provider>/<model_name>.'),
  token_usage: tokenUsageSchema,
  duration_ms: z.number().int().min(0).describe('Wall time of the execution in milliseconds.'),
};
