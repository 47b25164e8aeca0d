/**
 * The limits of a workflow definition and the field schemas its parts are built from. The
 * definition schema (workflow-schema.ts) and every node kind (node-kinds/) read them from here,
 * so a limit or a field's rules are stated once.
 */
import { z } from 'zod';
import { modelIdSchema } from '../ai/model-id.js';
import { PROTO_KEY_MESSAGE } from '../validation.js';

// Limits. A definition is operator-written configuration that every run walks, so each
// dimension is bounded to keep a run's bookkeeping, its trace and its error messages small.

/** A hand-built pipeline rarely exceeds a few dozen steps; 200 bounds the per-run trace and work. */
export const MAX_NODES = 200;
/** Declared inputs are filled in by a caller; more than 100 is a form nobody fills in. */
export const MAX_VARIABLES = 100;
/** Node ids, variable names and output names appear in templates, traces and error messages. */
export const MAX_IDENTIFIER_LENGTH = 64;
/** About 12,000 tokens of prompt per field; longer material belongs in a variable or a card. */
export const MAX_TEMPLATE_LENGTH = 50_000;
/** A resource id is a 36-character uuid; bundle keys get room for readable names. */
export const MAX_RESOURCE_REF_LENGTH = 200;
/** Variables a skill or composition node passes on; a resource declares far fewer. */
export const MAX_NODE_VARIABLES = 50;
/** Each output is one field of the response; 50 is more than any caller reads. */
export const MAX_OUTPUTS = 50;
/** Descriptions are one or two sentences shown in listings and tool descriptions. */
export const MAX_DESCRIPTION_LENGTH = 1_000;
/** The largest output cap offered by current models; credits are reserved against this cap. */
export const MAX_OUTPUT_TOKENS = 128_000;

/** Names usable inside `{{ }}`: the template language's identifier. */
export const IDENTIFIER_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * A node id, variable or output name. Never `__proto__`: names become keys of plain objects (the
 * run's outputs, by default one per final node), where that one sets the prototype instead.
 */
export const identifierSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_IDENTIFIER_LENGTH, `must be at most ${MAX_IDENTIFIER_LENGTH} characters`)
  .regex(IDENTIFIER_PATTERN, 'must start with a letter or underscore and contain only letters, digits, "_" and "-"')
  .refine((name) => name !== '__proto__', PROTO_KEY_MESSAGE);

export const descriptionSchema = z.string().max(MAX_DESCRIPTION_LENGTH, `must be at most ${MAX_DESCRIPTION_LENGTH} characters`);

export const requiredTemplateSchema = z.string().min(1, 'must not be empty').max(MAX_TEMPLATE_LENGTH, `must be at most ${MAX_TEMPLATE_LENGTH} characters`);

export const optionalTemplateSchema = z.string().max(MAX_TEMPLATE_LENGTH, `must be at most ${MAX_TEMPLATE_LENGTH} characters`);

/** A skill, composition or persona: a resource id or a key local to the import bundle. */
export const resourceRefSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_RESOURCE_REF_LENGTH, `must be at most ${MAX_RESOURCE_REF_LENGTH} characters`);

/** A node's `model` field: the shared model-id syntax, described for workflow authors. */
export const nodeModelSchema = modelIdSchema.describe('Model id `<provider>/<model_name>` (e.g. `echo/echo`); omit for the default model.');

export const temperatureSchema = z
  .number()
  .min(0, 'must be between 0 and 1')
  .max(1, 'must be between 0 and 1')
  .describe('Sampling temperature, 0 (deterministic) to 1 (most varied).');

/** Values a node passes to a resource's variables: name -> template. */
export const nodeVariablesSchema = z
  .record(z.string().regex(IDENTIFIER_PATTERN, 'must be an identifier'), optionalTemplateSchema)
  .refine((value) => Object.keys(value).length <= MAX_NODE_VARIABLES, {
    message: `at most ${MAX_NODE_VARIABLES} variables`,
  });

/** The fields every node kind has; spread into each kind's schema before its own fields. */
export const nodeBaseFields = {
  id: identifierSchema.describe("Node id, unique in the workflow; other nodes read this node's output as `{{id}}`."),
  description: descriptionSchema.optional().describe('What the step does, for people reading the workflow.'),
};
