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
 * An app connected to the account with OAuth (its credential and connection), written to the store
 * directly as ownedKey is, for the operations that act on one connection.
 */
async function ownedConnection(harness: Harness, accountId: string): Promise<string> {
  const keyId = newId();
  const now = harness.clock.now();
  // A connection exists only beside its grant, as the authorization server saves it.
  const grantId = `grant-${keyId}`;
  await harness.store.oauth.upsert({ model: 'Grant', idHash: `sample-grant-${keyId}`, payload: '{}', grantId, uidHash: null, expiresAt: null });
  await harness.store.oauth.connect({
    key: {
      id: keyId,
      accountId,
      kind: 'oauth',
      name: 'Sample host',
      prefix: 'oauth',
      hash: `sample-oauth-${keyId}`,
      scopes: ['read:workflow'],
      requestsPerMinute: 60,
      requestsPerDay: 1_000,
      createdAt: now,
      expiresAt: null,
      replacedBy: null,
      revokedAt: null,
    },
    connection: { keyId, accountId, clientId: `client-${keyId}`, clientName: 'Sample host', grantId, createdAt: now, revokedAt: null },
  });
  return keyId;
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
    kind: 'user' as const,
    name: 'Sample',
    prefix: 'mdi_sample',
    hash: `sample-${id}`,
    // A key the operations' own scope covers: a key may rotate only keys holding no more than it does.
    scopes: ['manage:keys'],
    requestsPerMinute: 60,
    requestsPerDay: 1_000,
  };
  await harness.store.apiKeys.insertIfBelowLimit({ key: { ...key, createdAt: now, expiresAt: null, revokedAt: null, replacedBy: null }, maxActive: 5, now });
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

/**
 * A webhook endpoint of the account, written to the store directly. Its URL is on loopback,
 * which the delivery-time SSRF guard refuses (no sample harness allow-lists it), so a sample
 * never sends a request off the machine; it subscribes to credits.low only, which no sample fires.
 */
async function ownedWebhook(harness: Harness, accountId: string): Promise<string> {
  const id = newId();
  const now = harness.clock.now();
  await harness.store.webhooks.insertEndpointIfBelowLimit({
    endpoint: {
      id,
      accountId,
      url: 'https://127.0.0.1:9/sample',
      description: null,
      events: ['credits.low'],
      enabled: true,
      encryptedSecret: 'v1.sample.sample.sample',
      previousEncryptedSecret: null,
      previousSecretExpiresAt: null,
      createdAt: now,
      updatedAt: now,
    },
    maxPerAccount: 100,
  });
  return id;
}

/** A finished (failed) delivery of a webhook endpoint of the account: what redeliver acts on. */
async function ownedDelivery(harness: Harness, accountId: string): Promise<{ endpointId: string; eventId: string }> {
  const endpointId = await ownedWebhook(harness, accountId);
  const eventId = newId();
  const now = harness.clock.now();
  await harness.store.webhooks.enqueue({ id: eventId, accountId, type: 'credits.low', payload: '{"type":"credits.low"}', createdAt: now });
  await harness.store.webhooks.recordAttempt({
    attempt: { id: newId(), endpointId, eventId, attemptedAt: now, statusCode: 500, durationMs: 3, error: 'http_status' },
    status: 'failed',
    nextAttemptAt: null,
  });
  return { endpointId, eventId };
}

/**
 * A BYOK key of the account's organisation, written to the store directly (the ciphertext is a
 * stand-in: no sample ever decrypts it, as no sample calls the provider).
 */
async function organisationByokKey(harness: Harness, accountId: string): Promise<string> {
  const account = await harness.store.accounts.findById(accountId);
  if (!account) throw new Error(`no account ${accountId}`);
  const id = newId();
  await harness.store.byokKeys.put({
    id,
    accountId: null,
    organisationId: account.organisationId,
    provider: SAMPLE_BYOK_PROVIDER,
    encryptedKey: 'v1.sample.sample.sample',
    keyHint: 'mple',
    createdAt: harness.clock.now(),
    revokedAt: null,
  });
  return id;
}

/** A custom sanitiser rule of the account's organisation (rule ids are per organisation, so no ownedId). */
async function organisationRule(harness: Harness, accountId: string): Promise<string> {
  const account = await harness.store.accounts.findById(accountId);
  if (!account) throw new Error(`no account ${accountId}`);
  const rule = await harness.core.sanitiser.addCustomRule(account.organisationId, {
    rule_id: 'custom.sample',
    label: 'Sample codename',
    severity: 'warn',
    kind: 'keywords',
    keywords: ['bluebird'],
  });
  return rule.rule_id;
}

/** The provider put_byok_key's sample stores a key for. */
export const SAMPLE_BYOK_PROVIDER = 'sample';

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
  complete_argument: async (harness, accountId) => {
    await demoId(harness, accountId, 'composition:release-notes');
    return { path: '/completions', body: { ref: { type: 'prompt', name: 'release-notes' }, argument: { name: 'label', value: '' } } };
  },
  get_account: async () => ({ path: '/account' }),
  list_models: async () => ({ path: '/models' }),
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
  list_connected_apps: async () => ({ path: '/connected-apps' }),
  revoke_connected_app: async (harness, accountId) => {
    const id = await ownedConnection(harness, accountId);
    return { path: `/connected-apps/${id}/revoke`, ownedId: id };
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
  list_webhooks: async () => ({ path: '/webhooks' }),
  // A public address written as an IP literal: accepted without a DNS lookup, and never delivered to (credits.low only).
  create_webhook: async () => ({ path: '/webhooks', body: { url: 'https://93.184.215.14/hook', events: ['credits.low'] } }),
  get_webhook: async (harness, accountId) => {
    const id = await ownedWebhook(harness, accountId);
    return { path: `/webhooks/${id}`, ownedId: id };
  },
  update_webhook: async (harness, accountId) => {
    const id = await ownedWebhook(harness, accountId);
    return { path: `/webhooks/${id}`, body: { description: 'Changed' }, ownedId: id };
  },
  delete_webhook: async (harness, accountId) => {
    const id = await ownedWebhook(harness, accountId);
    return { path: `/webhooks/${id}`, ownedId: id };
  },
  rotate_webhook_secret: async (harness, accountId) => {
    const id = await ownedWebhook(harness, accountId);
    return { path: `/webhooks/${id}/rotate-secret`, body: { grace_seconds: 60 }, ownedId: id };
  },
  list_webhook_deliveries: async (harness, accountId) => {
    const { endpointId } = await ownedDelivery(harness, accountId);
    return { path: `/webhooks/${endpointId}/deliveries?status=failed`, ownedId: endpointId };
  },
  redeliver_webhook: async (harness, accountId) => {
    const { endpointId, eventId } = await ownedDelivery(harness, accountId);
    return { path: `/webhooks/${endpointId}/deliveries/${eventId}/redeliver`, ownedId: endpointId };
  },
  set_credits_low_threshold: async () => ({ path: '/account/credits-low-threshold', body: { threshold_credits: 5 } }),
  get_credits_low_threshold: async () => ({ path: '/account/credits-low-threshold' }),
  get_organisation: async () => ({ path: '/organisation' }),
  update_organisation_policies: async () => ({ path: '/organisation/policies', body: { eu_only_models: true, guardrails: { inputs: 'report' } } }),
  list_sanitiser_rules: async () => ({ path: '/organisation/sanitiser-rules' }),
  put_sanitiser_rule: async () => ({
    path: '/organisation/sanitiser-rules',
    body: { rule_id: 'custom.codenames', label: 'Project codename', severity: 'warn', kind: 'keywords', keywords: ['bluebird'] },
  }),
  delete_sanitiser_rule: async (harness, accountId) => ({ path: `/organisation/sanitiser-rules/${await organisationRule(harness, accountId)}` }),
  list_byok_keys: async () => ({ path: '/organisation/byok-keys' }),
  // SAMPLE_BYOK_PROVIDER must be configured where this sample is expected to succeed (the security suite configures it).
  put_byok_key: async () => ({ path: '/organisation/byok-keys', body: { provider: SAMPLE_BYOK_PROVIDER, key: 'sk-sample-provider-key-0000' } }),
  revoke_byok_key: async (harness, accountId) => {
    const id = await organisationByokKey(harness, accountId);
    return { path: `/organisation/byok-keys/${id}/revoke`, ownedId: id };
  },
};
