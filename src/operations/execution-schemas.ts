/** Schemas shared by the execute operations. */
import { z } from 'zod';
import { modelIdSchema } from '../core/ai/model-id.js';
import { tokenUsageSchema } from '../core/ai/token-usage.js';
import { findingSeveritySchema } from '../core/sanitiser/schemas.js';
import { EXCLUSIVE_WITH } from './schemas.js';

/** Text fields sent to models: generous, and well inside the 1 MiB body limit. */
export const MAX_INPUT_TEXT_LENGTH = 200_000;

/**
 * How many levels of arrays and objects a variable's value may nest. Templates insert a value as
 * text (JSON for anything but a string), so nothing needs deep values, and a bound that the
 * schema itself states is one the OpenAPI document and MCP clients can check: with `unknown`
 * here, only the server's body-wide limit (MAX_JSON_DEPTH, read from the bytes) refused a deep
 * value, and the document accepted it (regression).
 */
export const MAX_VARIABLE_NESTING = 8;

/**
 * A JSON value whose arrays and objects nest at most `levels` levels. Each level is a named
 * schema that names the next one, so the JSON Schema grows linearly with the levels (and a tool
 * that expands references visits 2^levels nodes, which is why the bound is small).
 */
function variableValue(levels: number): z.ZodType {
  const scalars = [z.string(), z.number(), z.boolean(), z.null()] as const;
  if (levels === 0) return z.union(scalars).meta({ id: 'VariableValue0', description: 'A string, number, boolean or null.' });
  const inner = variableValue(levels - 1);
  const nesting = `must be a JSON value whose arrays and objects nest at most ${levels} levels`;
  // A number too large for a double (1e400) parses as Infinity: said as such, not as nesting.
  const error = (issue: { input?: unknown }) =>
    typeof issue.input === 'number' && !Number.isFinite(issue.input) ? 'must be a finite number (1e400 is too large for one)' : nesting;
  return z.union([...scalars, z.array(inner), z.record(z.string(), inner)], { error }).meta({
    id: `VariableValue${levels}`,
    description: `Any JSON value whose arrays and objects nest at most ${levels} levels.`,
  });
}

export const variablesSchema = z
  .record(z.string().min(1).max(64), variableValue(MAX_VARIABLE_NESTING))
  .describe('Values for the {{variables}} of the template, by name. Strings are inserted as they are; other values as JSON.');

export const useByokSchema = z
  .boolean()
  .optional()
  .describe('Set false to route this call through the shared gateway even when a BYOK key is active (refused when the organisation is strict BYOK).');

export const modelOverrideSchema = modelIdSchema.optional().describe('Model override, <provider>/<model_name>; gated by plan and organisation policy.');

/**
 * Which version runs (DECISIONS, "Catalog lifecycle"): `version` or `label`; without either, the
 * version labelled `production` if there is one, else the newest.
 */
export const versionSelectorFields = {
  version: z
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .meta({ [EXCLUSIVE_WITH]: ['label'] })
    .optional()
    .describe('Run this version (1, 2, ...). Send version or label, not both.'),
  label: z
    .string()
    .min(1)
    .max(32)
    .meta({ [EXCLUSIVE_WITH]: ['version'], examples: ['production'] })
    .optional()
    .describe(
      'Run the version this label names: `latest` (the newest), `production`, or any label set on the resource. Without version and label: `production` if set, else `latest`.',
    ),
};

export const versionRanSchema = z.number().int().min(1).describe('The version of the resource that ran.');

export const inputTextSchema = z.string().max(MAX_INPUT_TEXT_LENGTH, `must be at most ${MAX_INPUT_TEXT_LENGTH} characters`);

/**
 * The findings of the organisation's guardrails on model calls, as every result that made one
 * returns them (executes, workflow nodes, the judge): rule ids and positions, never the text.
 */
export const guardrailFindingsSchema = z
  .array(
    z
      .object({
        direction: z.enum(['input', 'output']).describe("input: a message sent to the model; output: the model's answer."),
        message_index: z
          .number()
          .int()
          .min(0)
          .nullable()
          .describe(
            "Index of the message sent (input findings); for the answer, null, or for the judge's verdict the part: 0 its reasoning, then each suggestion.",
          ),
        rule_id: z.string().describe('Sanitiser rule that matched, e.g. "secret.github_token".'),
        label: z.string().describe('What was found, e.g. "GitHub token".'),
        severity: findingSeveritySchema,
        start: z.number().int().min(0).describe('Start in that message or answer (UTF-16 code units, inclusive).'),
        end: z.number().int().min(0).describe('End in that message or answer (UTF-16 code units, exclusive).'),
      })
      .describe('One finding of a guardrail; the matched text is never included.'),
  )
  .optional();

export const executionResultFields = {
  version: versionRanSchema,
  content: z.string().describe("The model's answer."),
  model_used: z.string().describe('The model that answered, <provider>/<model_name>.'),
  token_usage: tokenUsageSchema,
  duration_ms: z.number().int().min(0).describe('Wall time of the execution in milliseconds.'),
  guardrail_findings: guardrailFindingsSchema.describe(
    "What the organisation's guardrails found on this call's input and output (policy report or redact), without the matched text; absent when nothing was found or the guardrails are off.",
  ),
};
