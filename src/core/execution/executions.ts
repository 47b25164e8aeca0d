/**
 * Executing the caller's compositions, skills, personas and workflows. Each turns a stored
 * resource into messages (prompt-builders.ts), resolves the model, and calls it through the
 * metered model caller; workflows run their DAG on the engine with one metered call per node.
 */
import type { OrganisationRecord, Store, UsageRecord } from '../../db/store.js';
import type { Caller } from '../access/caller.js';
import type { Instance } from '../instance.js';
import { createConcurrencyLimiter } from '../access/concurrency-limiter.js';
import type { AiGateway } from '../ai/ai-gateway.js';
import type { TokenUsage } from '../ai/ai-types.js';
import type { ChatMessage } from '../ai/tokenizer.js';
import type { ByokService } from '../byok/byok.js';
import type { CatalogService } from '../catalog/catalog.js';
import type { LifecycleService } from '../catalog/lifecycle.js';
import type { VersionSelector } from '../catalog/versions.js';
import type { Clock } from '../clock.js';
import { type DeferredWrites, isStoreUnavailable } from '../deferred-writes.js';
import { type CreditService, type RunBudget, wholeTokens } from '../credits/credits.js';
import { executeNodeWith, isMeteredNode, meteredModelChoices, type ExecuteNode } from '../engine/node-kinds/index.js';
import type { NodeExecutionContext, NodeServices } from '../engine/node-kinds/node-kind.js';
import { runWorkflow, usedBeforeFailing, type NodeProgress, type NodeResult, type WorkflowRunResult } from '../engine/run-workflow.js';
import { validateWorkflowDefinition, type WorkflowDefinition } from '../engine/workflow-definition.js';
import { PorchError } from '../errors.js';
import { newId } from '../ids.js';
import type { JudgeService, JudgeServiceInput } from '../judge/judge-service.js';
import type { JudgeResult } from '../judge/judge-schema.js';
import { createRunRecorder, failedResult, type RunOutcome } from '../runs/run-recorder.js';
import type { GuardrailFinding } from '../sanitiser/guardrails.js';
import {
  costOfFailedCall,
  type ModelCaller,
  type ModelCallContext,
  refusedBeforeCalling,
  strictByokForbidsGateway,
  strictByokNeedsKey,
} from './model-calls.js';
import { traceNodes } from '../telemetry/instrument.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { compositionMessages, personaMessages, skillMessages, type VariableValues } from './prompt-builders.js';

export interface CompletionFields {
  content: string;
  model_used: string;
  token_usage: TokenUsage;
  duration_ms: number;
  /** Present when the organisation's guardrails found something (report, or redact that went through). */
  guardrail_findings?: GuardrailFinding[];
}

export interface CompositionExecutionResult extends CompletionFields {
  /** The version of the resource that ran. */
  version: number;
}

export interface SkillExecutionResult extends CompositionExecutionResult {
  skill_name: string;
}

export interface PersonaExecutionResult extends CompositionExecutionResult {
  persona_name: string;
}

export interface WorkflowExecutionResult {
  run_id: string;
  version: number;
  status: 'completed' | 'failed';
  outputs: Record<string, unknown>;
  node_results: NodeResult[];
  duration_ms: number;
  token_usage: TokenUsage;
}

/** What the workflow's sanitise nodes call: the organisation's ruleset over a text. */
export type TextScanner = (organisationId: string, text: string) => Promise<Record<string, unknown>>;

export interface WorkflowLimits {
  maxConcurrency: number;
  nodeTimeoutMs: number;
  runTimeoutMs: number;
  /**
   * How long a node's call is waited for once it was aborted (run-workflow.ts). Not a setting:
   * the default is the one a shutdown's budget is built on, and it can only be shortened (tests).
   */
  settleGraceMs?: number;
}

export interface ExecutionDependencies {
  store: Store;
  ai: AiGateway;
  catalog: CatalogService;
  /** Resolves the version an execution runs. */
  lifecycle: LifecycleService;
  credits: CreditService;
  byok: ByokService;
  modelCaller: ModelCaller;
  judge: JudgeService;
  scanText: TextScanner;
  clock: Clock;
  workflowLimits: WorkflowLimits;
  maxInFlightPerKey: number;
  /** This process's lease, under which its execution slots are held. */
  instance: Instance;
  /**
   * Where a write the store's outage refused waits until it lands: a slot's release, a run's
   * record, its settlement and its calls' usage records.
   */
  deferredWrites: DeferredWrites;
  /** A span per workflow node. */
  telemetry: Telemetry;
}

/** How a queued run's execution reports back to the queue that runs it. */
export interface QueuedRunHooks {
  /** The queued run: the execution records into it (and its usage rows name it) instead of making a new run. */
  id: string;
  /** Ends the queued run with how the execution went, in place of inserting a new run. */
  record(outcome: RunOutcome): Promise<void>;
  /**
   * Aborted as soon as the run's cancel is accepted, before `signal` is (the run queue lets calls
   * in flight read what already arrived first): a workflow starts no node after it.
   */
  cancelAccepted?: AbortSignal | undefined;
}

/**
 * What a door or the run queue may attach to one execution: its cancellation, the listeners a
 * streaming door uses, and the queued run it executes. The result of the execution is the same
 * with or without them.
 */
export interface ExecutionHooks {
  /** Aborted when the caller goes away or a queued run is cancelled: stops the provider call (a stream is settled on what it cost). */
  signal?: AbortSignal | undefined;
  /** Compositions, skills and personas: the answer's text as the provider produces it (streams the call). */
  onDelta?: ((text: string) => void) | undefined;
  /** Workflows: each node's trace entry when it completes or fails, and how many of the run's nodes have. */
  onNode?: ((node: NodeResult, progress: NodeProgress) => void) | undefined;
  /** Present when the execution is a queued run's. */
  queuedRun?: QueuedRunHooks | undefined;
}

/** The listeners of ExecutionHooks: what a streaming door hands in through the invocation path. */
export type ExecutionEvents = Pick<ExecutionHooks, 'onDelta' | 'onNode'>;

export interface ExecutionOptions extends VersionSelector {
  model?: string | undefined;
  use_byok?: boolean | undefined;
}

/** Results carry `guardrail_findings` only when the guardrails found something (absent, not empty, otherwise). */
function withFindings(findings: GuardrailFinding[]): { guardrail_findings?: GuardrailFinding[] } {
  return findings.length > 0 ? { guardrail_findings: findings } : {};
}

/**
 * A single call's run record, written out field by field: on Node 20 (V8 11.3) a property added
 * to a spread copy (`{ ...run, status }`) gives every copy a map of its own, which costs a slow
 * store and a cache miss at every later read of it, and crowds V8's shared cache of property
 * lookups for the whole process (bench/RESULTS-NOTES.md, "Objects of one shape").
 */
function runOutcome(
  run: Pick<RunOutcome, 'kind' | 'resourceId' | 'version' | 'inputs'>,
  outcome: Pick<RunOutcome, 'status' | 'model' | 'usage' | 'chargedTokens' | 'durationMs' | 'result'>,
): RunOutcome {
  return {
    kind: run.kind,
    resourceId: run.resourceId,
    version: run.version,
    status: outcome.status,
    model: outcome.model,
    usage: outcome.usage,
    chargedTokens: outcome.chargedTokens,
    durationMs: outcome.durationMs,
    inputs: run.inputs,
    result: outcome.result,
  };
}

/** A call of a workflow run that asks to be held or charged after the run's books were closed. */
function runAlreadyEnded(): PorchError {
  return new PorchError('INTERNAL_ERROR', 'The workflow run had already ended; this call was not charged.');
}

/**
 * A workflow run's books: its calls hold and accrue through `budget`, and what they accrued is
 * the run's charge, counted as each accrual lands, so the run records what the ledger charges.
 * `close` ends them before the run is recorded: it waits for the holds and accruals in flight
 * (regression: a hold still on its way when the run settled opened or grew the reservation after
 * it), and from then on a call the engine gave up on (one that ignored its signal past the settle
 * grace) can no longer be held or charged (its usage record says `billing_failed`), so nothing
 * accrues after the record. What such a call accrued before `close` is the ledger's charge too:
 * `chargesOfNode` holds it, for the run's trace (`withChargesOfGivenUpNodes`).
 */
function runBooks(run: RunBudget) {
  let closed = false;
  let chargedTokens = 0;
  const inFlight = new Set<Promise<void>>();
  const charges = new Map<string, UsageRecord[]>();
  const track = (step: Promise<void>): Promise<void> => {
    inFlight.add(step);
    return step.finally(() => inFlight.delete(step));
  };
  const budget: RunBudget = {
    hold: (tokens) => (closed ? Promise.reject(runAlreadyEnded()) : track(run.hold(tokens))),
    charge(heldTokens, usage) {
      if (closed) return Promise.reject(runAlreadyEnded());
      return track(
        run.charge(heldTokens, usage).then(() => {
          chargedTokens += wholeTokens(usage.chargedTokens);
          const nodeId = usage.nodeId ?? '';
          const ofNode = charges.get(nodeId);
          if (ofNode === undefined) charges.set(nodeId, [usage]);
          else ofNode.push(usage);
        }),
      );
    },
    drop: (heldTokens, usage) => run.drop(heldTokens, usage),
    settle: (reference, usage) => run.settle(reference, usage),
    release: () => run.release(),
  };
  return {
    budget,
    get chargedTokens(): number {
      return chargedTokens;
    },
    /** The usage records the ledger accrued for node `nodeId`'s calls. */
    chargesOfNode(nodeId: string): readonly UsageRecord[] {
      return charges.get(nodeId) ?? [];
    },
    async close(): Promise<void> {
      closed = true;
      await Promise.allSettled([...inFlight]);
    },
  };
}

/**
 * The run's answer with what the ledger charged for the nodes the engine gave up on: such a
 * node's trace entry (failed with its time limit, or skipped by a stop) carries no usage, yet
 * its call may have been charged after the engine stopped waiting and before the books closed.
 * Its entry then names the model and the tokens, and the run's `token_usage` counts them, so
 * the trace, `token_usage` and `credits_charged` agree with the ledger (regression: the charge
 * counted in `credits_charged` alone).
 */
function withChargesOfGivenUpNodes(result: WorkflowRunResult, books: Pick<ReturnType<typeof runBooks>, 'chargesOfNode'>): WorkflowRunResult {
  const tokenUsage = { ...result.token_usage };
  let changed = false;
  const nodeResults = result.node_results.map((node) => {
    const charged = books.chargesOfNode(node.node_id);
    const last = charged.at(-1);
    if (node.status === 'completed' || node.token_usage !== null || last === undefined) return node;
    const usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
    for (const record of charged) {
      usage.input_tokens += record.inputTokens;
      usage.output_tokens += record.outputTokens;
      usage.total_tokens += record.totalTokens;
    }
    tokenUsage.input_tokens += usage.input_tokens;
    tokenUsage.output_tokens += usage.output_tokens;
    tokenUsage.total_tokens += usage.total_tokens;
    changed = true;
    return { ...node, model: last.model, token_usage: usage };
  });
  return changed ? { ...result, node_results: nodeResults, token_usage: tokenUsage } : result;
}

/**
 * Makes `writes` one after another. From the first the store cannot take (it is out of reach),
 * the rest wait for it in the same order (deferred-writes.ts), none made twice; another failure
 * is thrown.
 */
async function writeInOrder(deferredWrites: DeferredWrites, what: string, writes: ReadonlyArray<() => Promise<unknown>>): Promise<void> {
  let done = 0;
  await deferredWrites.attempt(what, async () => {
    for (const write of writes.slice(done)) {
      await write();
      done += 1;
    }
  });
}

/** A version of a workflow never changes, so the validated definitions of versions are kept, up to a bound. */
const DEFINITION_CACHE_SIZE = 1_000;

export function createExecutionService(deps: ExecutionDependencies) {
  const { store, ai, catalog, modelCaller, clock } = deps;
  const definitions = new Map<string, WorkflowDefinition>();
  const runs = createRunRecorder(store.runs, clock, deps.deferredWrites);

  /**
   * Records how the execution ended: into the queued run it serves, or as a new run. A new run
   * the store cannot take now is recorded once it is back, failed, and the store's error is
   * thrown for the request to answer (run-recorder.ts); a queued run's ending waits for the store
   * in the queue (run-queue.ts).
   */
  async function record(caller: Caller, outcome: RunOutcome, hooks: ExecutionHooks): Promise<void> {
    if (hooks.queuedRun) await hooks.queuedRun.record({ ...outcome, runId: hooks.queuedRun.id });
    else await runs.record(caller, outcome, hooks.signal);
  }

  async function organisationOf(caller: Caller): Promise<OrganisationRecord> {
    const organisation = await store.organisations.findById(caller.account.organisationId);
    if (!organisation) throw new PorchError('INTERNAL_ERROR', 'The account has no organisation.');
    return organisation;
  }

  /**
   * A run that will call models must be able to start: refused up front (as a single execute
   * is) rather than with a failed first node. Under strict BYOK, `use_byok: false` or a provider
   * without the caller's key is 403; else 402 without the minimum balance, unless every call will
   * go out on the caller's own key: the providers checked are those of the models the metered
   * nodes will ask for (node, resource default, deployment default), not the default model's alone.
   */
  async function checkRunCanStart(
    caller: Caller,
    organisation: OrganisationRecord,
    definition: WorkflowDefinition,
    useByok: boolean | undefined,
  ): Promise<void> {
    const accountId = caller.account.id;
    const choices = await meteredModelChoices(definition.nodes, {
      getSkill: (ref) => catalog.getSkill(accountId, ref),
      getComposition: (ref) => catalog.getComposition(accountId, ref),
    });
    const providers = new Set<string>();
    // The echo model runs locally on the shared gateway's credits: there is no key to bring.
    let paidFromCredits = false;
    for (const choice of choices) {
      try {
        const model = ai.resolveModel({ ...choice, plan: caller.account.plan, euOnly: organisation.euOnlyModels });
        if (ai.isEcho(model)) paidFromCredits = true;
        else providers.add(model.provider);
      } catch {
        // A model the node may not use fails that node, naming it.
      }
    }
    if (useByok === false) {
      if (providers.size > 0 && organisation.strictByok) throw strictByokForbidsGateway();
      if (providers.size > 0) paidFromCredits = true;
    } else {
      for (const provider of providers) {
        if ((await deps.byok.activeKeyFor(caller.account, provider)) !== null) continue;
        if (organisation.strictByok) throw strictByokNeedsKey(provider);
        paidFromCredits = true;
      }
    }
    if (paidFromCredits) await deps.credits.requireMinimum(accountId);
  }

  /**
   * One metered call and the spec's common result fields plus the resource's own (`described`),
   * recorded as a run with exactly the answer the caller gets (failed when the call fails).
   */
  async function complete<Described extends object>(
    ctx: ModelCallContext,
    messages: ChatMessage[],
    model: { requested?: string | undefined; resourceDefault?: string | null | undefined },
    run: Pick<RunOutcome, 'kind' | 'resourceId' | 'version' | 'inputs'>,
    described: Described,
    hooks: ExecutionHooks,
    options: { temperature?: number | undefined } = {},
  ): Promise<CompletionFields & Described> {
    const started = clock.now();
    const resolved = ai.resolveModel({
      requested: model.requested,
      resourceDefault: model.resourceDefault,
      plan: ctx.caller.account.plan,
      euOnly: ctx.organisation.euOnlyModels,
    });
    let result: Awaited<ReturnType<ModelCaller['call']>>;
    try {
      const request = { model: resolved, messages, temperature: options.temperature };
      result = hooks.onDelta === undefined ? await modelCaller.call(ctx, request) : await modelCaller.stream(ctx, request, hooks.onDelta);
    } catch (err) {
      // Refused before any model was called: not a run, unless it is a queued run's, which exists
      // (and goes back to the queue when the refusal was the store's outage: run-queue.ts).
      if (refusedBeforeCalling(err) && (hooks.queuedRun === undefined || isStoreUnavailable(err))) throw err;
      const cost = costOfFailedCall(err);
      const failed = {
        status: 'failed',
        model: resolved.id,
        usage: cost?.usage ?? runs.NO_USAGE,
        chargedTokens: cost?.chargedTokens ?? 0,
        durationMs: clock.now() - started,
        result: failedResult(err),
      } as const;
      await record(ctx.caller, runOutcome(run, failed), hooks);
      throw err;
    }
    const response = {
      content: result.content,
      model_used: result.modelUsed,
      token_usage: result.usage,
      duration_ms: clock.now() - started,
      ...withFindings(result.guardrailFindings),
      ...described,
    };
    const completed = {
      status: 'completed',
      model: result.modelUsed,
      usage: result.usage,
      chargedTokens: result.chargedTokens,
      durationMs: response.duration_ms,
      result: response,
    } as const;
    await record(ctx.caller, runOutcome(run, completed), hooks);
    return response;
  }

  /** The context of a single-call execution's model call: a queued run's usage rows name the run. */
  const callContext = (
    caller: Caller,
    organisation: OrganisationRecord,
    operation: string,
    resourceId: string,
    version: number,
    useByok: boolean | undefined,
    hooks: ExecutionHooks,
  ): ModelCallContext => ({
    caller,
    organisation,
    operation,
    resourceId,
    resourceVersion: version,
    runId: hooks.queuedRun?.id ?? null,
    useByok,
    signal: hooks.signal,
    deferredWrites: deps.deferredWrites,
  });

  function definitionOf(workflowId: string, version: number, stored: unknown): WorkflowDefinition {
    const key = `${workflowId}:${version}`;
    let definition = definitions.get(key);
    if (!definition) {
      definition = validateWorkflowDefinition(stored);
      if (definitions.size >= DEFINITION_CACHE_SIZE) definitions.delete(definitions.keys().next().value ?? '');
      definitions.set(key, definition);
    }
    return definition;
  }

  return {
    /** Bounds the executions in flight per key; the invocation path runs every execution through it. */
    concurrency: createConcurrencyLimiter({
      slots: store.executionSlots,
      instance: deps.instance,
      clock,
      deferredWrites: deps.deferredWrites,
      maxPerKey: deps.maxInFlightPerKey,
    }),

    async judge(caller: Caller, input: JudgeServiceInput, signal?: AbortSignal): Promise<JudgeResult & { guardrail_findings?: GuardrailFinding[] }> {
      const { result, guardrailFindings } = await deps.judge.judge(caller, await organisationOf(caller), input, {
        operation: 'run_judge',
        resourceId: null,
        signal,
      });
      return { ...result, ...withFindings(guardrailFindings) };
    },

    async executeComposition(
      caller: Caller,
      id: string,
      input: ExecutionOptions & { variables?: VariableValues | undefined },
      hooks: ExecutionHooks = {},
    ): Promise<CompositionExecutionResult> {
      const { record: composition, version } = await deps.lifecycle.resolve('composition', caller.account.id, id, input);
      const messages = compositionMessages(composition, input.variables ?? {});
      const organisation = await organisationOf(caller);
      const result = await complete(
        callContext(caller, organisation, 'execute_composition', id, version, input.use_byok, hooks),
        messages,
        { requested: input.model, resourceDefault: composition.defaultModel },
        { kind: 'composition', resourceId: id, version, inputs: input },
        { version },
        hooks,
      );
      await store.catalog.incrementCompositionUse(id);
      return result;
    },

    async executeSkill(
      caller: Caller,
      id: string,
      input: ExecutionOptions & { input?: string | undefined; context?: string | undefined; variables?: VariableValues | undefined },
      hooks: ExecutionHooks = {},
    ): Promise<SkillExecutionResult> {
      const { record: skill, version } = await deps.lifecycle.resolve('skill', caller.account.id, id, input);
      // The spec: `input` is preferred; `context` is its legacy alias; input wins when both are sent.
      const text = input.input ?? input.context ?? '';
      const organisation = await organisationOf(caller);
      return complete(
        callContext(caller, organisation, 'execute_skill', id, version, input.use_byok, hooks),
        skillMessages(skill, text, input.variables ?? {}),
        { requested: input.model, resourceDefault: skill.model },
        { kind: 'skill', resourceId: id, version, inputs: input },
        { version, skill_name: skill.name },
        hooks,
      );
    },

    async executePersona(
      caller: Caller,
      id: string,
      input: ExecutionOptions & { input: string; context?: string | undefined; temperature?: number | undefined },
      hooks: ExecutionHooks = {},
    ): Promise<PersonaExecutionResult> {
      const { record: persona, version } = await deps.lifecycle.resolve('persona', caller.account.id, id, input);
      const organisation = await organisationOf(caller);
      return complete(
        callContext(caller, organisation, 'execute_persona', id, version, input.use_byok, hooks),
        personaMessages(persona, input.input, input.context),
        { requested: input.model },
        { kind: 'persona', resourceId: id, version, inputs: input },
        { version, persona_name: persona.title },
        hooks,
        { temperature: input.temperature },
      );
    },

    async executeWorkflow(
      caller: Caller,
      id: string,
      input: VersionSelector & { variables?: VariableValues | undefined; include_trace?: boolean | undefined; use_byok?: boolean | undefined },
      hooks: ExecutionHooks = {},
    ): Promise<WorkflowExecutionResult> {
      const { signal, onNode } = hooks;
      const { record: workflow, version } = await deps.lifecycle.resolve('workflow', caller.account.id, id, input);
      const definition = definitionOf(workflow.id, version, workflow.definition);
      const organisation = await organisationOf(caller);
      if (definition.nodes.some(isMeteredNode)) await checkRunCanStart(caller, organisation, definition, input.use_byok);
      const runId = hooks.queuedRun?.id ?? newId();
      // The run's calls are paid from one reservation, settled once when it ends (RunBudget).
      const budget = deps.credits.openRun(caller.account.id);
      const books = runBooks(budget);

      const nodeCallContext = (nodeCtx: NodeExecutionContext): ModelCallContext => ({
        caller,
        organisation,
        operation: 'execute_workflow',
        resourceId: workflow.id,
        resourceVersion: version,
        runId,
        nodeId: nodeCtx.nodeId,
        useByok: input.use_byok,
        signal: nodeCtx.signal,
        budget: books.budget,
        deferredWrites: deps.deferredWrites,
      });
      /** `work`'s answer; a call that failed after it was charged counts toward its node (the run's charge is the books'). */
      const counted = async <T>(work: () => Promise<T>): Promise<T> => {
        try {
          return await work();
        } catch (err) {
          const cost = costOfFailedCall(err);
          if (cost === undefined) throw err;
          throw usedBeforeFailing(err, cost);
        }
      };
      const services: NodeServices = {
        async callModel(messages, model, options, nodeCtx) {
          const resolvedModel = ai.resolveModel({
            ...model,
            plan: caller.account.plan,
            euOnly: organisation.euOnlyModels,
            field: `nodes.${nodeCtx.nodeId}.model`,
          });
          const result = await counted(() =>
            modelCaller.call(nodeCallContext(nodeCtx), {
              model: resolvedModel,
              messages,
              temperature: options.temperature,
              maxOutputTokens: options.maxOutputTokens,
            }),
          );
          return { output: result.content, model: result.modelUsed, token_usage: result.usage, ...withFindings(result.guardrailFindings) };
        },
        getPersona: (ref) => catalog.getPersona(caller.account.id, ref),
        getSkill: (ref) => catalog.getSkill(caller.account.id, ref),
        getComposition: (ref) => catalog.getComposition(caller.account.id, ref),
        messages: { skill: skillMessages, composition: compositionMessages, persona: personaMessages },
        scan: (text) => deps.scanText(organisation.id, text),
        async judge(judgeInput, nodeCtx) {
          const outcome = await counted(() => deps.judge.judge(caller, organisation, { ...judgeInput, use_byok: input.use_byok }, nodeCallContext(nodeCtx)));
          return { output: { ...outcome.result }, model: outcome.model, token_usage: outcome.usage, ...withFindings(outcome.guardrailFindings) };
        },
      };

      /**
       * The compositions that composition nodes ran to completion, once per node: `times_used`
       * counts successful executions, and a node's is one as much as a direct execute's
       * (regression: seven completed workflow runs left it at 0).
       */
      const compositionsRun: string[] = [];
      const runNode = executeNodeWith(services);
      const executeNode: ExecuteNode = async (node, resolved, nodeCtx) => {
        let ranId: string | undefined;
        const output = await runNode(node, resolved, {
          ...nodeCtx,
          ran(resource) {
            ranId = resource.id;
            nodeCtx.ran(resource);
          },
        });
        if (resolved.kind === 'composition' && ranId !== undefined) compositionsRun.push(ranId);
        return output;
      };

      let result: WorkflowRunResult;
      let response: WorkflowExecutionResult;
      /** The store's error, when the run could not be recorded now: the request answers it (run-recorder.ts). */
      let withheld: unknown;
      try {
        let ran: WorkflowRunResult;
        try {
          // The engine answers once every node's call has settled, an answer that arrived as
          // the run was stopped or timed out included (run-workflow.ts), so its trace holds every
          // charge made for it.
          ran = await runWorkflow(definition, input.variables ?? {}, traceNodes(executeNode, deps.telemetry, deps.telemetry.scopeOf(caller)), {
            ...deps.workflowLimits,
            clock,
            ...(signal ? { signal } : {}),
            ...(hooks.queuedRun?.cancelAccepted ? { holdBack: hooks.queuedRun.cancelAccepted } : {}),
            ...(onNode ? { onNodeFinished: onNode } : {}),
          });
        } finally {
          await books.close();
        }
        result = withChargesOfGivenUpNodes(ran, books);
        const { chargedTokens } = books;
        response = {
          run_id: runId,
          version,
          status: result.status,
          outputs: result.outputs,
          node_results: input.include_trace ? result.node_results : [],
          duration_ms: result.duration_ms,
          token_usage: result.token_usage,
        };
        try {
          await record(
            caller,
            {
              kind: 'workflow',
              resourceId: workflow.id,
              version,
              runId,
              status: result.status,
              model: null,
              usage: result.token_usage,
              chargedTokens,
              durationMs: result.duration_ms,
              inputs: input,
              result: { ...response, node_results: result.node_results },
            },
            hooks,
          );
        } catch (err) {
          if (!isStoreUnavailable(err)) throw err;
          withheld = err;
        }
        // The run's own usage record, written with its settlement.
        const usageOfRun: UsageRecord = {
          id: newId(),
          accountId: caller.account.id,
          apiKeyId: caller.credential.kind === 'api_key' ? caller.credential.id : null,
          partnerKeyId: caller.credential.kind === 'partner_key' ? caller.credential.id : null,
          operation: 'execute_workflow',
          resourceId: workflow.id,
          resourceVersion: version,
          runId,
          nodeId: null,
          model: null,
          inputTokens: result.token_usage.input_tokens,
          outputTokens: result.token_usage.output_tokens,
          totalTokens: result.token_usage.total_tokens,
          chargedTokens,
          byok: false,
          durationMs: result.duration_ms,
          status: result.status === 'completed' && withheld === undefined ? 'succeeded' : 'failed',
          retry: false,
          createdAt: clock.now(),
        };
        // The run is recorded, or will be once the store is back: so are its use and its
        // settlement, as soon as the store can take them (regression: a run the outage cut off
        // kept its reservation, and what its calls accrued, until the reservation expired 15
        // minutes later and was charged naming no run, and it had no usage record of its own).
        await writeInOrder(deps.deferredWrites, `the end of workflow run ${runId}`, [
          () => store.catalog.incrementWorkflowUse(workflow.id),
          // The settlement charges what the run's calls accrued and writes the run's own record with it.
          () => budget.settle(`usage:execute_workflow:${workflow.id}`, usageOfRun),
          // Counted once paid for, as a direct execute is: a run whose settlement failed, or whose
          // answer was withheld, did not succeed, nor did its nodes' executions (regression:
          // counted before).
          ...(withheld === undefined ? compositionsRun.map((compositionId) => () => store.catalog.incrementCompositionUse(compositionId)) : []),
        ]);
      } catch (err) {
        // Whatever stopped the run, its calls so far are charged and the rest of its reservation
        // goes back; a failure to do so now leaves it to the sweeper, which does the same.
        await budget.release().catch(() => undefined);
        throw err;
      }
      if (withheld !== undefined) throw withheld;
      // A rejected BYOK key is the caller's to fix, not a step of the workflow that failed: the
      // run is recorded as failed above, and the request fails as any other execution would.
      const byokRejection = result.node_results.find((node) => node.error?.code === 'BYOK_KEY_INVALID');
      if (byokRejection?.error) throw new PorchError('BYOK_KEY_INVALID', byokRejection.error.message);
      return response;
    },
  };
}

export type ExecutionService = ReturnType<typeof createExecutionService>;
