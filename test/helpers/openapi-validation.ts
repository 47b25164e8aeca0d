/**
 * Checks a REST response against the generated OpenAPI document: the status must be documented
 * for the operation, required headers present and well-formed, the content type documented and
 * the body valid against its schema. The harness calls it for every response under the API base,
 * so the document can never drift from the server without a test failing.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { operations } from '../../src/operations/index.js';
import { exposedOn } from '../../src/operations/operation.js';
import { isJsonObject, type JsonSchema } from '../../src/rest/discovery/json-schema.js';
import {
  buildOpenApiDocument,
  type HeaderObject,
  type OpenApiDocument,
  type OperationObject,
  type ParameterObject,
  type ResponseObject,
} from '../../src/rest/discovery/openapi.js';

// ajv-formats is CommonJS: under NodeNext the default import is module.exports, whose `default` is the plugin.
const addFormats = ajvFormats.default;

export class OpenApiMismatchError extends Error {
  override readonly name = 'OpenApiMismatchError';
}

/** An Ajv over the document, and the validator it compiled for each schema. */
interface SchemaReader {
  ajv: Ajv2020;
  validators: Map<object, ValidateFunction>;
}

interface CompiledDocument extends SchemaReader {
  document: OpenApiDocument;
  routes: Array<{ template: string; pattern: RegExp; literalSegments: number }>;
  /** Compiles `pattern` without the `u` flag, as `new RegExp(pattern)` in a JavaScript client does; made on first use. */
  withoutUnicodeFlag?: SchemaReader;
}

let compiled: CompiledDocument | undefined;

/** The document the server serves (a discovery test checks /openapi.json equals this build). */
export function openApiDocumentForTests(): OpenApiDocument {
  return compiledDocument().document;
}

function compiledDocument(): CompiledDocument {
  if (compiled) return compiled;
  // The site URL only changes `servers` and links, never a schema.
  const document = buildOpenApiDocument(exposedOn(operations, 'discovery'), { siteUrl: 'http://127.0.0.1:3000' });
  const ajv = newAjv(true);
  const routes = Object.keys(document.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}/?$`),
    literalSegments: template.split('/').filter((segment) => segment !== '' && !segment.startsWith('{')).length,
  }));
  compiled = { document, ajv, routes, validators: new Map() };
  return compiled;
}

function newAjv(unicodeRegExp: boolean): Ajv2020 {
  // strict: false because OpenAPI schema objects may carry annotations Ajv does not know.
  const ajv = new Ajv2020({ strict: false, allErrors: true, unicodeRegExp });
  addFormats(ajv);
  return ajv;
}

function resolveRef<Target>(document: OpenApiDocument, value: Target | { $ref: string }): Target {
  if (isJsonObject(value) && typeof value.$ref === 'string') {
    const pointer = value.$ref
      .replace(/^#\//, '')
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
    let target: unknown = document;
    for (const part of pointer) target = isJsonObject(target) ? target[part] : undefined;
    if (target === undefined) throw new OpenApiMismatchError(`The document has a dangling reference ${value.$ref}.`);
    return target as Target;
  }
  return value as Target;
}

function validatorFor(state: CompiledDocument, schema: JsonSchema, reader: SchemaReader = state): ValidateFunction {
  let validate = reader.validators.get(schema);
  if (!validate) {
    // References point into the document's components, so the schema is compiled beside them.
    validate = reader.ajv.compile({ ...schema, components: state.document.components });
    reader.validators.set(schema, validate);
  }
  return validate;
}

function describeErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .map((error) => `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}${error.params ? ` ${JSON.stringify(error.params)}` : ''}`)
    .join('; ');
}

function excerpt(body: unknown): string {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return (text ?? '(empty)').slice(0, 400);
}

function checkHeaders(state: CompiledDocument, where: string, response: ResponseObject, headers: Headers): void {
  for (const [name, declared] of Object.entries(response.headers ?? {})) {
    const header = resolveRef<HeaderObject>(state.document, declared);
    const value = headers.get(name);
    if (value === null) {
      if (header.required) throw new OpenApiMismatchError(`${where}: the required header ${name} is missing.`);
      continue;
    }
    const typed = header.schema.type === 'integer' || header.schema.type === 'number' ? (/^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value) : value;
    const validate = validatorFor(state, header.schema);
    if (!validate(typed))
      throw new OpenApiMismatchError(`${where}: header ${name}: ${JSON.stringify(value)} does not match its schema: ${describeErrors(validate)}.`);
  }
}

function checkBody(state: CompiledDocument, where: string, method: string, response: ResponseObject, headers: Headers, body: unknown): void {
  const empty = body === undefined || body === '';
  if (!response.content) {
    if (!empty) throw new OpenApiMismatchError(`${where}: the document says no body, but got ${excerpt(body)}.`);
    return;
  }
  if (method === 'HEAD') return;
  const contentType = (headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const media = response.content[contentType];
  if (!media)
    throw new OpenApiMismatchError(`${where}: content type "${contentType}" is not documented (documented: ${Object.keys(response.content).join(', ')}).`);
  const validate = validatorFor(state, media.schema);
  if (!validate(body))
    throw new OpenApiMismatchError(`${where}: the body does not match the documented schema: ${describeErrors(validate)}. Body: ${excerpt(body)}`);
}

/**
 * Throws an OpenApiMismatchError naming what differs. `pathUnderBase` is the request path under
 * /api/public/v1 (a query string is ignored); `body` is the parsed JSON, or the text when the
 * response was not JSON, or undefined when it was empty.
 */
export function validateAgainstOpenApi(method: string, pathUnderBase: string, status: number, headers: Headers, body: unknown): void {
  const state = compiledDocument();
  const path = pathUnderBase.split('?')[0] || '/';
  const verb = method.toUpperCase();
  const where = `${verb} ${path} → ${status}`;

  const route = state.routes.filter((candidate) => candidate.pattern.test(path)).sort((a, b) => b.literalSegments - a.literalSegments)[0];
  let response: ResponseObject | undefined;
  if (!route) {
    if (status !== 404) throw new OpenApiMismatchError(`${where}: no documented path matches, so only 404 NOT_FOUND is expected. Body: ${excerpt(body)}`);
    response = resolveRef<ResponseObject>(state.document, state.document.components.responses.NotFound ?? { $ref: '' });
  } else {
    const item = state.document.paths[route.template] ?? {};
    const operation: OperationObject | undefined = item[(verb === 'HEAD' ? 'get' : verb.toLowerCase()) as keyof typeof item];
    if (!operation) {
      if (status !== 405)
        throw new OpenApiMismatchError(
          `${where}: ${verb} is not documented on ${route.template}, so only 405 METHOD_NOT_ALLOWED is expected. Body: ${excerpt(body)}`,
        );
      response = resolveRef<ResponseObject>(state.document, state.document.components.responses.MethodNotAllowed ?? { $ref: '' });
    } else {
      const declared = operation.responses[String(status)];
      if (!declared) {
        throw new OpenApiMismatchError(
          `${where}: status ${status} is not documented for ${operation.operationId} (documented: ${Object.keys(operation.responses).join(', ')}). Body: ${excerpt(body)}`,
        );
      }
      response = resolveRef<ResponseObject>(state.document, declared);
    }
  }
  checkHeaders(state, where, response, headers);
  checkBody(state, where, verb, response, headers, body);
}

export interface RequestParts {
  /** Query parameters as sent: strings, as a query string carries them. */
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** The JSON body; undefined when none is sent. */
  body?: unknown;
}

/** A query-string or header value as the document's schema reads it: integers and numbers from their literal form. */
function parameterValue(schema: JsonSchema, value: string): unknown {
  if (schema.type === 'integer') return /^-?[0-9]+$/.test(value) ? Number(value) : value;
  if (schema.type === 'number') return /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/.test(value) ? Number(value) : value;
  return value;
}

export interface RequestReading {
  /** Compile each `pattern` without the `u` flag, as a JavaScript client's `new RegExp(pattern)` does. */
  withoutUnicodeFlag?: boolean;
}

/**
 * What the generated OpenAPI document says about a request: the problems a validator reading the
 * document (Prism, a generated client) would find, or none when it accepts the request. Tests
 * compare it with the server's answer, so the two cannot disagree about what is valid.
 */
export function requestProblems(method: string, pathUnderBase: string, request: RequestParts = {}, reading: RequestReading = {}): string[] {
  const state = compiledDocument();
  let reader: SchemaReader = state;
  if (reading.withoutUnicodeFlag) {
    state.withoutUnicodeFlag ??= { ajv: newAjv(false), validators: new Map() };
    reader = state.withoutUnicodeFlag;
  }
  const path = pathUnderBase.split('?')[0] || '/';
  const route = state.routes.filter((candidate) => candidate.pattern.test(path)).sort((a, b) => b.literalSegments - a.literalSegments)[0];
  if (!route) return [`no documented path matches ${path}`];
  const item = state.document.paths[route.template] ?? {};
  const operation: OperationObject | undefined = item[method.toLowerCase() as keyof typeof item];
  if (!operation) return [`${method} is not documented on ${route.template}`];

  const problems: string[] = [];
  const headers = new Map(Object.entries(request.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  for (const declared of operation.parameters ?? []) {
    const parameter = resolveRef<ParameterObject>(state.document, declared);
    if (parameter.in === 'path') continue;
    const value = parameter.in === 'query' ? request.query?.[parameter.name] : headers.get(parameter.name.toLowerCase());
    if (value === undefined) {
      if (parameter.required) problems.push(`${parameter.in} parameter ${parameter.name} is required`);
      continue;
    }
    const validate = validatorFor(state, parameter.schema, reader);
    if (!validate(parameterValue(parameter.schema, value))) problems.push(`${parameter.in} parameter ${parameter.name}: ${describeErrors(validate)}`);
  }
  if (request.body === undefined) {
    if (operation.requestBody?.required) problems.push('the body is required');
  } else {
    const media = operation.requestBody?.content['application/json'];
    if (!media) problems.push('the operation takes no body');
    else {
      const validate = validatorFor(state, media.schema, reader);
      if (!validate(request.body)) problems.push(`body: ${describeErrors(validate)}`);
    }
  }
  return problems;
}
