/**
 * Model ids are `<provider>/<model_name>` (`openai/gpt-4o-mini`, `echo/echo`): the provider id
 * before the first slash, the provider's own model name after it, which may hold more slashes
 * (`openrouter/meta-llama/llama-3.1-8b`). This is the one statement of that syntax; request
 * schemas, workflow definitions, bundles and the AI configuration all read it from here.
 */
import { z } from 'zod';

/** A provider id, a slash, and a model name; no whitespace anywhere. */
export const MODEL_ID_PATTERN = /^[^/\s]+\/\S+$/;

/** Lower-case so ids are unambiguous in URLs, YAML and logs; no "/" because it separates model ids. */
export const PROVIDER_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** Model names are the upstream's (they may contain "/", ":" or "."), but never whitespace. */
export const MODEL_NAME_PATTERN = /^\S{1,200}$/;

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

/** Splits "<provider>/<model_name>" at the first "/"; undefined when malformed. */
export function parseModelId(modelId: string): { provider: string; name: string } | undefined {
  const slash = modelId.indexOf('/');
  if (slash <= 0) return undefined;
  const provider = modelId.slice(0, slash);
  const name = modelId.slice(slash + 1);
  if (!PROVIDER_ID_PATTERN.test(provider) || !MODEL_NAME_PATTERN.test(name)) return undefined;
  return { provider, name };
}
