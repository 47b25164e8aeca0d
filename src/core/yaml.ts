/**
 * The yaml package, loaded on first use (synchronously, from its CommonJS build) instead of at
 * start-up: config files, bundles, SKILL.md front matter and openapi.yaml need it, but a server
 * started without a config file answers its first requests without it, and starts sooner.
 */
import { createRequire } from 'node:module';
import type * as YamlModule from 'yaml';

let loaded: typeof YamlModule | undefined;

export function yaml(): typeof YamlModule {
  loaded ??= createRequire(import.meta.url)('yaml') as typeof YamlModule;
  return loaded;
}
