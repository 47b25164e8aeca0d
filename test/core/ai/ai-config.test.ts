import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

import { DEFAULT_MAX_OUTPUT_TOKENS, DEFAULT_OPENAI_BASE_URL, ECHO_MODEL_ID, isEuRegion, parseAiConfig } from '../../../src/core/ai/ai-config.js';
import { parseModelId } from '../../../src/core/ai/model-id.js';
import { PLANS } from '../../../src/core/domain/plans.js';

const FULL_CONFIG_YAML = `
default_model: mistral/mistral-small-latest
providers:
  - id: openai
    base_url: https://api.openai.com/v1
    api_key_env: OPENAI_API_KEY
    region: us
    timeout_ms: 30000
    max_retries: 1
    models:
      - { name: gpt-4o-mini, plans: [expert], max_output_tokens: 2048, context_window: 128000 }
      - { name: gpt-4o }
  - id: mistral
    base_url: https://api.mistral.ai/v1
    api_key_env: MISTRAL_API_KEY
    region: eu
    models:
      - { name: mistral-small-latest, plans: [builder, expert] }
  - id: local
    base_url: http://127.0.0.1:11434/v1
    models:
      - { name: "llama3.1:8b" }
`;

const ENV = { OPENAI_API_KEY: 'sk-test-openai', MISTRAL_API_KEY: 'mistral-test-key' };

function errorMessageOf(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  throw new Error('expected the call to throw');
}

describe('parseAiConfig', () => {
  it('reads a full YAML section into camelCase config with defaults filled in', () => {
    const config = parseAiConfig(parseYaml(FULL_CONFIG_YAML), ENV);

    expect(config.defaultModel).toBe('mistral/mistral-small-latest');
    expect(config.defaultModelSource).toBe('configured');
    expect(config.providers.map((provider) => provider.id)).toEqual(['openai', 'mistral', 'local']);
    const [openai, mistral, local] = config.providers;
    expect(openai).toMatchObject({
      baseUrl: 'https://api.openai.com/v1',
      apiKeyEnv: 'OPENAI_API_KEY',
      region: 'us',
      timeoutMs: 30_000,
      maxRetries: 1,
      outputTokensParameter: 'max_completion_tokens',
      source: 'config',
    });
    expect(openai?.models).toEqual([
      { name: 'gpt-4o-mini', plans: ['expert'], maxOutputTokens: 2048, contextWindow: 128_000 },
      { name: 'gpt-4o', plans: [...PLANS], maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS, contextWindow: null },
    ]);
    expect(mistral).toMatchObject({ region: 'eu', timeoutMs: 60_000, maxRetries: 2, outputTokensParameter: 'max_tokens' });
    expect(local).toMatchObject({ apiKeyEnv: null, region: 'unspecified' });
    expect(local?.models[0]?.name).toBe('llama3.1:8b');
  });

  it('never copies a key value into the parsed config, only the variable name', () => {
    const config = parseAiConfig(parseYaml(FULL_CONFIG_YAML), ENV);
    const serialised = JSON.stringify(config);
    expect(serialised).not.toContain(ENV.OPENAI_API_KEY);
    expect(serialised).not.toContain(ENV.MISTRAL_API_KEY);
  });

  it('defaults to echo/echo when nothing is configured', () => {
    for (const raw of [undefined, null, {}, { providers: [] }]) {
      const config = parseAiConfig(raw, {});
      expect(config).toEqual({ defaultModel: ECHO_MODEL_ID, defaultModelSource: 'echo', providers: [] });
    }
  });

  it('defaults to the first configured model when default_model is absent', () => {
    const config = parseAiConfig({ providers: [{ id: 'acme', base_url: 'https://llm.acme.test/v1', models: [{ name: 'a-1' }, { name: 'a-2' }] }] }, {});
    expect(config.defaultModel).toBe('acme/a-1');
    expect(config.defaultModelSource).toBe('first-model');
  });

  it('accepts echo/echo as an explicit default model', () => {
    expect(parseAiConfig({ default_model: 'echo/echo' }, {}).defaultModel).toBe(ECHO_MODEL_ID);
  });

  it('names the path of every bad value in one error', () => {
    const message = errorMessageOf(() =>
      parseAiConfig(
        {
          providers: [
            {
              id: 'OpenAI',
              base_url: 'ftp://example.test',
              region: 'us',
              timeout_ms: -1,
              models: [{ name: 'gpt 4', plans: ['gold'], max_output_tokens: 0 }],
            },
          ],
        },
        {},
      ),
    );
    expect(message).toContain('Invalid AI configuration');
    expect(message).toContain('ai.providers[0].id');
    expect(message).toContain('ai.providers[0].base_url');
    expect(message).toContain('ai.providers[0].timeout_ms');
    expect(message).toContain('ai.providers[0].models[0].name');
    expect(message).toContain('ai.providers[0].models[0].plans[0]');
    expect(message).toContain('ai.providers[0].models[0].max_output_tokens');
  });

  it('rejects unknown keys so a typo cannot silently drop a setting', () => {
    const message = errorMessageOf(() =>
      parseAiConfig({ providers: [{ id: 'a', base_url: 'https://a.test/v1', api_key: 'sk-inline', models: [{ name: 'm' }] }] }, {}),
    );
    expect(message).toContain('ai.providers[0]');
    expect(message).toContain('api_key');
    expect(message).not.toContain('sk-inline');
  });

  it('refuses to redefine the built-in echo provider', () => {
    const message = errorMessageOf(() => parseAiConfig({ providers: [{ id: 'echo', base_url: 'https://echo.test/v1', models: [{ name: 'echo' }] }] }, {}));
    expect(message).toContain('ai.providers[0].id');
    expect(message).toContain('cannot be redefined');
  });

  it('rejects repeated provider ids and repeated model names', () => {
    const message = errorMessageOf(() =>
      parseAiConfig(
        {
          providers: [
            { id: 'a', base_url: 'https://a.test/v1', models: [{ name: 'm' }, { name: 'm' }] },
            { id: 'a', base_url: 'https://a.test/v1', models: [{ name: 'n' }] },
          ],
        },
        {},
      ),
    );
    expect(message).toContain('ai.providers[0].models[1].name: repeats model "m"');
    expect(message).toContain('ai.providers[1].id: repeats provider "a"');
  });

  it('rejects a default model that is not configured, listing the configured ones', () => {
    const message = errorMessageOf(() => parseAiConfig({ default_model: 'openai/gpt-5' }, {}));
    expect(message).toContain('ai.default_model');
    expect(message).toContain('"openai/gpt-5" is not a configured model');
    expect(message).toContain('echo/echo');
  });

  it('stops start-up when a named key variable is not set, naming the variable but no value', () => {
    const message = errorMessageOf(() =>
      parseAiConfig({ providers: [{ id: 'a', base_url: 'https://a.test/v1', api_key_env: 'A_KEY', models: [{ name: 'm' }] }] }, { A_KEY: '  ' }),
    );
    expect(message).toContain('ai.providers[0].api_key_env');
    expect(message).toContain('A_KEY is not set');
  });

  it('leaves an unset key variable alone when the caller calls no models (operator commands)', () => {
    const raw = { providers: [{ id: 'a', base_url: 'https://a.test/v1', api_key_env: 'A_KEY', models: [{ name: 'm' }] }] };
    const config = parseAiConfig(raw, {}, { requireProviderKeys: false });
    expect(config.providers[0]?.apiKeyEnv).toBe('A_KEY');
  });

  describe('OPENAI_API_KEY shortcut', () => {
    it('registers provider openai with the default model list for the expert plan', () => {
      const config = parseAiConfig(undefined, { OPENAI_API_KEY: 'sk-env' });
      expect(config.providers).toHaveLength(1);
      const [openai] = config.providers;
      expect(openai).toMatchObject({
        id: 'openai',
        baseUrl: DEFAULT_OPENAI_BASE_URL,
        apiKeyEnv: 'OPENAI_API_KEY',
        region: 'us',
        source: 'env',
      });
      expect(openai?.models.map((model) => model.name)).toEqual(['gpt-4o-mini', 'gpt-4o', 'gpt-4.1-mini']);
      expect(openai?.models.every((model) => model.plans.length === 1 && model.plans[0] === 'expert')).toBe(true);
      expect(config.defaultModel).toBe('openai/gpt-4o-mini');
    });

    it('uses OPENAI_BASE_URL when set', () => {
      const config = parseAiConfig(undefined, { OPENAI_API_KEY: 'sk-env', OPENAI_BASE_URL: 'http://127.0.0.1:9999/v1' });
      expect(config.providers[0]?.baseUrl).toBe('http://127.0.0.1:9999/v1');
      expect(config.providers[0]?.outputTokensParameter).toBe('max_tokens');
    });

    it('rejects a malformed OPENAI_BASE_URL', () => {
      expect(errorMessageOf(() => parseAiConfig(undefined, { OPENAI_API_KEY: 'sk-env', OPENAI_BASE_URL: 'not a url' }))).toContain('OPENAI_BASE_URL');
    });

    it('does not override a configured openai provider', () => {
      const config = parseAiConfig(
        { providers: [{ id: 'openai', base_url: 'https://proxy.test/v1', api_key_env: 'PROXY_KEY', models: [{ name: 'gpt-4o' }] }] },
        { OPENAI_API_KEY: 'sk-env', PROXY_KEY: 'proxy' },
      );
      expect(config.providers).toHaveLength(1);
      expect(config.providers[0]).toMatchObject({ baseUrl: 'https://proxy.test/v1', apiKeyEnv: 'PROXY_KEY', source: 'config' });
    });

    it('is added after configured providers, so a configured model stays the default', () => {
      const config = parseAiConfig({ providers: [{ id: 'acme', base_url: 'https://acme.test/v1', models: [{ name: 'a-1' }] }] }, { OPENAI_API_KEY: 'sk-env' });
      expect(config.providers.map((provider) => provider.id)).toEqual(['acme', 'openai']);
      expect(config.defaultModel).toBe('acme/a-1');
    });

    it('ignores an empty OPENAI_API_KEY', () => {
      expect(parseAiConfig(undefined, { OPENAI_API_KEY: '' }).providers).toEqual([]);
    });
  });
});

describe('model ids and regions', () => {
  it('splits a model id at the first slash, keeping slashes in the model name', () => {
    expect(parseModelId('openai/gpt-4o')).toEqual({ provider: 'openai', name: 'gpt-4o' });
    expect(parseModelId('router/meta-llama/llama-3-70b')).toEqual({ provider: 'router', name: 'meta-llama/llama-3-70b' });
    for (const malformed of ['gpt-4o', '/gpt-4o', 'openai/', 'Open AI/gpt', 'openai/gpt 4o', '']) {
      expect(parseModelId(malformed), malformed).toBeUndefined();
    }
  });

  it('treats "eu" and "eu-*" regions as EU-hosted, in any case, and nothing else', () => {
    expect(['eu', 'EU', 'eu-west-1', ' Eu-central '].map(isEuRegion)).toEqual([true, true, true, true]);
    expect(['us', 'europe', 'unspecified', 'local', 'neu'].map(isEuRegion)).toEqual([false, false, false, false, false]);
  });
});
