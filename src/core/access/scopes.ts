import { PorchError } from '../errors.js';

/** The owned resources that can be listed and executed. */
export const EXECUTABLE_RESOURCES = ['workflow', 'composition', 'skill', 'persona'] as const;
export type ExecutableResource = (typeof EXECUTABLE_RESOURCES)[number];

/** The Expert areas that `api:expert` grants as a wildcard. */
export const EXPERT_AREAS = ['context-cards', 'judge', 'sanitiser'] as const;
export type ExpertArea = (typeof EXPERT_AREAS)[number];

/** Both of the spec's scope lists, with what each grants. */
export const SCOPE_DESCRIPTIONS = {
  'read:workflow': 'List and view workflows',
  'execute:workflow': 'List and execute workflows',
  'read:composition': 'List and view compositions',
  'execute:composition': 'List and execute compositions',
  'read:skill': 'List and view custom skills',
  'execute:skill': 'List and execute custom skills',
  'read:persona': 'List and view personas',
  'execute:persona': 'List and execute personas',
  'api:context-cards': 'Read and write context cards (list, get, create, update, delete)',
  'api:judge': 'Score prompts with the judge',
  'api:sanitiser': 'Scan text with the sanitiser',
  'api:expert': 'Wildcard for every Expert area: judge, sanitiser and context cards',
  'write:workflow': 'Create, update, delete and label workflows',
  'write:composition': 'Create, update, delete and label compositions',
  'write:skill': 'Create, update, delete and label custom skills',
  'write:persona': 'Create, update, delete and label personas',
  'manage:keys': "List, create, rotate and revoke the account's own API keys",
  'read:usage': 'Read usage aggregates, recent runs and the credits ledger',
  'manage:webhooks': "Create, change, delete and rotate the account's webhook endpoints, read their delivery log, redeliver, and set the credits.low threshold",
  'manage:organisation':
    'Organisation admins only: read the organisation and its members, set its policies, manage its sanitiser rules and its BYOK provider keys',
} as const;

export type Scope = keyof typeof SCOPE_DESCRIPTIONS;
export const ALL_SCOPES = Object.keys(SCOPE_DESCRIPTIONS) as Scope[];

/**
 * Scopes that change the catalog or the account itself. DECISIONS: none is implied by
 * `api:expert`, and none is in a new key's defaults; a key holds one only when it was asked for.
 */
export const GRANTED_ONLY_EXPLICITLY = [
  'write:workflow',
  'write:composition',
  'write:skill',
  'write:persona',
  'manage:keys',
  'read:usage',
  'manage:webhooks',
  'manage:organisation',
] as const satisfies readonly Scope[];

/** What a key (or a partner key without a surface) holds when no scopes are named: the spec's published scopes. */
export const DEFAULT_KEY_SCOPES: readonly Scope[] = ALL_SCOPES.filter((scope) => !(GRANTED_ONLY_EXPLICITLY as readonly Scope[]).includes(scope));

/** What a partner key may call: its product surface, or the default scopes when it was issued without one (stored as null). */
export function partnerKeyScopes(surface: readonly string[] | null): readonly string[] {
  return surface ?? DEFAULT_KEY_SCOPES;
}

/** Scopes that grant listing (and viewing) a resource: its read scope, and its execute scope. */
export function readScopes(resource: ExecutableResource): readonly Scope[] {
  return [`read:${resource}`, `execute:${resource}`];
}

/** Scopes that grant executing a resource. */
export function executeScopes(resource: ExecutableResource): readonly Scope[] {
  return [`execute:${resource}`];
}

/** Every execute scope: what may start a run of some kind, and so follow or cancel runs (narrowed to the run's kind by `runScopes`). */
export const ANY_EXECUTE_SCOPES: readonly Scope[] = EXECUTABLE_RESOURCES.flatMap(executeScopes);

/**
 * Scopes that grant reading or cancelling one run: the execute scope of its kind, so a key that may
 * start such runs may follow them, and, for reading, `read:usage`, which grants every run.
 */
export function runScopes(kind: ExecutableResource, access: 'read' | 'cancel'): readonly Scope[] {
  return access === 'read' ? ['read:usage', ...executeScopes(kind)] : executeScopes(kind);
}

/** Scopes that grant changing a resource: create, update, delete, and setting its labels. */
export function writeScopes(resource: ExecutableResource): readonly Scope[] {
  return [`write:${resource}`];
}

/** Scopes that grant an Expert area: its own scope, and the `api:expert` wildcard. */
export function expertScopes(area: ExpertArea): readonly Scope[] {
  return [`api:${area}`, 'api:expert'];
}

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPE_DESCRIPTIONS, value);
}

/** Parses a scope list given by an operator; an unknown scope is an error, never ignored. */
export function parseScopes(values: readonly string[]): Scope[] {
  const unknown = values.filter((value) => !isScope(value));
  if (unknown.length > 0) {
    throw new PorchError('VALIDATION_ERROR', `Unknown scope${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. Known scopes: ${ALL_SCOPES.join(', ')}.`);
  }
  if (values.length === 0) throw new PorchError('VALIDATION_ERROR', 'A key needs at least one scope.');
  return [...new Set(values as Scope[])];
}

export function grantsAny(granted: readonly string[], required: readonly Scope[]): boolean {
  return required.some((scope) => granted.includes(scope));
}
