/**
 * Token usage of a model call, as every layer reports it: providers, the ledger, workflow traces
 * and the API (the same snake_case fields). The schema is its one statement; the type follows.
 */
import { z } from 'zod';

export const tokenUsageSchema = z
  .object({
    input_tokens: z.number().int().min(0).describe('Tokens sent to the model (prompt).'),
    output_tokens: z.number().int().min(0).describe('Tokens the model produced.'),
    total_tokens: z.number().int().min(0).describe('input_tokens + output_tokens; 1 credit = 1,000 tokens.'),
  })
  .describe('Token usage of the call.');

export type TokenUsage = z.output<typeof tokenUsageSchema>;

/** No tokens: the usage of a request that made no model call yet. */
export const NO_TOKENS: TokenUsage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };

/** The usage of two calls together. */
export function addTokenUsage(left: TokenUsage, right: TokenUsage): TokenUsage {
  return {
    input_tokens: left.input_tokens + right.input_tokens,
    output_tokens: left.output_tokens + right.output_tokens,
    total_tokens: left.total_tokens + right.total_tokens,
  };
}
