/**
 * list_models: the models a caller may name, as the plan and the organisation's EU-only policy
 * allow, in the deployment's order, with the default model when the caller may use it. Checked
 * against what model resolution itself accepts, so the list and the calls cannot disagree.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { PorchError } from '../../src/core/errors.js';
import type { Plan } from '../../src/core/domain/plans.js';
import type { listModels } from '../../src/operations/list-models.js';
import type { OperationOutput } from '../../src/operations/operation.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

type Models = OperationOutput<typeof listModels>;

let harness: Harness;
let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-models-'));
  const provider = (id: string, region: string, models: unknown[]) => ({ id, base_url: 'http://127.0.0.1:9/v1', region, models });
  const config = {
    ai: {
      // The default is a model Expert accounts may not use: they must see null.
      default_model: 'us/small',
      providers: [
        provider('us', 'us-east-1', [
          { name: 'large', max_output_tokens: 4096, context_window: 128_000 },
          { name: 'small', plans: ['free', 'builder'] },
        ]),
        provider('eu', 'eu-west-1', [{ name: 'm1', max_output_tokens: 2048 }]),
      ],
    },
  };
  const configPath = join(directory, 'porch.config.yaml');
  await writeFile(configPath, stringify(config));
  harness = await createHarness({ env: { PORCH_CONFIG: configPath } });
});
afterAll(async () => {
  await harness.close();
  await rm(directory, { recursive: true, force: true });
});

async function modelsOf(key: string) {
  const response = await harness.api<Models>('GET', '/models', { key });
  expect(response.status, describeResponse(response)).toBe(200);
  return response.body.data;
}

/** The ids model resolution accepts for this plan and policy: what the list must equal. */
function acceptedIds(plan: Plan, euOnly: boolean): string[] {
  return harness.core.ai
    .listModels()
    .map((model) => model.id)
    .filter((id) => {
      try {
        harness.core.ai.resolveModel({ requested: id, plan, euOnly });
        return true;
      } catch (err) {
        if (err instanceof PorchError && err.code === 'MODEL_ACCESS_DENIED') return false;
        throw err;
      }
    });
}

describe('GET /models', () => {
  it("lists what the plan may use in the deployment's order, and no default the caller may not use", async () => {
    const { key } = await harness.expertWithKey({ scopes: ['api:sanitiser'] });
    const models = await modelsOf(key);
    expect(models).toEqual({
      items: [
        { id: 'us/large', provider: 'us', region: 'us-east-1', max_output_tokens: 4096, context_window: 128_000, default: false, byok: false },
        { id: 'eu/m1', provider: 'eu', region: 'eu-west-1', max_output_tokens: 2048, context_window: null, default: false, byok: false },
        { id: 'echo/echo', provider: 'echo', region: 'local', max_output_tokens: expect.any(Number), context_window: null, default: false, byok: false },
      ],
      count: 3,
      default_model: null,
    });
    expect(models.items.map((model) => model.id)).toEqual(acceptedIds('expert', false));
  });

  it('keeps only EU-hosted models (and the local echo model) once the organisation allows only those', async () => {
    const owner = await harness.expertWithKey({ scopes: ['manage:organisation'] });
    const changed = await harness.api('PATCH', '/organisation/policies', { key: owner.key, body: { eu_only_models: true } });
    expect(changed.status, describeResponse(changed)).toBe(200);
    const models = await modelsOf(owner.key);
    expect(models.items.map((model) => model.id)).toEqual(['eu/m1', 'echo/echo']);
    expect(models.items.map((model) => model.id)).toEqual(acceptedIds('expert', true));
  });

  it('names the default model, marked, for a plan that may use it (a console session of a Builder account)', async () => {
    const created = await harness.core.accounts.createAccount({ email: `builder-${Date.now()}@example.com`, plan: 'builder' });
    const account = await harness.store.accounts.findById(created.id);
    if (!account) throw new Error('The account just created is missing.');
    const models = await harness.core.selfService.models({
      account,
      credential: { kind: 'session', id: 'session', scopes: [], requestsPerMinute: 60, requestsPerDay: 1000 },
    });
    expect(models.default_model).toBe('us/small');
    expect(models.models.filter((model) => model.default).map((model) => model.id)).toEqual(['us/small']);
    expect(models.models.map((model) => model.id)).toEqual(acceptedIds('builder', false));
  });

  it('under strict BYOK lists only the models a BYOK key pays for, and echo, marking them (regression: every model listed, each call refused 403)', async () => {
    const owner = await harness.expertWithKey({ scopes: ['manage:organisation'] });
    await harness.core.byok.set({ accountId: owner.accountId }, 'eu', 'sk-customer-key-of-the-eu-provider');
    const before = await modelsOf(owner.key);
    expect(before.items.map((model) => [model.id, model.byok])).toEqual([
      ['us/large', false],
      ['eu/m1', true],
      ['echo/echo', false],
    ]);
    const changed = await harness.api('PATCH', '/organisation/policies', { key: owner.key, body: { strict_byok: true } });
    expect(changed.status, describeResponse(changed)).toBe(200);
    const strict = await modelsOf(owner.key);
    expect(strict.items.map((model) => model.id)).toEqual(['eu/m1', 'echo/echo']);
    expect(strict.default_model).toBeNull();
  });

  it('answers 401 without a key, as every keyed operation does', async () => {
    const response = await harness.api('GET', '/models');
    expect(response.status).toBe(401);
  });
});
