/**
 * Model ids are `<provider>/<model_name>` (`openai/gpt-4o-mini`, `echo/echo`): the provider id
 * before the first slash, the provider's own model name after it, which may hold more slashes
 * (`openrouter/meta-llama/llama-3.1-8b`). This is the one statement of that syntax; request
 * schemas, workflow definitions, bundles and the AI configuration all read it from here.
 */
import { z } from 'zod';

/** A provider id, a slash, and a model name; no whitespace anywhere. */
export const MODEL_ID_PATTERN = /^[^/\s]+\/\S+$/;

/** The longest real model ids are well under 200 characters. */
export const MAX_MODEL_ID_LENGTH = 200;

/** The shortest id the syntax allows: one character each side of the slash. */
const MIN_MODEL_ID_LENGTH = 3;

export const modelIdSchema = z
  .string()
  .min(MIN_MODEL_ID_LENGTH, `must be at least ${MIN_MODEL_ID_LENGTH} characters`)
  .max(MAX_MODEL_ID_LENGTH, `must be at most ${MAX_MODEL_ID_LENGTH} characters`)
  .regex(MODEL_ID_PATTERN, 'must be a model id of the form <provider>/<model_name>')
  .describe('Model id, <provider>/<model_name> (e.g. "openai/gpt-4o-mini", "echo/echo").');
