import { describe, expect, it } from 'vitest';

import { parseAiConfig } from '../../../src/core/ai/ai-config.js';
import { createAiGateway, isEcho, providerOf, type AiGateway } from '../../../src/core/ai/ai-gateway.js';
import { PorchError } from '../../../src/core/errors.js';

function gatewayUnderTest(): AiGateway {
  const config = parseAiConfig(
    {
      default_model: 'us-cloud/general',
      providers: [
        {
          id: 'us-cloud',
          base_url: 'https://us.cloud.test/v1',
          region: 'us',
          models: [
            { name: 'general', plans: ['free', 'builder', 'expert'], max_output_tokens: 800 },
            { name: 'premium', plans: ['expert'], max_output_tokens: 4000 },
          ],
        },
        {
          id: 'eu-cloud',
          base_url: 'https://eu.cloud.test/v1',
          region: 'eu',
          models: [{ name: 'euro', plans: ['builder', 'expert'], max_output_tokens: 1500 }],
        },
      ],
    },
    {},
  );
  return createAiGateway({ config, env: {} });
}

function porchErrorOf(run: () => unknown): PorchError {
  try {
    run();
  } catch (err) {
    if (err instanceof PorchError) return err;
    throw err;
  }
  throw new Error('expected a PorchError');
}

describe('resolveModel', () => {
  const gateway = gatewayUnderTest();

  it('uses the requested model first', () => {
    const model = gateway.resolveModel({ requested: 'us-cloud/premium', resourceDefault: 'eu-cloud/euro', plan: 'expert', euOnly: false });
    expect(model).toEqual({
      id: 'us-cloud/premium',
      provider: 'us-cloud',
      name: 'premium',
      maxOutputTokens: 4000,
      region: 'us',
      source: 'requested',
    });
  });

  it('uses the resource default when nothing is requested', () => {
    const model = gateway.resolveModel({ resourceDefault: 'eu-cloud/euro', plan: 'builder', euOnly: false });
    expect(model).toMatchObject({ id: 'eu-cloud/euro', maxOutputTokens: 1500, source: 'resource-default' });
  });

  it('uses the configured default when neither request nor resource names a model', () => {
    for (const resourceDefault of [undefined, null]) {
      const model = gateway.resolveModel({ resourceDefault, plan: 'free', euOnly: false });
      expect(model).toMatchObject({ id: 'us-cloud/general', source: 'configured-default' });
    }
  });

  it('refuses a resource default the server does not offer, naming it, instead of using the configured default (regression: silently replaced)', () => {
    for (const resourceDefault of ['us-cloud/retired', 'gone/model', 'malformed']) {
      const error = porchErrorOf(() => gateway.resolveModel({ resourceDefault, plan: 'free', euOnly: false }));
      expect(error.code, resourceDefault).toBe('VALIDATION_ERROR');
      expect(error.status).toBe(400);
      expect(error.message).toBe(
        `Unknown model "${resourceDefault}": it is the resource's saved model, and this server does not offer it. ` +
          `Configure its provider on the server, change the resource's model, or name another model in field "model". ` +
          'Available models: us-cloud/general, echo/echo.',
      );
    }
  });

  it('lets a requested model win over a resource default the server does not offer', () => {
    const model = gateway.resolveModel({ requested: 'us-cloud/general', resourceDefault: 'gone/model', plan: 'free', euOnly: false });
    expect(model).toMatchObject({ id: 'us-cloud/general', source: 'requested' });
  });

  it('rejects an unknown requested model with 400 VALIDATION_ERROR listing the usable models', () => {
    const error = porchErrorOf(() => gateway.resolveModel({ requested: 'us-cloud/gpt-9', plan: 'builder', euOnly: false }));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.status).toBe(400);
    expect(error.message).toBe('Unknown model "us-cloud/gpt-9" in field "model". Available models: us-cloud/general, eu-cloud/euro, echo/echo.');
  });

  it('rejects a malformed requested model id with 400, naming the expected form and the field', () => {
    const error = porchErrorOf(() => gateway.resolveModel({ requested: 'premium', plan: 'expert', euOnly: false, field: 'nodes[2].model' }));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain('Invalid model id "premium" in field "nodes[2].model"');
    expect(error.message).toContain('"<provider>/<model_name>"');
  });

  it('denies a known model the plan does not include with 403 MODEL_ACCESS_DENIED', () => {
    const error = porchErrorOf(() => gateway.resolveModel({ requested: 'us-cloud/premium', plan: 'builder', euOnly: false }));
    expect(error.code).toBe('MODEL_ACCESS_DENIED');
    expect(error.status).toBe(403);
    expect(error.message).toBe(
      'Model "us-cloud/premium" is not available on the builder plan. Models available to you: us-cloud/general, eu-cloud/euro, echo/echo.',
    );
  });

  it('denies a non-EU model under the EU-only policy with 403 MODEL_ACCESS_DENIED', () => {
    const error = porchErrorOf(() => gateway.resolveModel({ requested: 'us-cloud/premium', plan: 'expert', euOnly: true }));
    expect(error.code).toBe('MODEL_ACCESS_DENIED');
    expect(error.message).toContain('hosted in region "us"');
    expect(error.message).toContain('only EU-hosted models');
    expect(error.message).toContain('Models available to you: eu-cloud/euro, echo/echo.');
  });

  it('applies plan and EU checks to resource and configured defaults too', () => {
    const denied = porchErrorOf(() => gateway.resolveModel({ resourceDefault: 'us-cloud/premium', plan: 'free', euOnly: false }));
    expect(denied.code).toBe('MODEL_ACCESS_DENIED');
    expect(denied.message).toContain('The resource\'s saved model "us-cloud/premium"');
    const error = porchErrorOf(() => gateway.resolveModel({ plan: 'expert', euOnly: true }));
    expect(error.code).toBe('MODEL_ACCESS_DENIED');
    expect(error.message).toContain('The default model "us-cloud/general"');
  });

  it('allows an EU-hosted model and echo under the EU-only policy', () => {
    expect(gateway.resolveModel({ requested: 'eu-cloud/euro', plan: 'expert', euOnly: true }).id).toBe('eu-cloud/euro');
    const echo = gateway.resolveModel({ requested: 'echo/echo', plan: 'free', euOnly: true });
    expect(echo).toEqual({
      id: 'echo/echo',
      provider: 'echo',
      name: 'echo',
      maxOutputTokens: 1024,
      region: 'local',
      source: 'requested',
    });
  });
});

describe('model registry helpers', () => {
  it('lists every model with its plans, region and default flag, echo last', () => {
    const models = gatewayUnderTest().listModels();
    expect(models.map((model) => [model.id, model.isDefault, model.euOnlyAllowed])).toEqual([
      ['us-cloud/general', true, false],
      ['us-cloud/premium', false, false],
      ['eu-cloud/euro', false, true],
      ['echo/echo', false, true],
    ]);
    expect(models[3]?.plans).toEqual(['free', 'builder', 'expert']);
  });

  it('uses echo/echo as the default model of a fresh install', () => {
    const gateway = createAiGateway({ config: parseAiConfig(undefined, {}), env: {} });
    expect(gateway.defaultModel).toBe('echo/echo');
    expect(gateway.resolveModel({ plan: 'free', euOnly: true })).toMatchObject({ id: 'echo/echo', source: 'configured-default' });
    expect(gateway.listModels().map((model) => model.id)).toEqual(['echo/echo']);
  });

  it('tells the provider of a model id and whether a model is echo', () => {
    expect(providerOf('openai/gpt-4o')).toBe('openai');
    expect(providerOf('gpt-4o')).toBeUndefined();
    expect(isEcho('echo/echo')).toBe(true);
    expect(isEcho('openai/echo')).toBe(false);
    const gateway = gatewayUnderTest();
    expect(gateway.isEcho(gateway.resolveModel({ requested: 'echo/echo', plan: 'free', euOnly: false }))).toBe(true);
    expect(gateway.providerOf('eu-cloud/euro')).toBe('eu-cloud');
  });
});
