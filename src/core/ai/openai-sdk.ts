/**
 * The openai SDK, loaded on first use (synchronously, from its CommonJS build) instead of at
 * start-up: a server whose first requests need no model, or that runs only the echo model, never
 * pays for it. Every value of the SDK (the client, its error classes) comes from here, so
 * instanceof checks always meet the same classes.
 */
import { createRequire } from 'node:module';
import type * as OpenAiModule from 'openai';

let loaded: typeof OpenAiModule | undefined;

export function openAiSdk(): typeof OpenAiModule {
  loaded ??= createRequire(import.meta.url)('openai') as typeof OpenAiModule;
  return loaded;
}
