/**
 * A valid request for every operation, built against a real account. The security suite and the
 * contract tests run over this table, and a test fails when an operation has no sample, so a new
 * operation cannot skip them.
 */
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { newId } from '../../src/core/ids.js';
import type { Harness } from './harness.js';

export interface SampleRequest {
  /** Path under the API base, with ids filled in. */
  path: string;
  body?: unknown;
  /** The id in the path, when the operation reads an owned resource (for the another-account test). */
  ownedId?: string;
}

export type SampleBuilder = (harness: Harness, accountId: string) => Promise<SampleRequest>;

async function ownedCard(harness: Harness, accountId: string): Promise<string> {
  const card = await harness.core.contextCards.create(accountId, { title: 'Sample', content: 'Sample content' });
  return card.id;
}

/** Imports the demo catalog into the account and answers the id of the item with this bundle key. */
async function demoId(harness: Harness, accountId: string, qualifiedKey: string): Promise<string> {
  const summary = await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE);
  const id = summary.ids[qualifiedKey];
  if (!id) throw new Error(`The demo bundle has no ${qualifiedKey}`);
  return id;
}

/**
 * A key of the account besides the caller's, for the operations that act on one key. Written to
 * the store directly: the security suite builds samples after moving the account off Expert too.
 */
async function ownedKey(harness: Harness, accountId: string): Promise<string> {
  const id = newId();
  const now = harness.clock.now();
  const key = {
    id,
    accountId,
    name: 'Sample',
    prefix: 'mdi_sample',
    hash: `sample-${id}`,
    scopes: ['read:workflow'],
    requestsPerMinute: 60,
    requestsPerDay: 1_000,
  };
  await harness.store.apiKeys.insertIfBelowLimit({ key: { ...key, createdAt: now, expiresAt: null, revokedAt: null }, maxActive: 5, now });
  return id;
}

/** A run of the account, written as an execution records it (the runs operations only read them). */
async function ownedRun(harness: Harness, accountId: string): Promise<string> {
  const id = newId();
  await harness.store.runs.insert({
    id,
    accountId,
    keyId: null,
    kind: 'composition',
    resourceId: newId(),
    version: null,
    status: 'completed',
    model: 'echo/echo',
    inputTokens: 3,
    outputTokens: 3,
    totalTokens: 6,
    chargedTokens: 6,
    durationMs: 1,
    createdAt: harness.clock.now(),
    payload: { inputs: { variables: {} }, result: { content: 'Sample' } },
  });
  return id;
}

/**
 * A run of the account left running by a process that is gone (no lease): cancelling it asks for
 * the abort, which succeeds whatever the queue of the harness is doing.
 */
async function runningRun(harness: Harness, accountId: string): Promise<string> {
  const id = newId();
  const now = harness.clock.now();
  await harness.store.runs.enqueue({
    id,
    accountId,
    keyId: null,
    keyKind: null,
    kind: 'composition',
    resourceId: newId(),
    version: 1,
    createdAt: now,
    inputs: {},
  });
  const claimed = await harness.store.runs.claim({ instanceId: 'a-stopped-process', now, maxRunningPerAccount: 1_000 });
  if (claimed?.id !== id) throw new Error('the sample run was not the one claimed');
  return id;
}

export const RELEASE_VARIABLES = { product: 'Porch', version: '1.2', changes: '- Faster lists\n- MCP prompts' };

/** A definition of each kind that its create operation accepts, and a field its update may change. */
const DEFINITIONS = {
  composition: {
    create: { name: 'Greeting', template: 'Say hello to {{name}}.' },
    update: { description: 'A greeting.' },
    demoKey: 'composition:release-notes',
  },
  skill: { create: { name: 'Shorten', instructions: 'Shorten the text.' }, update: { category: 'writing' }, demoKey: 'skill:summarise' },
  persona: { create: { name: 'Terse', content: 'You answer in five words.' }, update: { emoji: '✂️' }, demoKey: 'persona:plain-editor' },
  workflow: {
    create: { name: 'Echo', variables: [{ name: 'topic', required: true }], nodes: [{ id: 'say', kind: 'template', template: 'About {{topic}}' }] },
    update: { description: 'Says what it is about.' },
    demoKey: 'workflow:release-announcement',
  },
} as const;

/** Samples of the eight lifecycle operations of each kind, on the demo catalog's resource of that kind. */
function lifecycleSamples(): Record<string, SampleBuilder> {
  const samples: Record<string, SampleBuilder> = {};
  for (const [kind, definition] of Object.entries(DEFINITIONS)) {
    const base = `/${kind}s`;
    const owned =
      (suffix: string, body?: unknown): SampleBuilder =>
      async (harness, accountId) => {
        const id = await demoId(harness, accountId, definition.demoKey);
        return { path: `${base}/${id}${suffix}`, ownedId: id, ...(body === undefined ? {} : { body }) };
      };
    samples[`create_${kind}`] = async () => ({ path: base, body: definition.create });
    samples[`get_${kind}`] = owned('');
    samples[`update_${kind}`] = owned('', definition.update);
    samples[`delete_${kind}`] = owned('');
    samples[`list_${kind}_versions`] = owned('/versions');
    samples[`get_${kind}_version`] = owned('/versions/1');
    samples[`set_${kind}_label`] = owned('/labels', { label: 'production', version: 1 });
    samples[`remove_${kind}_label`] = async (harness, accountId) => {
      const id = await demoId(harness, accountId, definition.demoKey);
      await harness.core.lifecycle.setLabel(kind as keyof typeof DEFINITIONS, accountId, id, 'staging', 1);
      return { path: `${base}/${id}/labels/staging`, ownedId: id };
    };
  }
  return samples;
}

export const OPERATION_SAMPLES: Record<string, SampleBuilder> = {
  ...lifecycleSamples(),
  list_workflows: async () => ({ path: '/workflows' }),
  list_compositions: async () => ({ path: '/compositions' }),
  list_skills: async () => ({ path: '/skills' }),
  list_personas: async () => ({ path: '/personas' }),
  list_context_cards: async () => ({ path: '/context-cards' }),
  get_context_card: async (harness, accountId) => {
    const id = await ownedCard(harness, accountId);
    return { path: `/context-cards/${id}`, ownedId: id };
  },
  create_context_card: async () => ({ path: '/context-cards', body: { title: 'New', content: 'New content' } }),
  update_context_card: async (harness, accountId) => {
    const id = await ownedCard(harness, accountId);
    return { path: `/context-cards/${id}`, body: { title: 'Renamed' }, ownedId: id };
  },
  delete_context_card: async (harness, accountId) => {
    const id = await ownedCard(harness, accountId);
    return { path: `/context-cards/${id}`, ownedId: id };
  },
  execute_workflow: async (harness, accountId) => {
    const id = await demoId(harness, accountId, 'workflow:release-announcement');
    return { path: `/workflows/${id}/execute`, body: { variables: RELEASE_VARIABLES }, ownedId: id };
  },
  execute_composition: async (harness, accountId) => {
    const id = await demoId(harness, accountId, 'composition:release-notes');
    return { path: `/compositions/${id}/execute`, body: { variables: RELEASE_VARIABLES }, ownedId: id };
  },
  execute_skill: async (harness, accountId) => {
    const id = await demoId(harness, accountId, 'skill:summarise');
    return { path: `/skills/${id}/execute`, body: { input: 'Porch runs workflows.', variables: { bullets: 2 } }, ownedId: id };
  },
  execute_persona: async (harness, accountId) => {
    const id = await demoId(harness, accountId, 'persona:plain-editor');
    return { path: `/personas/${id}/execute`, body: { input: 'Utilise synergies going forward.' }, ownedId: id };
  },
  export_skill_md: async (harness, accountId) => {
    const id = await demoId(harness, accountId, 'skill:summarise');
    return { path: `/skills/${id}/skill.md`, ownedId: id };
  },
  run_judge: async () => ({ path: '/judge/run', body: { prompt: 'Write a haiku about autumn.' } }),
  scan_text: async () => ({ path: '/sanitiser/scan', body: { text: 'Mail ada@example.com about the invoice.' } }),
  get_health: async () => ({ path: '/health' }),
  get_api_root: async () => ({ path: '/' }),
  analyze_prompt: async () => ({ path: '/analyze-prompt', body: { prompt: 'Write a haiku about autumn.' } }),
  list_prompts: async (harness, accountId) => {
    await demoId(harness, accountId, 'composition:release-notes');
    return { path: '/prompts' };
  },
  get_prompt: async (harness, accountId) => {
    await demoId(harness, accountId, 'composition:release-notes');
    return { path: '/prompts/release-notes/render', body: { arguments: RELEASE_VARIABLES } };
  },
  get_account: async () => ({ path: '/account' }),
  list_keys: async () => ({ path: '/keys' }),
  create_key: async () => ({ path: '/keys', body: { name: 'Sample key', scopes: ['manage:keys'] } }),
  rotate_key: async (harness, accountId) => {
    const id = await ownedKey(harness, accountId);
    return { path: `/keys/${id}/rotate`, body: { grace_seconds: 60 }, ownedId: id };
  },
  revoke_key: async (harness, accountId) => {
    const id = await ownedKey(harness, accountId);
    return { path: `/keys/${id}/revoke`, ownedId: id };
  },
  get_usage: async () => ({ path: '/usage?group_by=model' }),
  list_credit_ledger: async () => ({ path: '/credits/ledger?limit=10' }),
  list_runs: async (harness, accountId) => {
    await ownedRun(harness, accountId);
    return { path: '/runs?kind=composition' };
  },
  get_run: async (harness, accountId) => {
    const id = await ownedRun(harness, accountId);
    return { path: `/runs/${id}`, ownedId: id };
  },
  cancel_run: async (harness, accountId) => {
    const id = await runningRun(harness, accountId);
    return { path: `/runs/${id}/cancel`, ownedId: id };
  },
};
