/**
 * The API reference as Markdown, rendered from the OpenAPI document (not from a second
 * description), for `Accept: text/markdown`, the Markdown gateway and the no-script fallback of
 * the browsable reference.
 */
import { isJsonObject, type JsonSchema } from './json-schema.js';
import type { OpenApiDocument, OperationObject, ParameterObject, ResponseObject } from './openapi.js';
import { SITE_PATHS } from '../../operations/site-paths.js';

function deref<Target>(document: OpenApiDocument, value: Target | { $ref: string }): Target | undefined {
  if (!isJsonObject(value) || typeof value.$ref !== 'string') return value as Target;
  let target: unknown = document;
  for (const part of value.$ref.replace(/^#\//, '').split('/')) target = isJsonObject(target) ? target[part] : undefined;
  return target as Target | undefined;
}

/** A short type label: `string (uuid)`, `integer`, `array of string`, `"a" | "b"`, `string or null`. */
function typeLabel(document: OpenApiDocument, schema: JsonSchema | undefined): string {
  if (!schema) return 'any';
  const resolved = deref<JsonSchema>(document, schema) ?? {};
  if ('const' in resolved) return JSON.stringify(resolved.const);
  if (Array.isArray(resolved.enum)) return resolved.enum.map((value) => JSON.stringify(value)).join(' \\| ');
  const branches = Array.isArray(resolved.anyOf) ? resolved.anyOf : Array.isArray(resolved.oneOf) ? resolved.oneOf : undefined;
  if (branches)
    return branches
      .filter(isJsonObject)
      .map((branch) => typeLabel(document, branch))
      .join(' or ');
  const types = Array.isArray(resolved.type) ? resolved.type : resolved.type === undefined ? [] : [resolved.type];
  const labels = types.map((type) => {
    if (type === 'array') return `array of ${typeLabel(document, isJsonObject(resolved.items) ? resolved.items : undefined)}`;
    if (type === 'string' && typeof resolved.format === 'string') return `string (${resolved.format})`;
    return String(type);
  });
  return labels.length > 0 ? labels.join(' or ') : 'any';
}

function cell(text: unknown): string {
  return typeof text === 'string' ? text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ') : '';
}

function fieldTable(document: OpenApiDocument, schema: JsonSchema | undefined): string[] {
  const resolved = schema ? deref<JsonSchema>(document, schema) : undefined;
  if (!resolved || !isJsonObject(resolved.properties)) return [];
  const required = new Set(Array.isArray(resolved.required) ? resolved.required : []);
  const rows = Object.entries(resolved.properties).map(([name, property]) => {
    const described = isJsonObject(property) ? property : {};
    return `| \`${name}\` | ${typeLabel(document, described)} | ${required.has(name) ? 'yes' : 'no'} | ${cell(described.description)} |`;
  });
  return ['| Field | Type | Required | Description |', '|---|---|---|---|', ...rows];
}

function operationSection(document: OpenApiDocument, method: string, path: string, operation: OperationObject): string[] {
  const tool = operation['x-porch-tool'] ? ` · MCP tool \`${operation['x-porch-tool']}\`` : '';
  const lines = [
    `### ${operation.summary}`,
    '',
    `\`${method.toUpperCase()} ${path}\` · operationId \`${operation.operationId}\`${tool}`,
    '',
    operation.description,
    '',
  ];
  const parameters = (operation.parameters ?? [])
    .map((parameter) => deref<ParameterObject>(document, parameter))
    .filter((parameter): parameter is ParameterObject => parameter !== undefined);
  if (parameters.length > 0) {
    lines.push('Parameters:', '', '| Name | In | Type | Required | Description |', '|---|---|---|---|---|');
    for (const parameter of parameters)
      lines.push(
        `| \`${parameter.name}\` | ${parameter.in} | ${typeLabel(document, parameter.schema)} | ${parameter.required ? 'yes' : 'no'} | ${cell(parameter.description)} |`,
      );
    lines.push('');
  }
  const body = operation.requestBody?.content['application/json'];
  if (body) {
    lines.push(`Request body (JSON${operation.requestBody?.required ? '' : ', optional'}):`, '', ...fieldTable(document, body.schema), '');
    if (body.example !== undefined) lines.push('```json', JSON.stringify(body.example, null, 2), '```', '');
  }
  for (const [status, declared] of Object.entries(operation.responses)) {
    const response = deref<ResponseObject>(document, declared);
    if (!response || Number(status) >= 400) continue;
    const json = response.content?.['application/json'];
    const data = json && isJsonObject(json.schema.properties) ? (json.schema.properties as Record<string, JsonSchema>).data : undefined;
    if (data) {
      lines.push(`Response \`${status}\`: \`{"success": true, "data": ...}\` where \`data\` is:`, '', ...fieldTable(document, data), '');
    } else if (response.content) {
      lines.push(`Response \`${status}\`: ${Object.keys(response.content).join(', ')} (not the JSON envelope).`, '');
    } else {
      lines.push(`Response \`${status}\`: no body.`, '');
    }
  }
  const errors = Object.entries(operation.responses)
    .filter(([status]) => Number(status) >= 400)
    .map(([status, declared]) => `- \`${status}\`: ${deref<ResponseObject>(document, declared)?.description ?? ''}`);
  if (errors.length > 0) lines.push('Errors:', '', ...errors, '');
  return lines;
}

/** A heading of the reference: a tag, or an operation under it. */
export interface ReferenceHeading {
  /** The heading's text (the tag, or the operation's summary). */
  text: string;
  /** Where Swagger UI shows the same: the tag, then the operationId for an operation (its deep link, `#/Personas/talkToPersona`). */
  deepLink: readonly [tag: string] | readonly [tag: string, operationId: string];
}

export interface ApiReferenceMarkdown {
  markdown: string;
  /** The tags' and operations' headings, in the order the Markdown has them. */
  headings: ReferenceHeading[];
}

export function renderApiReferenceMarkdown(document: OpenApiDocument): ApiReferenceMarkdown {
  const headings: ReferenceHeading[] = [];
  const lines = [
    '# API reference',
    '',
    `${document.info.title} ${document.info.version}. Base URL: \`${document.servers[0]?.url ?? SITE_PATHS.apiBase}\`.`,
    `The machine-readable description is [openapi.json](${SITE_PATHS.openApiJson}) ([YAML](${SITE_PATHS.openApiYaml})); this page is rendered from it.`,
    '',
    document.info.description,
    '',
  ];
  for (const { name: tag } of document.tags) {
    lines.push(`## ${tag}`, '');
    headings.push({ text: tag, deepLink: [tag] });
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!operation?.tags.includes(tag)) continue;
        lines.push(...operationSection(document, method, path, operation));
        headings.push({ text: operation.summary, deepLink: [tag, operation.operationId] });
      }
    }
  }
  const markdown = `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
  return { markdown, headings };
}
