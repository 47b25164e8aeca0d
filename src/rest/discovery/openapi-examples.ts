/**
 * Examples for the OpenAPI document, synthesised from the JSON Schema of each request and
 * response. A field's own `examples` / `default` (zod `.meta({ examples })`, `.default()`) wins;
 * otherwise a value is built from the type and format. The caller keeps an example only when the
 * operation's real zod schema accepts it, so an example can never show something the API refuses.
 */
import { EXCLUSIVE_WITH, NOT_IN_EXAMPLES } from '../../operations/schemas.js';
import { isJsonObject, type JsonSchema } from './json-schema.js';

/** Fixed, valid values so the document is byte-stable between starts (no random ids or clocks). */
const EXAMPLE_UUID = '0196a0c4-7e3a-7c1e-9b1d-2f6c8e4a5b10';
const EXAMPLE_TIMESTAMP = '2026-05-05T09:30:00.000Z';
const EXAMPLE_MODEL_ID = 'echo/echo';
/** Nested schemas deeper than this are left out of examples (recursive schemas would never end). */
const MAX_EXAMPLE_DEPTH = 8;

export interface ExampleOptions {
  /** Requests show optional fields too (what can be sent); responses only the required ones. */
  includeOptional: boolean;
  /** Resolves `#/components/schemas/...` references. */
  shared: Record<string, JsonSchema>;
}

function resolve(schema: JsonSchema, shared: Record<string, JsonSchema>): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    return shared[ref.slice('#/components/schemas/'.length)] ?? {};
  }
  return schema;
}

function numberBetween(schema: JsonSchema, integer: boolean): number {
  const minimum =
    typeof schema.minimum === 'number'
      ? schema.minimum
      : typeof schema.exclusiveMinimum === 'number'
        ? schema.exclusiveMinimum + (integer ? 1 : 0.5)
        : undefined;
  const maximum = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  // 1 reads better than 0 for counts and sizes; stay inside the bounds either way.
  let value = minimum ?? 1;
  if (minimum !== undefined && minimum < 1 && (maximum === undefined || maximum >= 1)) value = 1;
  if (maximum !== undefined && value > maximum) value = maximum;
  return integer ? Math.ceil(value) : value;
}

function stringFor(schema: JsonSchema, key: string): string {
  switch (schema.format) {
    case 'uuid':
      return EXAMPLE_UUID;
    case 'date-time':
      return EXAMPLE_TIMESTAMP;
    case 'email':
      return 'ada@example.com';
    case 'uri':
    case 'url':
      return 'https://example.com/';
    default:
      break;
  }
  const base = key ? `Example ${key.replace(/_/g, ' ')}` : 'Example text';
  // A model id where one is asked for, not in every field whose pattern it happens to fit (regression: a title "echo/echo").
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : null;
  if (pattern !== null && /model/i.test(key) && pattern.test(EXAMPLE_MODEL_ID)) return EXAMPLE_MODEL_ID;
  // An identifier (a key, a node id, a variable name) rather than prose where the pattern asks for one.
  if (pattern !== null && !pattern.test(base)) {
    const identifier = `example_${key.replace(/[^A-Za-z0-9]+/g, '_').toLowerCase()}`;
    if (pattern.test(identifier)) return identifier;
  }
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  return base.padEnd(minLength, '.').slice(0, maxLength);
}

/** A combinator branch that names required fields and nothing else. */
function isRequirementOnly(branch: unknown): boolean {
  return isJsonObject(branch) && Object.keys(branch).every((name) => name === 'required');
}

function build(schema: JsonSchema, key: string, options: ExampleOptions, depth: number): unknown {
  if (depth > MAX_EXAMPLE_DEPTH) return undefined;
  const resolved = resolve(schema, options.shared);
  if (Array.isArray(resolved.examples) && resolved.examples.length > 0) return resolved.examples[0];
  if ('default' in resolved) return resolved.default;
  if ('const' in resolved) return resolved.const;
  if (Array.isArray(resolved.enum) && resolved.enum.length > 0) return resolved.enum[0];

  for (const combinator of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = resolved[combinator];
    if (!Array.isArray(branches)) continue;
    // Branches that only require fields of the object beside them ("input or context", "one field
    // to change") constrain it rather than replace it: the object is built with the first's fields.
    if (branches.every(isRequirementOnly)) {
      const firstRequired = isJsonObject(branches[0]) && Array.isArray(branches[0].required) ? branches[0].required : [];
      const required = [...(Array.isArray(resolved.required) ? resolved.required : []), ...firstRequired];
      const { [combinator]: _constraint, ...constrained } = resolved;
      return build({ ...constrained, required }, key, options, depth + 1);
    }
    const concrete = branches.filter(isJsonObject).filter((branch) => resolve(branch, options.shared).type !== 'null');
    const first = concrete[0];
    if (combinator === 'allOf') {
      return concrete.reduce<unknown>((merged, branch) => {
        const value = build(branch, key, options, depth + 1);
        // biome-ignore lint/performance/noAccumulatingSpread: allOf has a handful of branches, and the branches' examples must not be mutated.
        return isJsonObject(merged) && isJsonObject(value) ? { ...merged, ...value } : (value ?? merged);
      }, undefined);
    }
    return first ? build(first, key, options, depth + 1) : null;
  }

  const types = Array.isArray(resolved.type) ? resolved.type : [resolved.type];
  const type = types.find((candidate) => candidate !== 'null') ?? types[0];
  switch (type) {
    case 'object': {
      const properties = isJsonObject(resolved.properties) ? resolved.properties : {};
      const required = new Set(Array.isArray(resolved.required) ? resolved.required : []);
      const value: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(properties)) {
        if (!options.includeOptional && !required.has(name)) continue;
        if (!isJsonObject(property)) continue;
        if (resolve(property, options.shared)[NOT_IN_EXAMPLES] === true) continue;
        // Fields sent one or the other (`version`, `label`): an example shows the first only.
        const exclusive = resolve(property, options.shared)[EXCLUSIVE_WITH];
        if (Array.isArray(exclusive) && exclusive.some((other) => typeof other === 'string' && other in value)) continue;
        const example = build(property, name, options, depth + 1);
        if (example !== undefined) value[name] = example;
      }
      return value;
    }
    case 'array': {
      const items = isJsonObject(resolved.items) ? resolved.items : {};
      const item = build(items, key, options, depth + 1);
      const count = Math.max(1, typeof resolved.minItems === 'number' ? resolved.minItems : 1);
      return item === undefined ? [] : Array.from({ length: count }, () => item);
    }
    case 'string':
      return stringFor(resolved, key);
    case 'integer':
      return numberBetween(resolved, true);
    case 'number':
      return numberBetween(resolved, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return undefined;
  }
}

/** An example value for a schema, or undefined when none can be built. */
export function exampleFor(schema: JsonSchema, options: ExampleOptions): unknown {
  return build(schema, '', options, 0);
}

export { EXAMPLE_UUID, EXAMPLE_TIMESTAMP };
