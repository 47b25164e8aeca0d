/** The generated OpenAPI document: valid, complete, derived from the operations, served as JSON and YAML. */
import { compileErrors, validate } from '@readme/openapi-parser';
import { Marked } from 'marked';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defined } from '../helpers/defined.js';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { API_ERROR_CODES, ERROR_TABLE } from '../../src/core/errors.js';
import { API_VERSION } from '../../src/core/health.js';
import { LONE_SURROGATE_MESSAGE, NUL_MESSAGE, PROTO_KEY_MESSAGE } from '../../src/core/validation.js';
import { operations } from '../../src/operations/index.js';
import { exposedOn } from '../../src/operations/operation.js';
import { defineKeyedOperation, isExposedOn, operationId, type Operation } from '../../src/operations/operation.js';
import { API_BASE_PATH } from '../../src/rest/create-rest-app.js';
import { textOfHtml } from '../../src/rest/discovery/html-layout.js';
import { isJsonObject, type JsonSchema } from '../../src/rest/discovery/json-schema.js';
import { buildOpenApiDocument, documentedErrorCodes, possibleErrorCodes, type OpenApiDocument, type ResponseObject } from '../../src/rest/discovery/openapi.js';
import { SITE_PATHS } from '../../src/operations/site-paths.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { openApiDocumentForTests } from '../helpers/openapi-validation.js';

const SITE_URL = 'http://127.0.0.1:3000';
/** Compact JSON characters from which a subtree written out again and again should be a shared component. */
const LARGE_SUBTREE_CHARACTERS = 1_000;
const all = exposedOn(operations, 'discovery');
const document = buildOpenApiDocument(all, { siteUrl: SITE_URL });

function deref<Target>(value: Target | { $ref: string }): Target {
  if (isJsonObject(value) && typeof value.$ref === 'string') {
    let target: unknown = document;
    for (const part of value.$ref.replace(/^#\//, '').split('/')) target = isJsonObject(target) ? target[part] : undefined;
    return target as Target;
  }
  return value as Target;
}

function operationObject(operation: Operation) {
  const item = document.paths[operation.path];
  return item?.[operation.method.toLowerCase() as keyof typeof item];
}

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness({ env: { PORCH_PUBLIC_URL: SITE_URL } });
});
afterAll(() => harness.close());

describe('the OpenAPI document', () => {
  it('passes an OpenAPI 3.1 validator', async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe(API_VERSION);
  });

  it("keeps the discovery copy of the API base path equal to the app's", () => {
    expect(SITE_PATHS.apiBase).toBe(API_BASE_PATH);
    expect(document.servers[0]?.url).toBe(`${SITE_URL}${API_BASE_PATH}`);
  });

  it.each(all.map((operation) => [operation.name, operation] as const))(
    'documents %s: path, method, operationId, scopes and every error it can answer with',
    (_name, operation) => {
      const entry = operationObject(operation);
      expect(entry, `${operation.method} ${operation.path} is missing`).toBeDefined();
      if (!entry) return;
      expect(entry.operationId).toBe(operationId(operation));
      expect(entry.summary).toBe(operation.title);
      expect(entry.tags).toEqual([operation.tag]);
      expect(entry['x-porch-tool']).toBe(isExposedOn(operation, 'mcp-tool') ? operation.name : undefined);
      expect(entry.responses[String(operation.successStatus)]).toBeDefined();
      for (const code of possibleErrorCodes(operation)) {
        const response = entry.responses[String(ERROR_TABLE[code].status)];
        expect(response, `${operation.name} does not document ${code}`).toBeDefined();
        expect(deref<ResponseObject>(response ?? { $ref: '' }).description).toContain(`\`${code}\``);
      }
      if (operation.access === 'keyed') {
        expect(entry['x-porch-scopes']).toEqual([...operation.scopes]);
        expect(entry.security).toContainEqual({ ApiKeyAuth: [operation.scopes[0]] });
      } else {
        expect(entry.security).toEqual([]);
      }
      if (operation.body) expect(entry.requestBody?.content['application/json']?.schema).toBeDefined();
    },
  );

  it('mentions every code of the error table the API can answer somewhere', () => {
    const documented = documentedErrorCodes(all);
    expect(API_ERROR_CODES.filter((code) => !documented.has(code))).toEqual([]);
  });

  it('documents the X-API-Key security scheme, the rate-limit, credit and version headers', () => {
    expect(document.components.securitySchemes.ApiKeyAuth).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    for (const header of [
      'X-API-Version',
      'X-Request-Id',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'X-Credits-Remaining',
      'Retry-After',
    ]) {
      expect(document.components.headers[header], header).toBeDefined();
    }
    const list = document.paths['/workflows']?.get?.responses['200'] as ResponseObject;
    expect(Object.keys(list.headers ?? {})).toEqual(expect.arrayContaining(['X-API-Version', 'X-RateLimit-Limit', 'X-Credits-Remaining']));
    const tooMany = deref<ResponseObject>(document.paths['/workflows']?.get?.responses['429'] ?? { $ref: '' });
    expect(deref<{ required?: boolean }>(tooMany.headers?.['Retry-After'] ?? { $ref: '' }).required).toBe(true);
    // A run read while it has not ended says when to read it again (regression: sent, not declared).
    const run = document.paths['/runs/{id}']?.get?.responses['200'] as ResponseObject;
    expect(run.headers?.['Retry-After']).toMatchObject({ required: false, schema: { type: 'integer' } });
    expect(list.headers?.['Retry-After']).toBeUndefined();
  });

  it('documents query parameters by their input shape (a coerced number is an integer parameter)', () => {
    const parameters = document.paths['/context-cards']?.get?.parameters ?? [];
    expect(parameters).toContainEqual(
      expect.objectContaining({ name: 'limit', in: 'query', required: false, schema: expect.objectContaining({ type: 'integer', minimum: 1 }) }),
    );
    expect(parameters).toContainEqual(expect.objectContaining({ name: 'cursor', in: 'query', schema: expect.objectContaining({ format: 'uuid' }) }));
    const idParameter = document.paths['/context-cards/{id}']?.get?.parameters?.[0];
    expect(idParameter).toMatchObject({ name: 'id', in: 'path', required: true });
  });

  it('gives request examples the server accepts as written: one of version and label, real scopes and providers, a future expiry (regression: refused)', () => {
    const bodyExample = (path: string, method: 'post' | 'patch' = 'post') =>
      (document.paths[path]?.[method]?.requestBody as { content: Record<string, { example?: Record<string, unknown> }> } | undefined)?.content[
        'application/json'
      ]?.example;
    for (const path of ['/compositions/{id}/execute', '/workflows/{id}/execute', '/personas/{id}/execute', '/skills/{id}/execute']) {
      const example = bodyExample(path);
      // A body whose schema requires one field or another has an example too (regression: the skill's had none).
      expect(example, path).toBeDefined();
      expect('version' in (example ?? {}) && 'label' in (example ?? {}), path).toBe(false);
    }
    const version = document.paths['/compositions/{id}/execute']?.post?.requestBody as { content: Record<string, { schema: unknown }> };
    expect(JSON.stringify(version.content['application/json']?.schema)).toContain('"x-porch-exclusive-with"');
    const key = bodyExample('/keys') ?? {};
    expect(key.scopes).toEqual(['execute:workflow', 'read:usage']);
    expect(Date.parse(String(key.expires_at))).toBeGreaterThan(Date.now());
    expect(key.name).not.toBe('echo/echo');
    expect(bodyExample('/organisation/byok-keys')?.provider).toBe('openai');
    expect(bodyExample('/context-cards')?.title).not.toBe('echo/echo');
    expect(bodyExample('/judge/run')?.prompt).not.toBe('echo/echo');
    // expected_version depends on what the caller read: no example names one (regression: 409 past version 1).
    expect(bodyExample('/context-cards/{id}', 'patch')).not.toHaveProperty('expected_version');
    expect(bodyExample('/compositions/{id}', 'patch')).toBeDefined();
    expect(bodyExample('/compositions/{id}', 'patch')).not.toHaveProperty('expected_version');
  });

  it('gives every JSON request body an example (regression: none for creating or changing a catalog item, or calling a skill)', () => {
    const without: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item ?? {})) {
        const body = (operation as { requestBody?: { content: Record<string, { example?: unknown }> } }).requestBody?.content['application/json'];
        if (body !== undefined && body.example === undefined) without.push(`${method.toUpperCase()} ${path}`);
      }
    }
    // A sanitiser rule is a regex or a keyword list: no one example fits both kinds.
    expect(without).toEqual(['POST /organisation/sanitiser-rules']);
  });

  it('gives every example a value its own schema accepts', () => {
    const ajv = new Ajv2020({ strict: false });
    ajvFormats.default(ajv);
    // The components are compiled once, under their own id, and each example's schema points at
    // them there: compiling them again with every example took tens of seconds.
    const COMPONENTS_ID = 'https://porch.test/openapi';
    ajv.addSchema({ $id: COMPONENTS_ID, components: document.components });
    const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
    const check = (where: string, schema: JsonSchema, value: unknown) => {
      const source = JSON.stringify(schema).replaceAll('"#/components/', `"${COMPONENTS_ID}#/components/`);
      const validateExample = compiled.get(source) ?? ajv.compile(JSON.parse(source));
      compiled.set(source, validateExample);
      expect(validateExample(value), `${where}: ${JSON.stringify(validateExample.errors)}`).toBe(true);
    };
    let examples = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, entry] of Object.entries(item)) {
        if (!entry) continue;
        const body = entry.requestBody?.content['application/json'];
        if (body?.example !== undefined) {
          check(`${method} ${path} request`, body.schema, body.example);
          examples += 1;
        }
        // Path and query parameters too (regression: a label and a cursor showed "Example text").
        for (const parameter of entry.parameters ?? []) {
          if (!('name' in parameter) || parameter.example === undefined) continue;
          check(`${method} ${path} parameter ${parameter.name}`, parameter.schema as JsonSchema, parameter.example);
          examples += 1;
        }
        for (const [status, declared] of Object.entries(entry.responses)) {
          for (const [type, media] of Object.entries(deref<ResponseObject>(declared).content ?? {})) {
            if (media.example !== undefined) {
              check(`${method} ${path} ${status} ${type}`, media.schema, media.example);
              examples += 1;
            }
            for (const [name, example] of Object.entries(media.examples ?? {})) {
              check(`${method} ${path} ${status} ${name}`, media.schema, example.value);
              examples += 1;
            }
          }
        }
      }
    }
    expect(examples).toBeGreaterThan(all.length);
  });

  it('covers a new operation with no change to the generator: an execute with an id and a body gets credits, model, BYOK, guardrail and conflict errors', () => {
    const extra = defineKeyedOperation({
      name: 'execute_gadget',
      title: 'Execute a gadget',
      description: 'A made-up operation for this test.',
      method: 'POST',
      path: '/gadgets/{id}/execute',
      tag: 'Gadgets',
      effect: 'execute',
      successStatus: 200,
      scopes: ['execute:skill'],
      idempotencyKey: true,
      params: z.object({ id: z.uuid() }),
      body: z.strictObject({ input: z.string().min(1).describe('Input.') }),
      output: z.object({ content: z.string() }).meta({ examples: [{ content: 'A gadget answer.' }] }),
      run: async () => ({ content: '' }),
    });
    const extended = buildOpenApiDocument([...all, extra], { siteUrl: SITE_URL });
    const entry = extended.paths['/gadgets/{id}/execute']?.post;
    expect(entry?.operationId).toBe('executeGadget');
    expect(Object.keys(entry?.responses ?? {})).toEqual([
      '200',
      '400',
      '401',
      '402',
      '403',
      '404',
      '405',
      '408',
      '409',
      '413',
      '415',
      '422',
      '429',
      '431',
      '500',
      '502',
      '503',
    ]);
    expect(entry?.requestBody?.required).toBe(true);
    expect(entry?.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    // An example written on the schema (zod .meta({ examples })) wins over a synthesised one.
    expect((defined(entry, 'the execute_workflow entry').responses['200'] as ResponseObject).content?.['application/json']?.example).toEqual({
      success: true,
      data: { content: 'A gadget answer.' },
    });
  });

  it("references every shared response it defines, the router's 404 and 405 included (regression: defined but never used)", () => {
    const text = JSON.stringify(document.paths);
    const unused = Object.keys(document.components.responses).filter((name) => !text.includes(`"#/components/responses/${name}"`));
    expect(unused).toEqual([]);
    expect(text).toContain('"#/components/responses/NotFound"');
    expect(text).toContain('"#/components/responses/MethodNotAllowed"');
  });

  it('shows every description as written: no emphasis out of an error message or a scope pattern (regression: `(__proto__)` rendered as a bold "(proto)")', () => {
    // Swagger UI and the API reference page render descriptions as Markdown; the document never means emphasis.
    const markdown = new Marked({ gfm: true });
    const emphasised: string[] = [];
    const visit = (value: unknown, path: string): void => {
      if (Array.isArray(value)) {
        for (const [index, item] of value.entries()) visit(item, `${path}/${index}`);
        return;
      }
      if (!isJsonObject(value)) return;
      for (const [key, inner] of Object.entries(value)) {
        if ((key === 'description' || key === 'summary') && typeof inner === 'string') {
          const html = markdown.parse(inner, { async: false });
          if (/<(?:em|strong|del)>/.test(html)) emphasised.push(`${path}/${key}: ${inner.slice(0, 120)}`);
        } else {
          visit(inner, `${path}/${key}`);
        }
      }
    };
    visit(document, '');
    expect(emphasised).toEqual([]);
    const introduction = textOfHtml(markdown.parse(document.info.description, { async: false }));
    for (const message of [NUL_MESSAGE, LONE_SURROGATE_MESSAGE, PROTO_KEY_MESSAGE]) expect(introduction).toContain(message);
  });

  it('describes every tag', () => {
    expect(document.tags.filter((tag) => tag.description.length === 0)).toEqual([]);
  });

  it('is what the server serves at /openapi.json and, as YAML, at /api/openapi.yaml', async () => {
    const json = await harness.site<OpenApiDocument>('GET', SITE_PATHS.openApiJson);
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    expect(json.body).toEqual(JSON.parse(JSON.stringify(document)));
    const yaml = await harness.site('GET', SITE_PATHS.openApiYaml);
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(parseYaml(yaml.text)).toEqual(json.body);
    // The response validator checks against the same document (only the site URL differs).
    const forTests = openApiDocumentForTests();
    expect({ ...forTests, servers: [], externalDocs: null }).toEqual({ ...JSON.parse(JSON.stringify(document)), servers: [], externalDocs: null });
  });

  it('serves openapi.json compact, not indented (regression: 1.26 MB indented, twice its size, for tools that parse it anyway)', async () => {
    const json = await harness.site('GET', SITE_PATHS.openApiJson);
    expect(json.status).toBe(200);
    // Lengths, not texts: a failure would print the whole document twice.
    expect(json.text.length).toBe(`${JSON.stringify(json.body)}\n`.length);
  });

  it('writes no large schema out three times or more: shared ones are components, referenced (regression: the workflow node, 7 KB, six times)', () => {
    const copies = new Map<string, number>();
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) {
        for (const item of value) visit(item);
        return;
      }
      if (!isJsonObject(value)) return;
      const text = JSON.stringify(value);
      if (text.length >= LARGE_SUBTREE_CHARACTERS) copies.set(text, (copies.get(text) ?? 0) + 1);
      for (const inner of Object.values(value)) visit(inner);
    };
    visit(document);
    const repeated = [...copies].filter(([, count]) => count >= 3).map(([text, count]) => `${count} × ${text.slice(0, 160)}`);
    expect(repeated).toEqual([]);
    const body = operationObject(
      defined(
        all.find((operation) => operation.name === 'create_workflow'),
        'create_workflow',
      ),
    )?.requestBody;
    const nodes = (body?.content['application/json']?.schema.properties as Record<string, JsonSchema> | undefined)?.nodes;
    expect(nodes?.items).toEqual({ $ref: '#/components/schemas/WorkflowNode' });
    expect(document.components.schemas.WorkflowNode).toMatchObject({ oneOf: expect.any(Array) });
  });

  it('serves YAML that a YAML 1.1 parser reads back unchanged: dates stay strings (regression: info.version became a date)', async () => {
    const yaml = await harness.site('GET', SITE_PATHS.openApiYaml);
    const asYaml11 = parseYaml(yaml.text, { version: '1.1' }) as OpenApiDocument;
    expect(asYaml11.info.version).toBe(API_VERSION);
    expect(yaml.text).toContain(`version: "${API_VERSION}"`);
    expect(asYaml11).toEqual(JSON.parse(JSON.stringify(document)));
  });

  it('declares no jsonSchemaDialect, so validators such as Prism check bodies under the OpenAPI 3.1 default (regression: Prism skipped them)', () => {
    expect(document).not.toHaveProperty('jsonSchemaDialect');
  });

  it('answers the API root with links to the discovery documents and the catalog Link header', async () => {
    const response = await harness.api<{ links: Record<string, string> }>('GET', '');
    expect(response.status).toBe(200);
    expect(response.headers.get('link')).toBe(`<${SITE_URL}${SITE_PATHS.apiCatalog}>; rel="api-catalog"`);
    expect(response.body.data.links).toMatchObject({
      openapi: `${SITE_URL}/openapi.json`,
      api_catalog: `${SITE_URL}/.well-known/api-catalog`,
      health: `${SITE_URL}/api/public/v1/health`,
    });
    const wrongMethod = await harness.api('POST', '', { body: {} });
    expect(wrongMethod.status).toBe(405);
  });
});
