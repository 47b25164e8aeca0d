#!/usr/bin/env node
// Runs one of your Porch workflows, compositions, custom skills or personas, found by id or by
// name. Dependency-free; Node.js 20 or later; uses ./porch.mjs (same folder) for the API rules.
//
//   node run.mjs <workflow|composition|skill|persona> <id-or-name> [options]
//     --input TEXT         the input (skills, personas); --input - reads stdin
//     --context TEXT       extra context (personas; the legacy input of skills)
//     --var NAME=VALUE     one variable (repeatable; workflows, compositions, skills)
//     --variables JSON     all variables as a JSON object
//     --model ID           model override, <provider>/<model_name> (not for workflows)
//     --temperature N      0 to 1 (personas)
//     --trace              include per-node results (workflows)
//     --idempotency-key K  reuse a key to retry safely (default: a new one per run)
//
// Prints the execution result (`data`) as JSON. Exit 1 on an API error (message on stderr),
// 2 on a usage error or when the name matches no resource or several.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { describeError, PorchApiError, porchRequest } from './porch.mjs';

const KINDS = { workflow: 'workflows', composition: 'compositions', skill: 'skills', persona: 'personas' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

class UsageError extends Error {}

/** An id as is; a name through the list endpoint (exact match, ignoring case). */
export async function resolveId(kind, idOrName, options = {}) {
  if (UUID.test(idOrName)) return idOrName;
  const { data } = await porchRequest('GET', `/${KINDS[kind]}`, options);
  const wanted = idOrName.trim().toLowerCase();
  const matches = data.items.filter((item) => item.name.trim().toLowerCase() === wanted);
  if (matches.length === 1) return matches[0].id;
  const known = data.items.map((item) => `"${item.name}" (${item.id})`).join(', ') || 'none';
  throw new UsageError(
    matches.length === 0 ? `no ${kind} is named "${idOrName}"; yours: ${known}` : `several ${kind}s are named "${idOrName}"; pass an id: ${known}`,
  );
}

export function buildBody(kind, values) {
  const variables = { ...(values.variables ? JSON.parse(values.variables) : {}) };
  for (const pair of values.var ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--var needs NAME=VALUE, got "${pair}"`);
    variables[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const body = {};
  if (values.input !== undefined) body.input = values.input === '-' ? readFileSync(0, 'utf8') : values.input;
  if (values.context !== undefined) body.context = values.context;
  if (Object.keys(variables).length > 0) body.variables = variables;
  if (values.model !== undefined) body.model = values.model;
  if (values.temperature !== undefined) body.temperature = Number(values.temperature);
  if (values.trace) body.include_trace = true;
  if ((kind === 'skill' || kind === 'persona') && body.input === undefined && body.context === undefined) {
    throw new UsageError(`a ${kind} needs --input TEXT`);
  }
  return body;
}

/** Resolves and executes; resolves the `data` of the execution result. */
export async function run(kind, idOrName, values, options = {}) {
  if (!(kind in KINDS)) throw new UsageError(`the kind must be one of ${Object.keys(KINDS).join(', ')}`);
  const body = buildBody(kind, values);
  const id = await resolveId(kind, idOrName, options);
  const result = await porchRequest('POST', `/${KINDS[kind]}/${id}/execute`, {
    ...options,
    body,
    ...(values['idempotency-key'] ? { idempotencyKey: values['idempotency-key'] } : {}),
  });
  return result.data;
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      input: { type: 'string' },
      context: { type: 'string' },
      var: { type: 'string', multiple: true },
      variables: { type: 'string' },
      model: { type: 'string' },
      temperature: { type: 'string' },
      trace: { type: 'boolean' },
      'idempotency-key': { type: 'string' },
    },
  });
  const [kind, idOrName] = positionals;
  try {
    if (!kind || !idOrName) throw new UsageError('usage: node run.mjs <workflow|composition|skill|persona> <id-or-name> [options]');
    if (!process.env.PORCH_API_KEY) throw new UsageError('set PORCH_API_KEY to your API key (mdi_...)');
    const data = await run(kind, idOrName, values, {
      onRetry: ({ error, delaySeconds }) => process.stderr.write(`run.mjs: ${error.code} (${error.status}), retrying in ${delaySeconds} s\n`),
    });
    process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
  } catch (err) {
    if (err instanceof UsageError || err instanceof SyntaxError) {
      process.stderr.write(`run.mjs: ${err.message}\n`);
      process.exit(2);
    }
    if (err instanceof PorchApiError) {
      process.stderr.write(`${describeError(err)}\n`);
      process.exit(1);
    }
    throw err;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
