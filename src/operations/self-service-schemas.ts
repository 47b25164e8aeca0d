/** Schemas shared by the self-service operations: the account, its keys, usage, the ledger and runs. */
import { z } from 'zod';
import type { CredentialClass } from '../core/access/caller.js';
import { ALL_SCOPES, type Scope } from '../core/access/scopes.js';
import { RUN_STATUSES } from '../db/store.js';
import { timestampSchema } from './schemas.js';

/**
 * Any key may read its own account: every key holds at least one scope, so "any one of all the
 * scopes" grants it to every key and refuses none.
 */
export const ANY_KEY_SCOPES: readonly Scope[] = ALL_SCOPES;
export const keyScopes: readonly Scope[] = ['manage:keys'];
/** Only the account holder manages its keys and connected apps: never a partner key. */
export const ACCOUNT_HOLDER_ONLY: readonly CredentialClass[] = ['partner_key'];
/** Nor does anything that mints a key, which would outlive a connected app's disconnection. */
export const MINTS_KEYS: readonly CredentialClass[] = ['partner_key', 'connected_app'];
export const usageScopes: readonly Scope[] = ['read:usage'];

export const keyLimitsSchema = z
  .object({
    requests_per_minute: z.number().int().min(1).describe('Requests the key may make per minute.'),
    requests_per_day: z.number().int().min(1).describe('Requests the key may make per UTC day.'),
  })
  .describe("The key's rate limits.");

export const ownKeySchema = z
  .object({
    id: z.uuid().describe('Key id.'),
    name: z.string().describe('Key name.'),
    prefix: z.string().describe('The first characters of the key, for recognising it (the key itself is never shown again).'),
    scopes: z.array(z.string()).describe('Scopes the key holds.'),
    limits: keyLimitsSchema,
    status: z.enum(['active', 'revoked', 'expired']).describe('Whether the key works now.'),
    created_at: timestampSchema,
    last_used_at: timestampSchema
      .nullable()
      .describe('Start of the last minute in which the key made a request (minute precision, UTC), or null when it never has.'),
    expires_at: timestampSchema.nullable().describe('When the key stops working (set by rotation with a grace period, or at creation), or null.'),
    revoked_at: timestampSchema.nullable().describe('When the key was revoked, or null.'),
    replaced_by: z
      .uuid()
      .nullable()
      .describe('The id of the key that replaced this one when it was rotated, or null. A key is rotated once: rotate its successor instead.'),
  })
  .describe("One of the account's API keys.");

export const createdKeySchema = z.object({
  key: ownKeySchema,
  api_key: z.string().describe('The new key (mdi_...). Shown only in this answer: store it now; only its hash is kept.'),
});

const tokenFields = {
  input_tokens: z.number().int().min(0).describe('Tokens sent to models.'),
  output_tokens: z.number().int().min(0).describe('Tokens models produced.'),
  total_tokens: z.number().int().min(0).describe('input_tokens + output_tokens.'),
  credits_charged: z.number().min(0).describe('Credits charged (charged tokens / 1,000; BYOK calls charge nothing).'),
};

export const usageTotalsSchema = z.object({
  requests: z.number().int().min(0).describe('Executions and calls answered to clients (a workflow run counts once).'),
  errors: z.number().int().min(0).describe('Of those, the ones that failed.'),
  model_calls: z.number().int().min(0).describe('Model calls made (a workflow run makes one per model node).'),
  ...tokenFields,
});

export const usageRowSchema = usageTotalsSchema
  .extend({
    group: z
      .string()
      .nullable()
      .describe(
        'The group: a UTC day (YYYY-MM-DD), a model id, an operation, a resource id or a key id; null for rows without one (a workflow run has no single model).',
      ),
    split: z.string().nullable().optional().describe('Only with `split_by`: the split within the group, named as `group` is (null for rows without one).'),
  })
  .describe('Totals of one group.');

export const runSchema = z
  .object({
    id: z.uuid().describe('Run id (for a workflow, its run_id).'),
    kind: z.enum(['workflow', 'composition', 'skill', 'persona']).describe('What was executed.'),
    operation: z.string().describe('The operation that ran it (execute_workflow, ...).'),
    resource_id: z.uuid().describe('The workflow, composition, skill or persona executed.'),
    version: z.number().int().min(1).nullable().describe('The version of the resource that ran (null only for a run recorded before it was known).'),
    status: z
      .enum(RUN_STATUSES)
      .describe(
        'Where the run is: queued (asynchronous, waiting for a process), running, or how it ended: completed, failed (its error is the result) or cancelled.',
      ),
    model: z
      .string()
      .nullable()
      .describe('The model that answered, or, while a run waits and runs, the one it will call; null for workflows (each node names its own).'),
    key_id: z
      .string()
      .nullable()
      .describe('The key that started the run, as usage grouped by key names it; null for a run started in the web console (signed in, with no key).'),
    token_usage: z
      .object({ input_tokens: tokenFields.input_tokens, output_tokens: tokenFields.output_tokens, total_tokens: tokenFields.total_tokens })
      .describe('Tokens of the whole run.'),
    credits_charged: tokenFields.credits_charged,
    duration_ms: z.number().int().min(0).describe('Wall time of the run in milliseconds.'),
    created_at: timestampSchema,
    started_at: timestampSchema.nullable().describe('When it started executing; null while queued or when cancelled before it started.'),
    finished_at: timestampSchema.nullable().describe('When it ended; null while queued or running.'),
    attempts: z
      .number()
      .int()
      .min(0)
      .describe(
        'How many times a process took the run from the queue to execute it (0 while it waits; more than 1 when a stopped process or a database outage sent it back). Always 0 for a run executed in its request, which never goes through the queue.',
      ),
    cancel_requested: z.boolean().describe('Whether its owner asked to cancel it; a running run stops within a second or so.'),
    payload_available: z.boolean().describe('False once retention (retention.run_days) dropped the inputs and result.'),
  })
  .describe('One execution of a workflow, composition, skill or persona.');

export const queuedRunSchema = z
  .object({
    run_id: z.uuid().describe('The queued run; poll GET /runs/{run_id} (the Location header) until its status is completed, failed or cancelled.'),
    status: z.literal('queued').describe('Always queued: the execution starts when a Porch process picks it up.'),
  })
  .describe('An execution queued as an asynchronous run (202, answered to `Prefer: respond-async`).');

export const runDetailSchema = runSchema
  .extend({
    inputs: z.unknown().describe('The request as executed (variables, input, options); null once pruned.'),
    result: z.unknown().describe('The execution result (for workflows with the full node trace), or the error of a failed run; null once pruned.'),
  })
  .describe('One run with its inputs and result or trace.');

export const ledgerEntrySchema = z
  .object({
    id: z.uuid().describe('Entry id.'),
    kind: z.enum(['grant', 'charge', 'adjustment']).describe('A grant adds credits, a charge pays for usage, an adjustment corrects the balance.'),
    delta_tokens: z.number().int().describe('Change of the balance in tokens (negative for charges).'),
    delta_credits: z.number().describe('The same in credits (tokens / 1,000).'),
    balance_after_tokens: z.number().int().describe('The balance after this entry, in tokens.'),
    balance_after_credits: z.number().describe('The balance after this entry, in credits.'),
    reference: z.string().nullable().describe('What the entry was for (usage:<operation>:<resource id> for charges), or null.'),
    created_at: timestampSchema,
  })
  .describe('One credits ledger entry.');

export const balanceSchema = z
  .object({
    balance_tokens: z.number().int().describe('Tokens the account owns.'),
    reserved_tokens: z.number().int().min(0).describe('Tokens held by executions in flight.'),
    available_tokens: z.number().int().describe('balance_tokens - reserved_tokens: what executions may spend.'),
    available_credits: z.number().int().min(0).describe('Whole credits available (floor of available_tokens / 1,000), as in X-Credits-Remaining.'),
  })
  .describe("The account's credits (1 credit = 1,000 tokens).");

export const connectedAppSchema = z
  .object({
    id: z.uuid().describe('Connection id: the id of the credential its tokens act as (revoke_connected_app takes it).'),
    client_id: z.string().describe('The OAuth client id the app registered with.'),
    name: z.string().describe('The name the app registered (client_name), or its client id when it gave none.'),
    scopes: z.array(z.string()).describe('Scopes granted on the consent page; its tokens act with exactly these.'),
    connected_at: timestampSchema.describe('When the account holder approved the connection.'),
    last_used_at: timestampSchema
      .nullable()
      .describe("Start of the last minute in which the app's tokens made a request (minute precision, UTC), or null when they never have."),
  })
  .describe('An app (an MCP host) connected to the account with OAuth.');
