/**
 * The catalog lifecycle of one executable kind, as operations (DECISIONS, "Catalog lifecycle"):
 * create, get, update, delete, its versions, and its labels. The four kinds share the shape, so
 * each kind's eight operations are made here from its definition schema, and each is still one
 * definition that every door and generator reads.
 */
import { z } from 'zod';
import { readScopes, writeScopes, type ExecutableResource } from '../core/access/scopes.js';
import { LABEL_PATTERN, LATEST_LABEL } from '../core/catalog/versions.js';
import { defineKeyedOperation } from './operation.js';
import { changesSomething, expectedVersionSchema, idParams, MAX_PAGE_LIMIT, oneFieldToChange, queryInteger, timestampSchema } from './schemas.js';

type AnyShape = z.ZodRawShape;

export interface LifecycleKind<Kind extends ExecutableResource, Shape extends AnyShape, Counters extends AnyShape> {
  kind: Kind;
  /** `/compositions` */
  path: `/${string}`;
  /** OpenAPI tag: `Compositions` */
  tag: string;
  /** `composition`, `custom skill`: how the descriptions name one. */
  noun: string;
  /** The definition an author writes, without `key` (the bundle entry format). */
  definition: z.ZodObject<Shape>;
  /** What the resource counts besides its definition (`times_used`). */
  counters: Counters;
}

const keySchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'must be an identifier (letters, digits, _ and -, not starting with a digit)')
  .max(64)
  .describe('Optional key that workflows and `porch import` know the resource by; unique per account and kind.');

const versionNumber = z.number().int().min(1).describe('A version number.');

const labelsSchema = z
  .record(z.string(), versionNumber)
  .describe('Label -> version: `latest` (always, the newest) and every label set on the resource, such as `production`.');

const labelName = z
  .string()
  .regex(LABEL_PATTERN, 'must be 1-32 lowercase letters, digits, _ or -, starting with a letter')
  // Here, not only in core, so the refusal names where the label was sent, as every other does.
  .refine((label) => label !== LATEST_LABEL, `"${LATEST_LABEL}" always names the newest version and cannot be set or removed`)
  .describe('Label name: `production`, `staging`, ... (`latest` is implicit and cannot be set).')
  .meta({ examples: ['production'] });

const versionParams = idParams.extend({
  version: queryInteger(z.number({ error: 'must be a whole number' }).int('must be a whole number').min(1, 'must be at least 1')).describe(
    'Version number (1, 2, ...).',
  ),
});

const labelParams = idParams.extend({ label: labelName });

const versionSummary = z
  .object({
    version: versionNumber,
    labels: z.array(z.string()).describe('The labels that name this version (besides `latest`).'),
    created_at: timestampSchema,
  })
  .describe('One version of the resource.');

const versionPageQuery = z.object({
  limit: queryInteger(
    z
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(MAX_PAGE_LIMIT, `must be at most ${MAX_PAGE_LIMIT}`),
  )
    .optional()
    .describe(`Optional page size (1-${MAX_PAGE_LIMIT}). Without it the list returns every version.`),
  cursor: z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/, 'must be a version number (a next_cursor value)')
    .meta({ examples: ['3'] })
    .optional()
    .describe('Optional: the next_cursor of the previous page; returns the older versions after it.'),
});

const labelsView = z.object({ id: z.uuid().describe('Resource id.'), labels: labelsSchema }).describe('The labels of the resource.');

/**
 * Every field optional and without its default, so a partial update changes only what it sends.
 * A field the definition may leave out also takes `null`, as in JSON Merge Patch: one without a
 * default (a composition's `model`) is removed, one with a default (`description`, `tags`) goes
 * back to it.
 */
function patchOf<Shape extends AnyShape>(definition: z.ZodObject<Shape>) {
  const shape = Object.fromEntries(
    Object.entries(definition.shape).map(([name, field]) => {
      const described = (field as z.ZodType).description;
      if (field instanceof z.ZodDefault) {
        const bare = field.unwrap() as z.ZodType;
        const fallback: unknown = field.def.defaultValue;
        const reset = bare
          .nullable()
          .optional()
          .transform((value) => (value === null ? structuredClone(fallback) : value));
        return [name, reset.describe(`${described ?? bare.description ?? 'Optional.'} null sets it back to ${JSON.stringify(fallback)}.`)];
      }
      if (field instanceof z.ZodOptional) {
        const bare = field.unwrap() as z.ZodType;
        return [
          name,
          bare
            .nullable()
            .optional()
            .describe(`${described ?? bare.description ?? 'Optional.'} null removes it.`),
        ];
      }
      const patched = (field as z.ZodType).optional();
      return [name, described === undefined ? patched : patched.describe(described)];
    }),
  ) as { [Name in keyof Shape]: z.ZodOptional<z.ZodType<z.output<Shape[Name]> | null, z.input<Shape[Name]> | null>> };
  return z
    .strictObject({ ...shape, expected_version: expectedVersionSchema })
    .refine(changesSomething, { message: 'send at least one field to change' })
    .meta(oneFieldToChange(Object.keys(shape)));
}

export function lifecycleOperations<Kind extends ExecutableResource, Shape extends AnyShape, Counters extends AnyShape>(
  spec: LifecycleKind<Kind, Shape, Counters>,
) {
  const { kind, path, tag, noun, definition, counters } = spec;
  const detail = z
    .object({
      id: z.uuid().describe(`The ${noun}'s id.`),
      key: z.string().nullable().describe('The key it was created or imported under, or null.'),
      version: versionNumber.describe('The newest version: the definition shown is this version.'),
      labels: labelsSchema,
      ...definition.shape,
      ...counters,
      created_at: timestampSchema,
      updated_at: timestampSchema.describe('When the newest version was written.'),
    })
    .describe(`A ${noun}: its newest definition, its labels and its counters.`);
  const read = readScopes(kind);
  const write = writeScopes(kind);
  // The definition schema of each kind is its bundle entry, the same type core's lifecycle takes
  // and answers for that kind (src/core/catalog/definitions.ts), but TypeScript cannot relate a
  // generic Shape to a generic Kind, so `run` passes the values through `never`. Every answer is
  // still checked against the output schema at run time by the contract tests (checkOperationOutput).

  const operations = {
    create: defineKeyedOperation({
      name: `create_${kind}`,
      title: `Create a ${noun}`,
      description: `Creates a ${noun} from its definition (the bundle format) as version 1. The same checks as \`porch import\` apply: unknown models are refused${kind === 'workflow' ? '; cycles and references to unknown nodes, skills, compositions or personas are refused with the path of each problem; a node may refer to a resource by id or by key' : ''}.`,
      method: 'POST',
      path,
      tag,
      effect: 'write',
      successStatus: 201,
      scopes: write,
      body: definition.extend({ key: keySchema.optional() }),
      output: detail,
      run: (input, { core, caller }) => core.lifecycle.create(caller, kind, caller.account.id, input as never) as never,
    }),
    get: defineKeyedOperation({
      name: `get_${kind}`,
      title: `Get a ${noun}`,
      description: `One of the caller's ${noun}s: its newest definition, its labels (which version \`production\` and other labels name) and its counters.`,
      method: 'GET',
      path: `${path}/{id}`,
      tag,
      effect: 'read',
      successStatus: 200,
      scopes: read,
      params: idParams,
      output: detail,
      run: ({ id }, { core, caller }) => core.lifecycle.get(kind, caller.account.id, id) as never,
    }),
    update: defineKeyedOperation({
      name: `update_${kind}`,
      title: `Update a ${noun}`,
      description: `Changes some fields of a ${noun} (a partial update: send at least one field), writing a new version; the whole definition is checked again. Send \`expected_version\` to have it refused with 409 if someone changed the ${noun} since you read it. Executions without a version or label keep running the \`production\` version when one is labelled.`,
      method: 'PATCH',
      path: `${path}/{id}`,
      tag,
      effect: 'write',
      successStatus: 200,
      scopes: write,
      params: idParams,
      body: patchOf(definition),
      output: detail,
      run: (input, { core, caller }) => {
        const { id, expected_version, ...changes } = input as { id: string; expected_version?: number };
        return core.lifecycle.update(caller, kind, caller.account.id, id, changes as never, expected_version) as never;
      },
    }),
    delete: defineKeyedOperation({
      name: `delete_${kind}`,
      title: `Delete a ${noun}`,
      description: `Deletes a ${noun}: it leaves lists and executions (404 afterwards). Its versions stay for the audit trail until retention removes them.`,
      method: 'DELETE',
      path: `${path}/{id}`,
      tag,
      effect: 'destructive',
      successStatus: 204,
      scopes: write,
      params: idParams,
      output: null,
      run: async ({ id }, { core, caller }) => {
        await core.lifecycle.delete(kind, caller.account.id, id);
      },
    }),
    listVersions: defineKeyedOperation({
      name: `list_${kind}_versions`,
      title: `List a ${noun}'s versions`,
      description: `The versions of a ${noun}, newest first, each with the labels that name it.`,
      method: 'GET',
      path: `${path}/{id}/versions`,
      tag,
      effect: 'read',
      successStatus: 200,
      scopes: read,
      params: idParams,
      query: versionPageQuery,
      output: z.object({
        items: z.array(versionSummary).describe('The versions, newest first.'),
        count: z.number().int().min(0).describe('Number of items in `items`.'),
        next_cursor: z.string().nullable().optional().describe('Present when `limit` was sent: the cursor of the next page, or null on the last page.'),
      }),
      run: ({ id, ...page }, { core, caller }) => core.lifecycle.listVersions(kind, caller.account.id, id, page),
    }),
    getVersion: defineKeyedOperation({
      name: `get_${kind}_version`,
      title: `Get one version of a ${noun}`,
      description: `The definition a ${noun} had at one version, with the labels that name it.`,
      method: 'GET',
      path: `${path}/{id}/versions/{version}`,
      tag,
      effect: 'read',
      successStatus: 200,
      scopes: read,
      params: versionParams,
      output: versionSummary.extend({ definition: definition.describe(`The ${noun}'s definition at this version.`) }),
      run: ({ id, version }, { core, caller }) => core.lifecycle.getVersion(kind, caller.account.id, id, version) as never,
    }),
    setLabel: defineKeyedOperation({
      name: `set_${kind}_label`,
      title: `Label a version of a ${noun}`,
      description: `Points a label at a version, moving it if it was set: label version 2 \`production\` to run it by default; roll back by pointing \`production\` at an older version. A version that does not exist is refused, naming the ones that do.`,
      method: 'POST',
      path: `${path}/{id}/labels`,
      tag,
      effect: 'write',
      idempotent: true,
      successStatus: 200,
      scopes: write,
      params: idParams,
      body: z.strictObject({ label: labelName, version: versionNumber.describe('The version the label names.') }),
      output: labelsView,
      run: ({ id, label, version }, { core, caller }) => core.lifecycle.setLabel(kind, caller.account.id, id, label, version),
    }),
    removeLabel: defineKeyedOperation({
      name: `remove_${kind}_label`,
      title: `Remove a label from a ${noun}`,
      description: `Removes a label. Without \`production\`, executions that name no version run the newest one.`,
      method: 'DELETE',
      path: `${path}/{id}/labels/{label}`,
      tag,
      effect: 'destructive',
      successStatus: 200,
      scopes: write,
      params: labelParams,
      output: labelsView,
      run: ({ id, label }, { core, caller }) => core.lifecycle.removeLabel(kind, caller.account.id, id, label),
    }),
  };
  const { create, get, update, delete: remove, listVersions, getVersion, setLabel, removeLabel } = operations;
  /** In reading order: create, get, update, delete, then versions and labels. */
  return { ...operations, all: [create, get, update, remove, listVersions, getVersion, setLabel, removeLabel] as const };
}
