/**
 * The bundle format `porch import` reads and `porch export` writes (YAML or JSON). Keys are
 * bundle-local names that workflows use to refer to the bundle's personas, skills and
 * compositions; a workflow may also refer to an existing resource of the account by its id.
 */
import { z } from 'zod';
import { modelIdSchema } from '../ai/model-id.js';
import { CARD_LIMITS } from '../context-cards/context-cards.js';
import { IDENTIFIER_PATTERN, variableDeclarationSchema, workflowDefinitionSchema } from '../engine/workflow-definition.js';
import { nonBlankText } from '../validation.js';

export const BUNDLE_VERSION = 1;

/**
 * Bounds on one item. How many items a bundle may hold is not bounded here: the account's quotas
 * are (limits.quotas), so a bundle `porch export` wrote from an account within its quotas always
 * fits another such account (regression: a section of more than 1,000 items was refused).
 */
export const BUNDLE_LIMITS = { nameLength: 200, descriptionLength: 2_000, templateLength: 100_000, compositionVariables: 100 } as const;

const keySchema = z
  .string()
  .regex(IDENTIFIER_PATTERN, 'must be an identifier (letters, digits, _ and -, not starting with a digit)')
  .max(64)
  .describe(
    "The item's key: workflows in the bundle refer to it by this, and `porch import` updates the item imported under the same key instead of adding another. Without one, the name (a card's title) is the key.",
  );
const nameSchema = nonBlankText(BUNDLE_LIMITS.nameLength).describe('Display name.');
const descriptionSchema = z.string().max(BUNDLE_LIMITS.descriptionLength).default('').describe('What it is for.');
const tagsSchema = z.array(z.string().min(1).max(CARD_LIMITS.tagLength)).max(CARD_LIMITS.tags).default([]).describe('Free-form tags.');
const modelSchema = modelIdSchema.describe('Model id, <provider>/<model_name>.');

export const personaEntrySchema = z.strictObject({
  key: keySchema.optional(),
  name: nameSchema,
  description: descriptionSchema,
  emoji: z.string().max(CARD_LIMITS.emojiLength).optional().describe('An emoji shown beside the name.'),
  content: z.string().min(1).max(CARD_LIMITS.contentLength).describe("The persona's system prompt."),
  tags: tagsSchema,
});

export const contextCardEntrySchema = z.strictObject({
  key: keySchema.optional(),
  title: nonBlankText(CARD_LIMITS.titleLength).describe('Card title.'),
  content: z.string().min(1).max(CARD_LIMITS.contentLength).describe('Card content.'),
  category: z.string().max(CARD_LIMITS.categoryLength).optional().describe('Category; "persona" makes the card a persona.'),
  tags: tagsSchema,
  description: z.string().max(CARD_LIMITS.descriptionLength).optional(),
  emoji: z.string().max(CARD_LIMITS.emojiLength).optional(),
});

/**
 * A name declared twice would leave which declaration counts to chance (the second one's
 * optional default hid the first one's `required`), so it is refused, as a workflow's is.
 */
function refuseDuplicateVariables(variables: ReadonlyArray<{ name: string }>, context: z.RefinementCtx): void {
  const first = new Map<string, number>();
  variables.forEach(({ name }, index) => {
    const earlier = first.get(name);
    if (earlier === undefined) first.set(name, index);
    else context.addIssue({ code: 'custom', path: [index, 'name'], message: `duplicate variable "${name}" (also variables[${earlier}])` });
  });
}

/**
 * A composition's declared variable: the workflow's declaration in a composition's words, so the
 * API reference does not call a composition's variables inputs of a workflow.
 */
const compositionVariableSchema = variableDeclarationSchema
  .extend({
    required: z.boolean().default(false).describe('Whether callers must send a value; an execution without it is refused (400) before any tokens are spent.'),
  })
  .describe(
    'A declared variable of the composition: a {{name}} placeholder of its template, with whether callers must send it, its default and what to put in it.',
  );

export const compositionEntrySchema = z.strictObject({
  key: keySchema.optional(),
  name: nameSchema,
  description: descriptionSchema,
  tags: tagsSchema,
  template: z.string().min(1).max(BUNDLE_LIMITS.templateLength).describe('Prompt template with {{variable}} placeholders.'),
  variables: z
    .array(compositionVariableSchema)
    // Every placeholder is one of these (compositionContent): a template is held to the same
    // number (tooManyVariablesIssues), so no composition holds more variables than this accepts.
    .max(
      BUNDLE_LIMITS.compositionVariables,
      `must have at most ${BUNDLE_LIMITS.compositionVariables} variables (a composition's variables are its declared ones and its template's placeholders)`,
    )
    .superRefine(refuseDuplicateVariables)
    .default([])
    .describe(
      `Declared variables, each name once; undeclared placeholders are required. At most ${BUNDLE_LIMITS.compositionVariables}, counting the template's undeclared placeholders.`,
    ),
  model: modelSchema.optional(),
});

export const skillEntrySchema = z.strictObject({
  key: keySchema.optional(),
  name: nameSchema,
  description: descriptionSchema,
  category: nonBlankText(CARD_LIMITS.categoryLength).default('general').describe('Category, for grouping (default "general").'),
  instructions: z.string().min(1).max(BUNDLE_LIMITS.templateLength).describe('System prompt; may hold {{variables}}.'),
  model: modelSchema.optional(),
});

export const workflowEntrySchema = z.strictObject({
  key: keySchema.optional(),
  name: nameSchema,
  description: descriptionSchema,
  category: nonBlankText(CARD_LIMITS.categoryLength).default('general').describe('Category, for grouping (default "general").'),
  ...workflowDefinitionSchema.shape,
  dangling_refs: z
    .array(z.string())
    .optional()
    .describe(
      'Ids of nodes whose skill, composition or persona no longer exists (deleted, or a card taken out of category "persona"). ' +
        'Their references (ids) are kept as they are, and the nodes fail when run, as they did where the bundle was exported. `porch export` writes this.',
    ),
});

const section = <Schema extends z.ZodType>(schema: Schema) => z.array(schema).default([]);

/**
 * A persona in a bundle may also have no description at all, as a persona card made over the
 * API without one has (regression: a round trip turned its null into ""); the API's persona
 * body keeps personaEntrySchema's plain string.
 */
const bundlePersonaEntrySchema = personaEntrySchema.extend({
  description: z
    .string()
    .max(BUNDLE_LIMITS.descriptionLength)
    .nullable()
    .default('')
    .describe('What it is for; null: no description (`porch export` writes null for a persona card that has none).'),
});

/** What `exported_by` holds: the bundle is what `porch export` wrote. */
export const EXPORT_MARKER = 'porch';

const itemCount = z.number().int().min(0);

/**
 * `exported_by` and `end_of_export` let an import tell an export cut short from a whole one. A
 * YAML file cut almost anywhere is still valid YAML, which read as a shorter bundle (regression:
 * the last item lost its tail, and with --prune everything after the cut was deleted). So
 * `porch export` writes `exported_by` first and `end_of_export`, the number of items in each
 * section, last; an import refuses a bundle that has the first but not a matching second.
 * Hand-written bundles need neither.
 */
export const bundleSchema = z.strictObject({
  exported_by: z
    .literal(EXPORT_MARKER)
    .optional()
    .describe('`porch export` writes `exported_by: porch` first; `end_of_export` must then close the bundle, else it was cut short.'),
  version: z.literal(BUNDLE_VERSION).default(BUNDLE_VERSION).describe('Bundle format version.'),
  personas: section(bundlePersonaEntrySchema),
  context_cards: section(contextCardEntrySchema),
  compositions: section(compositionEntrySchema),
  skills: section(skillEntrySchema),
  workflows: section(workflowEntrySchema),
  end_of_export: z
    .strictObject({ personas: itemCount, context_cards: itemCount, compositions: itemCount, skills: itemCount, workflows: itemCount })
    .optional()
    .describe('`porch export` writes this last: how many items each section holds, which an import checks.'),
});

export type Bundle = z.output<typeof bundleSchema>;
export type BundleInput = z.input<typeof bundleSchema>;
