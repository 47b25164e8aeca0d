/**
 * The API reference describes a composition's variables as a composition's, not as a workflow's
 * inputs (regression: every composition operation said "A declared input of the workflow.").
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { operations } from '../../src/operations/index.js';
import { buildOpenApiDocument } from '../../src/rest/discovery/openapi.js';

const document = buildOpenApiDocument(operations, { siteUrl: 'http://127.0.0.1:3000' });

const declarationSchema = z.object({ items: z.object({ description: z.string() }) });
/** A body's `variables`: the array of declarations, or (in a PATCH, where null resets it) that array or null. */
const variablesSchema = z.union([declarationSchema, z.object({ anyOf: z.array(z.unknown()) })]);
const bodySchema = z.object({ properties: z.object({ variables: variablesSchema }) });

/** The description of one declared variable in the JSON body `path` takes by `method`. */
function variableDescription(path: string, method: 'post' | 'patch'): string {
  const operation = z
    .object({ requestBody: z.object({ content: z.object({ 'application/json': z.object({ schema: bodySchema }) }) }) })
    .parse((document.paths[path] as Record<string, unknown> | undefined)?.[method]);
  const variables = operation.requestBody.content['application/json'].schema.properties.variables;
  const array = 'items' in variables ? variables : variables.anyOf.map((choice) => declarationSchema.safeParse(choice)).find((parsed) => parsed.success)?.data;
  return array?.items.description ?? '';
}

describe('declared variables in the API reference', () => {
  it("describes a composition's variables as the composition's, a workflow's as the workflow's", () => {
    for (const [path, method] of [
      ['/compositions', 'post'],
      ['/compositions/{id}', 'patch'],
    ] as const) {
      const description = variableDescription(path, method);
      expect(description, `${method} ${path}`).toMatch(/^A declared variable of the composition/);
      expect(description, `${method} ${path}`).not.toContain('workflow');
    }
    expect(variableDescription('/workflows', 'post')).toBe('A declared input of the workflow.');
  });
});
