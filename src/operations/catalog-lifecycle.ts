/**
 * The lifecycle operations of compositions, skills, personas and workflows (eight each; see
 * lifecycle-operations.ts). Each kind's definition is its bundle entry: what `porch import`
 * reads is what the API creates and updates, checked the same way.
 */
import { z } from 'zod';
import { compositionEntrySchema, personaEntrySchema, skillEntrySchema, workflowEntrySchema } from '../core/bundle/bundle-schema.js';
import { lifecycleOperations } from './lifecycle-operations.js';

export const compositionLifecycle = lifecycleOperations({
  kind: 'composition',
  path: '/compositions',
  tag: 'Compositions',
  noun: 'composition',
  definition: compositionEntrySchema.omit({ key: true }),
  counters: { times_used: z.number().int().min(0).describe('How many times it has been executed successfully.') },
});

export const skillLifecycle = lifecycleOperations({
  kind: 'skill',
  path: '/skills',
  tag: 'Skills',
  noun: 'custom skill',
  definition: skillEntrySchema.omit({ key: true }),
  counters: {},
});

export const personaLifecycle = lifecycleOperations({
  kind: 'persona',
  path: '/personas',
  tag: 'Personas',
  noun: 'persona',
  definition: personaEntrySchema.omit({ key: true }),
  counters: {},
});

export const workflowLifecycle = lifecycleOperations({
  kind: 'workflow',
  path: '/workflows',
  tag: 'Workflows',
  noun: 'workflow',
  definition: workflowEntrySchema.omit({ key: true, dangling_refs: true }),
  counters: { usage_count: z.number().int().min(0).describe('How many times it has run.') },
});
