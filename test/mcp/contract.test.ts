/**
 * The contract between the operation definitions and the MCP tools, read through a real client:
 * every operation has exactly one tool, named after it, whose input schema is the operation's
 * path, query and body fields and whose output schema is the operation's output.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/client';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ALL_SCOPES } from '../../src/core/access/scopes.js';
import { operations } from '../../src/operations/index.js';
import { exposedOn, type Operation } from '../../src/operations/operation.js';
import { IDEMPOTENCY_KEY_DESCRIPTION } from '../../src/mcp/tools.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { connectInMemory, type McpConnection } from '../helpers/mcp-client.js';

let harness: Harness;
let connection: McpConnection;
let tools: Tool[];
beforeAll(async () => {
  harness = await createHarness();
  const { key } = await harness.expertWithKey({ scopes: [...ALL_SCOPES] });
  connection = await connectInMemory(harness, { key });
  tools = (await connection.client.listTools()).tools;
});
afterAll(async () => {
  await connection.close();
  await harness.close();
});

/** MCP 2025-11-25: tool schemas are JSON Schema 2020-12 (its default dialect). */
const DIALECT = { target: 'draft-2020-12' } as const;

/** The operation's fields as JSON Schema, part by part, merged the way a flat argument object must be. */
function expectedInput(operation: Operation) {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const part of [operation.params, operation.query, operation.body]) {
    if (!part) continue;
    const json = z.toJSONSchema(part, { ...DIALECT, io: 'input' });
    Object.assign(properties, json.properties);
    required.push(...(json.required ?? []));
  }
  const strictBody = operation.body ? z.toJSONSchema(operation.body, { ...DIALECT, io: 'input' }).additionalProperties === false : false;
  return { properties, required, strictBody };
}

/**
 * The writes a repeat leaves as the first call did (regression: every PATCH was hinted
 * idempotent, the catalog updates that write a version per call included, and no POST was).
 */
const IDEMPOTENT_WRITES = new Set([
  'set_composition_label',
  'set_skill_label',
  'set_persona_label',
  'set_workflow_label',
  'put_byok_key',
  'put_sanitiser_rule',
  'set_credits_low_threshold',
  'update_organisation_policies',
  'update_webhook',
  'cancel_run',
]);

const EXPECTED_ANNOTATIONS = {
  read: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  destructive: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  execute: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
} as const;

it('lists exactly one tool per operation, plus analyze_prompt, and nothing else', () => {
  const names = tools.map((tool) => tool.name);
  expect(new Set(names).size).toBe(names.length);
  expect([...names].sort()).toEqual(
    exposedOn(operations, 'mcp-tool')
      .map((operation) => operation.name)
      .sort(),
  );
});

describe.each(exposedOn(operations as readonly Operation[], 'mcp-tool').map((operation) => [operation.name, operation] as const))('%s', (name, operation) => {
  const tool = () => {
    const found = tools.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no tool ${name}`);
    return found;
  };

  it("takes the operation's path, query and body fields as its input schema", () => {
    const expected = expectedInput(operation);
    const schema = tool().inputSchema;
    expect(schema.type).toBe('object');
    expect(schema.properties ?? {}).toEqual(expected.properties);
    expect([...(schema.required ?? [])].sort()).toEqual([...expected.required].sort());
    expect(schema.additionalProperties === false).toBe(expected.strictBody);
  });

  it("answers with the operation's output schema (none for an empty answer or a document)", () => {
    if (operation.output === null || operation.responseType === 'markdown') {
      expect(tool().outputSchema).toBeUndefined();
      return;
    }
    expect(tool().outputSchema).toEqual(z.toJSONSchema(operation.output, { ...DIALECT, io: 'output' }));
  });

  it('carries the title, description and annotations its effect implies', () => {
    expect(tool().title).toBe(operation.title);
    expect(tool().description).toBe(operation.idempotencyKey === true ? `${operation.description} ${IDEMPOTENCY_KEY_DESCRIPTION}` : operation.description);
    const expected =
      operation.effect === 'write'
        ? { readOnlyHint: false, destructiveHint: false, idempotentHint: IDEMPOTENT_WRITES.has(operation.name), openWorldHint: false }
        : EXPECTED_ANNOTATIONS[operation.effect];
    expect(tool().annotations).toEqual(expected);
  });
});

it('tells how an MCP client sends an idempotency key, which a stdio client cannot send as a header (regression: "send an Idempotency-Key header")', () => {
  const executes = tools.filter((tool) => ['execute_workflow', 'execute_composition', 'execute_skill', 'execute_persona', 'run_judge'].includes(tool.name));
  expect(executes).toHaveLength(5);
  for (const tool of executes) expect(tool.description, tool.name).toContain('_meta as "porch/idempotency-key"');
  expect(tools.find((tool) => tool.name === 'list_workflows')?.description).not.toContain('idempotency');
});

it('describes every argument of every tool, so an agent knows what to send', () => {
  const undescribed = tools.flatMap((tool) =>
    Object.entries(tool.inputSchema.properties ?? {})
      .filter(([, property]) => typeof (property as { description?: unknown }).description !== 'string')
      .map(([field]) => `${tool.name}.${field}`),
  );
  expect(undescribed).toEqual([]);
});

it('declares every input and output schema as JSON Schema 2020-12, valid against its meta-schema (regression: draft-07)', () => {
  // Ajv's 2020-12 build checks each schema against the 2020-12 meta-schema when it compiles it.
  const ajv = new Ajv2020({ strict: false });
  for (const tool of tools) {
    for (const schema of [tool.inputSchema, tool.outputSchema]) {
      if (schema === undefined) continue;
      expect(schema.$schema, tool.name).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(() => ajv.compile(schema), tool.name).not.toThrow();
    }
  }
});

it("refuses in analyze_prompt's input schema the blank prompt the server refuses (regression: the schema accepted it)", () => {
  const analyze = tools.find((tool) => tool.name === 'analyze_prompt');
  if (!analyze) throw new Error('analyze_prompt is not listed');
  const validate = new Ajv2020({ strict: false }).compile(analyze.inputSchema);
  expect(validate({ prompt: ' \n\t ' })).toBe(false);
  expect(validate({ prompt: ' Write a haiku. ' })).toBe(true);
});

it('shows only the public tools without a key', async () => {
  const anonymous = await connectInMemory(harness);
  try {
    const names = (await anonymous.client.listTools()).tools.map((listed) => listed.name).sort();
    expect(names).toEqual(
      exposedOn(operations, 'mcp-tool')
        .filter((operation) => operation.access === 'public')
        .map((operation) => operation.name)
        .sort(),
    );
  } finally {
    await anonymous.close();
  }
});

it('documents every tool in docs/mcp.md', () => {
  const documentation = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'mcp.md'), 'utf8');
  expect(tools.map((tool) => tool.name).filter((name) => !documentation.includes(`| \`${name}\` |`))).toEqual([]);
});
