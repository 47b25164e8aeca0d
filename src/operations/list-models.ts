import { z } from 'zod';
import { modelIdSchema } from '../core/ai/index.js';
import { defineKeyedOperation } from './operation.js';
import { ANY_KEY_SCOPES } from './self-service-schemas.js';

const modelSchema = z
  .object({
    id: modelIdSchema.describe('The id to send as `model`: `<provider>/<model_name>`.'),
    provider: z.string().describe('The provider id; a BYOK key for it pays for calls to this model.'),
    region: z.string().describe('Where the provider runs the model (`local` for the built-in echo model).'),
    max_output_tokens: z.number().int().min(1).describe('The cap on an answer; credits are reserved for this many output tokens.'),
    context_window: z.number().int().min(1).nullable().describe('Tokens the model reads at most, or null when not configured.'),
    default: z.boolean().describe('Whether this is the deployment’s default model.'),
    byok: z.boolean().describe('Whether a BYOK key of your account or organisation pays for its calls, which then cost no credits.'),
  })
  .describe('A model the caller may name.');

export const listModels = defineKeyedOperation({
  name: 'list_models',
  title: 'List the models',
  description:
    "Lists the models the caller's plan and organisation allow (the EU-only policy keeps only EU-hosted ones; strict BYOK only those a BYOK key pays for, and the local echo model), in the deployment's order: the ids an execution, a node or the judge may name as `model`. default_model is what a call naming none runs on, or null when the caller may not use it (then every call must name one). Any key may call it.",
  method: 'GET',
  path: '/models',
  tag: 'Account',
  effect: 'read',
  successStatus: 200,
  scopes: ANY_KEY_SCOPES,
  output: z
    .object({
      items: z.array(modelSchema).describe("The models, in the deployment's order."),
      count: z.number().int().min(0).describe('Number of items in `items`.'),
      default_model: modelIdSchema.nullable().describe('The model a call naming none runs on, or null when the caller may not use it.'),
    })
    .describe('The models the caller may use.'),
  run: async (_input, { core, caller }) => {
    const { default_model, models } = await core.selfService.models(caller);
    return { items: models, count: models.length, default_model };
  },
});
