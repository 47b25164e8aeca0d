/** A harness whose AI provider `fake` is the fake OpenAI-compatible server, over real HTTP. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { fakeProviderAiConfig, startFakeOpenAi, type FakeOpenAi } from './fake-openai.js';
import { createHarness, type Harness, type HarnessOptions } from './harness.js';

export const GATEWAY_KEY = 'sk-gateway-test-key-0000';

export interface ProviderHarness extends Harness {
  fake: FakeOpenAi;
}

export interface ProviderHarnessOptions {
  /** Extra top-level config (e.g. `workflows` limits). */
  config?: Record<string, unknown>;
  env?: Record<string, string>;
  /** Models of provider `fake`; default a fast model any plan may use. */
  models?: Array<Record<string, unknown>>;
  region?: string;
  serverTimeouts?: HarnessOptions['serverTimeouts'];
}

export async function createProviderHarness(options: ProviderHarnessOptions = {}): Promise<ProviderHarness> {
  const fake = await startFakeOpenAi();
  const directory = await mkdtemp(join(tmpdir(), 'porch-provider-'));
  const configPath = join(directory, 'porch.config.yaml');
  await writeFile(
    configPath,
    stringify({
      ai: fakeProviderAiConfig(fake, options),
      ...options.config,
    }),
  );
  let harness: Harness;
  try {
    harness = await createHarness({
      env: { PORCH_CONFIG: configPath, FAKE_PROVIDER_KEY: GATEWAY_KEY, ...options.env },
      ...(options.serverTimeouts === undefined ? {} : { serverTimeouts: options.serverTimeouts }),
    });
  } catch (err) {
    // A config a test wrote wrong must not leave the fake upstream listening or the folder behind.
    await fake.close();
    await rm(directory, { recursive: true, force: true });
    throw err;
  }
  return {
    ...harness,
    fake,
    async close() {
      await harness.close();
      await fake.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
