/**
 * The exposure policy: which door serves which operation is stated once, on each operation, and
 * this table is its reviewed copy. Exposing an operation somewhere new (an MCP tool that spends
 * credits, a console action) is a decision, so it changes this test as well as the definition.
 */
import { describe, expect, it } from 'vitest';
import { operations } from '../../src/operations/index.js';
import { DOORS, exposedOn, isExposedOn, type Door } from '../../src/operations/operation.js';
import { completeArgument } from '../../src/operations/complete-argument.js';
import { getPrompt } from '../../src/operations/get-prompt.js';
import { listPrompts } from '../../src/operations/list-prompts.js';

const EVERYWHERE_BUT_PROMPTS: readonly Door[] = ['rest', 'mcp-tool', 'console', 'discovery'];

const POLICY: Record<string, readonly Door[]> = {
  analyze_prompt: ['mcp-tool', 'console'],
  list_workflows: EVERYWHERE_BUT_PROMPTS,
  execute_workflow: EVERYWHERE_BUT_PROMPTS,
  list_compositions: EVERYWHERE_BUT_PROMPTS,
  execute_composition: EVERYWHERE_BUT_PROMPTS,
  list_skills: EVERYWHERE_BUT_PROMPTS,
  execute_skill: EVERYWHERE_BUT_PROMPTS,
  export_skill_md: EVERYWHERE_BUT_PROMPTS,
  list_personas: EVERYWHERE_BUT_PROMPTS,
  execute_persona: EVERYWHERE_BUT_PROMPTS,
  list_context_cards: EVERYWHERE_BUT_PROMPTS,
  get_context_card: EVERYWHERE_BUT_PROMPTS,
  create_context_card: EVERYWHERE_BUT_PROMPTS,
  update_context_card: EVERYWHERE_BUT_PROMPTS,
  delete_context_card: EVERYWHERE_BUT_PROMPTS,
  run_judge: EVERYWHERE_BUT_PROMPTS,
  scan_text: EVERYWHERE_BUT_PROMPTS,
  get_health: EVERYWHERE_BUT_PROMPTS,
  get_api_root: ['rest', 'discovery'],
  // The catalog lifecycle: everywhere the lists and executions are (DECISIONS: REST, MCP, OpenAPI, client, console).
  ...Object.fromEntries(
    ['workflow', 'composition', 'skill', 'persona'].flatMap((kind) =>
      [
        `create_${kind}`,
        `get_${kind}`,
        `update_${kind}`,
        `delete_${kind}`,
        `list_${kind}_versions`,
        `get_${kind}_version`,
        `set_${kind}_label`,
        `remove_${kind}_label`,
      ].map((name) => [name, EVERYWHERE_BUT_PROMPTS]),
    ),
  ),
  list_prompts: ['mcp-prompt'],
  get_prompt: ['mcp-prompt'],
  complete_argument: ['mcp-prompt'],
  // Self-service: scope-gated (manage:keys, read:usage are never defaults), so served wherever a key holder works, the console included.
  get_account: EVERYWHERE_BUT_PROMPTS,
  list_models: EVERYWHERE_BUT_PROMPTS,
  list_keys: EVERYWHERE_BUT_PROMPTS,
  create_key: EVERYWHERE_BUT_PROMPTS,
  rotate_key: EVERYWHERE_BUT_PROMPTS,
  revoke_key: EVERYWHERE_BUT_PROMPTS,
  list_connected_apps: EVERYWHERE_BUT_PROMPTS,
  revoke_connected_app: EVERYWHERE_BUT_PROMPTS,
  get_usage: EVERYWHERE_BUT_PROMPTS,
  list_credit_ledger: EVERYWHERE_BUT_PROMPTS,
  list_runs: EVERYWHERE_BUT_PROMPTS,
  get_run: EVERYWHERE_BUT_PROMPTS,
  // Asynchronous runs: cancelling is as exposed as reading a run.
  cancel_run: EVERYWHERE_BUT_PROMPTS,
  // Webhooks: scope-gated (manage:webhooks is never a default), like the rest of self-service.
  list_webhooks: EVERYWHERE_BUT_PROMPTS,
  create_webhook: EVERYWHERE_BUT_PROMPTS,
  get_webhook: EVERYWHERE_BUT_PROMPTS,
  update_webhook: EVERYWHERE_BUT_PROMPTS,
  delete_webhook: EVERYWHERE_BUT_PROMPTS,
  rotate_webhook_secret: EVERYWHERE_BUT_PROMPTS,
  list_webhook_deliveries: EVERYWHERE_BUT_PROMPTS,
  redeliver_webhook: EVERYWHERE_BUT_PROMPTS,
  set_credits_low_threshold: EVERYWHERE_BUT_PROMPTS,
  get_credits_low_threshold: EVERYWHERE_BUT_PROMPTS,
  // Organisation administration: the owner only (core's rule), with manage:organisation, which is never a default.
  get_organisation: EVERYWHERE_BUT_PROMPTS,
  update_organisation_policies: EVERYWHERE_BUT_PROMPTS,
  list_sanitiser_rules: EVERYWHERE_BUT_PROMPTS,
  put_sanitiser_rule: EVERYWHERE_BUT_PROMPTS,
  delete_sanitiser_rule: EVERYWHERE_BUT_PROMPTS,
  list_byok_keys: EVERYWHERE_BUT_PROMPTS,
  // A provider key typed into an agent's conversation would stay in its transcript: stored over REST and in the console only.
  put_byok_key: ['rest', 'console', 'discovery'],
  revoke_byok_key: EVERYWHERE_BUT_PROMPTS,
};

describe('the exposure policy', () => {
  it('is, for every operation, exactly the reviewed set of doors', () => {
    const actual = Object.fromEntries(operations.map((operation) => [operation.name, DOORS.filter((door) => isExposedOn(operation, door))]));
    const expected = Object.fromEntries(Object.entries(POLICY).map(([name, doors]) => [name, DOORS.filter((door) => doors.includes(door))]));
    expect(actual).toEqual(expected);
  });

  it('gives the MCP prompts and completions capabilities exactly the operations they call', () => {
    expect(exposedOn(operations, 'mcp-prompt')).toEqual([listPrompts, getPrompt, completeArgument]);
  });

  it('documents only operations that some door serves', () => {
    for (const operation of exposedOn(operations, 'discovery')) expect(isExposedOn(operation, 'rest'), operation.name).toBe(true);
  });

  it('names every operation once', () => {
    const names = operations.map((operation) => operation.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
