/**
 * Executing the caller's compositions, skills, personas and workflows. Each turns a stored
 * resource into messages (prompt-builders.ts), resolves the model, and calls it through the
 * metered model caller; workflows run their DAG on the engine with one metered call per node.
 */
import type { OrganisationRecord, Store } from '../../db/store.js';
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
import type { CreditService } from '../credits/credits.js';
import { executeNodeWith, isMeteredNode } from '../engine/node-kinds/index.js';
import type { NodeExecutionContext, NodeServices } from '../engine/node-kinds/node-kind.js';
import { runWorkflow, type NodeResult } from '../engine/run-workflow.js';
import { validateWorkflowDefinition, type WorkflowDefinition } from '../engine/workflow-definition.js';
import { PorchError } from '../errors.js';
import { newId } from '../ids.js';
import type { JudgeService, JudgeServiceInput } from '../judge/judge-service.js';
import type { JudgeResult } from '../judge/judge-schema.js';
import { createRunRecorder, failedResult, type RunOutcome } from '../runs/run-recorder.js';
import type { GuardrailFinding } from '../sanitiser/guardrails.js';
import type { ModelCaller, ModelCallContext } from './model-calls.js';
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
  /** A span per workflow node. */
  telemetry: Telemetry;
}

export interface ExecutionOptions extends VersionSelector {
  model?: string | undefined;
  use_byok?: boolean | undefined;
}

/** A version of a workflow never changes, so the validated definitions of versions are kept, up to a bound. */
const DEFINITION_CACHE_SIZE = 1_000;

export function createExecutionService(deps: ExecutionDependencies) {
  const { store, ai, catalog, modelCaller, clock } = deps;
  const definitions = new Map<string, WorkflowDefinition>();
  const runs = createRunRecorder(store.runs, clock);

  async function organisationOf(caller: Caller): Promise<OrganisationRecord> {
    const organisation = await store.organisations.findById(caller.account.organisationId);
    if (!organisation) throw new PorchError('INTERNAL_ERROR', 'The account has no organisation.');
    return organisation;
  }

  /** One metered call and the spec's common result fields, recorded as a run (failed when the call fails). */
  async function complete(
    ctx: ModelCallContext,
    messages: ChatMessage[],
    model: { requested?: string | undefined; resourceDefault?: string | null | undefined },
    run: Pick<RunOutcome, 'kind' | 'resourceId' | 'version' | 'inputs'>,
    options: { temperature?: number | undefined } = {},
  ): Promise<CompletionFields> {
    const started = clock.now();
    const resolved = ai.resolveModel({ ...model, plan: ctx.caller.account.plan, euOnly: ctx.organisation.euOnlyModels });
    const recorded = { ...run, model: resolved.id, usage: runs.NO_USAGE, chargedTokens: 0 };
    let result: Awaited<ReturnType<ModelCaller['call']>>;
    try {
      result = await modelCaller.call(ctx, { model: resolved, messages, temperature: options.temperature });
    } catch (err) {
      await runs.record(ctx.caller, { ...recorded, status: 'failed', durationMs: clock.now() - started, result: failedResult(err) });
      throw err;
    }
    const findings = result.guardrailFindings.length > 0 ? { guardrail_findings: result.guardrailFindings } : {};
    const response = { content: result.content, model_used: result.modelUsed, token_usage: result.usage, duration_ms: clock.now() - started, ...findings };
    await runs.record(ctx.caller, {
      ...recorded,
      status: 'completed',
      model: result.modelUsed,
      usage: result.usage,
      chargedTokens: result.chargedTokens,
      durationMs: response.duration_ms,
      result: response,
    });
    return response;
  }

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
    concurrency: createConcurrencyLimiter({ slots: store.executionSlots, instance: deps.instance, clock, maxPerKey: deps.maxInFlightPerKey }),

    async judge(caller: Caller, input: JudgeServiceInput, signal?: AbortSignal): Promise<JudgeResult> {
      return deps.judge.judge(caller, await organisationOf(caller), input, { operation: 'run_judge', resourceId: null, signal });
    },

    async executeComposition(
      caller: Caller,
      id: string,
      input: ExecutionOptions & { variables?: VariableValues | undefined },
      signal?: AbortSignal,
    ): Promise<CompositionExecutionResult> {
      const { record: composition, version } = await deps.lifecycle.resolve('composition', caller.account.id, id, input);
      const messages = compositionMessages(composition, input.variables ?? {});
      const organisation = await organisationOf(caller);
      const result = await complete(
        { caller, organisation, operation: 'execute_composition', resourceId: id, resourceVersion: version, useByok: input.use_byok, signal },
        messages,
        { requested: input.model, resourceDefault: composition.defaultModel },
        { kind: 'composition', resourceId: id, version, inputs: input },
      );
      await store.catalog.incrementCompositionUse(id);
      return { ...result, version };
    },

    async executeSkill(
      caller: Caller,
      id: string,
      input: ExecutionOptions & { input?: string | undefined; context?: string | undefined; variables?: VariableValues | undefined },
      signal?: AbortSignal,
    ): Promise<SkillExecutionResult> {
      const { record: skill, version } = await deps.lifecycle.resolve('skill', caller.account.id, id, input);
      // The spec: `input` is preferred; `context` is its legacy alias; input wins when both are sent.
      const text = input.input ?? input.context ?? '';
      const organisation = await organisationOf(caller);
      const result = await complete(
        { caller, organisation, operation: 'execute_skill', resourceId: id, resourceVersion: version, useByok: input.use_byok, signal },
        skillMessages(skill, text, input.variables ?? {}),
        { requested: input.model, resourceDefault: skill.model },
        { kind: 'skill', resourceId: id, version, inputs: input },
      );
      return { ...result, version, skill_name: skill.name };
    },

    async executePersona(
      caller: Caller,
      id: string,
      input: ExecutionOptions & { input: string; context?: string | undefined; temperature?: number | undefined },
      signal?: AbortSignal,
    ): Promise<PersonaExecutionResult> {
      const { record: persona, version } = await deps.lifecycle.resolve('persona', caller.account.id, id, input);
      const organisation = await organisationOf(caller);
      const result = await complete(
        { caller, organisation, operation: 'execute_persona', resourceId: id, resourceVersion: version, useByok: input.use_byok, signal },
        personaMessages(persona, input.input, input.context),
        { requested: input.model },
        { kind: 'persona', resourceId: id, version, inputs: input },
        { temperature: input.temperature },
      );
      return { ...result, version, persona_name: persona.title };
    },

    async executeWorkflow(
      caller: Caller,
      id: string,
      input: VersionSelector & { variables?: VariableValues | undefined; include_trace?: boolean | undefined; use_byok?: boolean | undefined },
      signal?: AbortSignal,
    ): Promise<WorkflowExecutionResult> {
      const { record: workflow, version } = await deps.lifecycle.resolve('workflow', caller.account.id, id, input);
      const definition = definitionOf(workflow.id, version, workflow.definition);
      const organisation = await organisationOf(caller);
      // A run that will call models must be able to start: answer 402 up front rather than
      // with a failed first node, unless the calls will go out on the caller's own key.
      if (definition.nodes.some(isMeteredNode)) {
        const defaultProvider = ai.providerOf(ai.defaultModel);
        const coveredByByok =
          input.use_byok !== false &&
          defaultProvider !== undefined &&
          !ai.isEcho(ai.defaultModel) &&
          (await deps.byok.activeKeyFor(caller.account, defaultProvider)) !== null;
        if (!coveredByByok) await deps.credits.requireMinimum(caller.account.id);
      }
      const runId = newId();
      let chargedTokens = 0;

      const callContext = (nodeCtx: NodeExecutionContext): ModelCallContext => ({
        caller,
        organisation,
        operation: 'execute_workflow',
        resourceId: workflow.id,
        resourceVersion: version,
        runId,
        nodeId: nodeCtx.nodeId,
        useByok: input.use_byok,
        signal: nodeCtx.signal,
      });
      const services: NodeServices = {
        async callModel(messages, model, options, nodeCtx) {
          const resolvedModel = ai.resolveModel({
            ...model,
            plan: caller.account.plan,
            euOnly: organisation.euOnlyModels,
            field: `nodes.${nodeCtx.nodeId}.model`,
          });
          const result = await modelCaller.call(callContext(nodeCtx), {
            model: resolvedModel,
            messages,
            temperature: options.temperature,
            maxOutputTokens: options.maxOutputTokens,
          });
          chargedTokens += result.chargedTokens;
          return { output: result.content, model: result.modelUsed, token_usage: result.usage };
        },
        getPersona: (ref) => catalog.getPersona(caller.account.id, ref),
        getSkill: (ref) => catalog.getSkill(caller.account.id, ref),
        getComposition: (ref) => catalog.getComposition(caller.account.id, ref),
        messages: { skill: skillMessages, composition: compositionMessages, persona: personaMessages },
        scan: (text) => deps.scanText(organisation.id, text),
        async judge(judgeInput, nodeCtx) {
          return { ...(await deps.judge.judge(caller, organisation, { ...judgeInput, use_byok: input.use_byok }, callContext(nodeCtx))) };
        },
      };

      const result = await runWorkflow(
        definition,
        input.variables ?? {},
        traceNodes(executeNodeWith(services), deps.telemetry, deps.telemetry.scopeOf(caller)),
        {
          ...deps.workflowLimits,
          clock,
          ...(signal ? { signal } : {}),
        },
      );
      const response: WorkflowExecutionResult = {
        run_id: runId,
        version,
        status: result.status,
        outputs: result.outputs,
        node_results: input.include_trace ? result.node_results : [],
        duration_ms: result.duration_ms,
        token_usage: result.token_usage,
      };
      await runs.record(caller, {
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
      });
      await store.catalog.incrementWorkflowUse(workflow.id);
      await store.usage.insert({
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
        status: result.status === 'completed' ? 'succeeded' : 'failed',
        createdAt: clock.now(),
      });
      // A rejected BYOK key is the caller's to fix, not a step of the workflow that failed: the
      // run is recorded as failed above, and the request fails as any other execution would.
      const byokRejection = result.node_results.find((node) => node.error?.code === 'BYOK_KEY_INVALID');
      if (byokRejection?.error) throw new PorchError('BYOK_KEY_INVALID', byokRejection.error.message);
      return response;
    },
  };
}

export type ExecutionService = ReturnType<typeof createExecutionService>;
