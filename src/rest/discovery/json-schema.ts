/**
 * zod → JSON Schema 2020-12 (the dialect of OpenAPI 3.1) through zod's own `z.toJSONSchema`, so
 * the documented shape is computed by the same library that validates requests. Named sub-schemas
 * (`.meta({ id })`, and the shared ones component-schemas.ts names) land in `$defs`; they are
 * hoisted into `components.schemas` because `#` in an OpenAPI document means the document root,
 * not the schema.
 */
import { z } from 'zod';
import { COMPONENT_REGISTRY } from './component-schemas.js';

/** A JSON Schema object as it appears in the OpenAPI document. */
export type JsonSchema = { [keyword: string]: unknown };

/** `input` for what a client sends (defaults optional, coercions show the wire type); `output` for what the server answers. */
export type SchemaDirection = 'input' | 'output';

const DEFS_PREFIX = '#/$defs/';
const COMPONENTS_PREFIX = '#/components/schemas/';

function isJsonObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (!isJsonObject(value)) return value;
  const copy: JsonSchema = {};
  for (const [key, inner] of Object.entries(value)) {
    copy[key] =
      key === '$ref' && typeof inner === 'string' && inner.startsWith(DEFS_PREFIX) ? COMPONENTS_PREFIX + inner.slice(DEFS_PREFIX.length) : rewriteRefs(inner);
  }
  return copy;
}

/**
 * Converts one zod schema. `sharedSchemas` collects hoisted named schemas; two different schemas
 * under one name are a definition error, reported rather than silently merged.
 */
export function toOpenApiSchema(schema: z.ZodType, direction: SchemaDirection, sharedSchemas: Record<string, JsonSchema>): JsonSchema {
  // `unrepresentable: 'any'` keeps a transform or a custom check from breaking the whole document:
  // that one field is documented as "any value" while the rest stays exact.
  const converted = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: direction,
    unrepresentable: 'any',
    reused: 'inline',
    cycles: 'ref',
    metadata: COMPONENT_REGISTRY,
  }) as JsonSchema;
  const { $schema: _dialect, $defs, ...rest } = converted;
  if (isJsonObject($defs)) {
    for (const [name, definition] of Object.entries($defs)) {
      const rewritten = rewriteRefs(definition) as JsonSchema;
      const existing = sharedSchemas[name];
      if (existing && JSON.stringify(existing) !== JSON.stringify(rewritten)) {
        // Also the case of a schema named in component-schemas.ts whose request and response forms differ (a default, a transform).
        throw new Error(`Two different schemas are named "${name}"; give one of them another id.`);
      }
      sharedSchemas[name] = rewritten;
    }
  }
  return rewriteRefs(rest) as JsonSchema;
}

/** The properties and required names of an object schema (path and query parameters). */
export function objectProperties(schema: JsonSchema): { properties: Record<string, JsonSchema>; required: Set<string> } {
  const properties = isJsonObject(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : []);
  return { properties, required };
}

export { isJsonObject };
