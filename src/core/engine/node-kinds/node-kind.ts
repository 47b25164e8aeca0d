/**
 * What a node kind is: one module under node-kinds/ states, once, everything the rest of Porch
 * needs to know about it. Its schema (with the field descriptions the API docs and tool listings
 * show), which fields are templates (so references and dependencies can be found and rendered),
 * which fields name stored resources (so bundle import can rewrite them), whether it calls a
 * model (so an execution can check credits before starting), and how it runs.
 *
 * Running a node needs services that live outside the engine: metered model calls, catalog
 * lookups, the sanitiser and the judge. The engine states them here as NodeServices; the
 * execution service implements them once per run and hands them in, so the engine never
 * depends on the code that calls it.
 */
import type { z } from 'zod';
import type { CompositionRecord, ContextCardRecord, SkillRecord } from '../../../db/store.js';
import type { TokenUsage } from '../../ai/ai-types.js';
import type { ChatMessage } from '../../ai/tokenizer.js';
import type { GuardrailFinding } from '../../sanitiser/guardrails.js';

/** A node's output: text, or an object (a judge verdict, a sanitiser scan) whose fields templates can pick. */
export type NodeOutput = string | Record<string, unknown>;

/** The stored resource a skill, composition or persona node ran, for the trace. */
export interface ResourceRan {
  id: string;
  /** The version resolved at run time: the one labelled `production`, else the newest. */
  version: number;
}

export interface NodeExecutionContext {
  /** Fires when the node's or the run's time limit is reached, or the run is cancelled. */
  readonly signal: AbortSignal;
  readonly nodeId: string;
  /**
   * Records which version of its resource the node runs, as soon as it is resolved: the trace
   * names it whether the node then completes or fails.
   */
  ran(resource: ResourceRan): void;
}

export interface NodeExecutionResult {
  output: NodeOutput;
  /** The model that answered, for the trace. */
  model?: string;
  token_usage?: TokenUsage;
  /** What the organisation's guardrails found on the node's model calls (report or redact), for the trace. */
  guardrail_findings?: GuardrailFinding[];
}

/** The model a node asks for; the services resolve it against the caller's plan and the defaults. */
export interface ModelChoice {
  /** The node's own `model` field. */
  requested?: string | undefined;
  /** The default model of the resource the node runs (a skill's, a composition's). */
  resourceDefault?: string | null | undefined;
}

export interface ModelCallOptions {
  temperature?: number | undefined;
  maxOutputTokens?: number | undefined;
}

/** Variable values passed to a skill or a composition: name -> value. */
export type ResourceVariables = Readonly<Record<string, unknown>>;

/** How a stored resource becomes chat messages: the same rules as executing it directly. */
export interface ResourceMessages {
  skill(skill: SkillRecord, input: string, variables: ResourceVariables): ChatMessage[];
  composition(composition: CompositionRecord, variables: ResourceVariables): ChatMessage[];
  persona(persona: ContextCardRecord, input: string, context?: string): ChatMessage[];
}

/**
 * What nodes may call, bound to one run (its caller, organisation and run id). Failures are
 * PorchErrors the caller may see; the engine records them in the trace.
 */
export interface NodeServices {
  /** One metered model call; answers the text, the model that answered and the token usage. */
  callModel(messages: readonly ChatMessage[], model: ModelChoice, options: ModelCallOptions, ctx: NodeExecutionContext): Promise<NodeExecutionResult>;
  /** The caller's resources by id (bundle keys were turned into ids at import). */
  getPersona(ref: string): Promise<ContextCardRecord>;
  getSkill(ref: string): Promise<SkillRecord>;
  getComposition(ref: string): Promise<CompositionRecord>;
  readonly messages: ResourceMessages;
  /** The organisation's sanitiser rules over a text: the scan result object (findings, severity). */
  scan(text: string, ctx: NodeExecutionContext): Promise<Record<string, unknown>>;
  /** The judge's result object (verdict, score, reasoning, suggestions) as the output, with its guardrail findings. */
  judge(input: { prompt: string; criteria?: string | undefined; model?: string | undefined }, ctx: NodeExecutionContext): Promise<NodeExecutionResult>;
}

/** The catalog lookups a node's model choice may need before the run starts. */
export type ResourceLookups = Pick<NodeServices, 'getSkill' | 'getComposition'>;

export type ResourceRefKind = 'skill' | 'composition' | 'persona';

/** The fields every node has, whatever its kind. */
export interface NodeFields {
  readonly id: string;
  readonly kind: string;
}

/**
 * Names of N's fields that can hold templates: a text template, or a map of name -> template
 * (`variables`). Distributes over a union, so the registry's view accepts every kind's names.
 */
export type TemplateFieldName<N> = N extends unknown
  ? {
      [K in keyof N]-?: NonNullable<N[K]> extends string | Readonly<Record<string, string>> ? K : never;
    }[keyof N] &
      string
  : never;

/** A field of N that holds a resource reference, and which kind of resource it names. */
export type ResourceRefField<N> = N extends unknown
  ? {
      readonly field: { [K in keyof N]-?: NonNullable<N[K]> extends string ? K : never }[keyof N] & string;
      readonly kind: ResourceRefKind;
    }
  : never;

interface NodeKindFacts<N extends NodeFields> {
  /** The `kind` value that selects this kind in a definition. */
  readonly kind: N['kind'];
  /** The node's fields; every one described, as the text becomes API and tool documentation. */
  readonly schema: z.ZodType<N>;
  /**
   * The fields rendered before the node runs, in this order. A text field's path is its name; a
   * map's entries are visited in their own order as `<field>.<name>`. Absent fields are skipped.
   */
  readonly templateFields: readonly TemplateFieldName<N>[];
  /** The fields that name a stored resource by id or bundle key. */
  readonly resourceRefs: readonly ResourceRefField<N>[];
}

/** A kind the engine computes itself from the rendered node: no call, no concurrency slot, no tokens. */
export interface EngineRenderedNodeKind<N extends NodeFields> extends NodeKindFacts<N> {
  readonly metered: false;
  // Method syntax on purpose: the registry holds every kind under one type, and a method's
  // parameter is checked bivariantly. The engine only ever passes a node of this kind.
  render(resolved: N): NodeOutput;
  readonly execute?: undefined;
}

/** A kind that runs through NodeServices, within the run's concurrency bound and time limits. */
export interface ExecutedNodeKind<N extends NodeFields> extends NodeKindFacts<N> {
  /** Whether running it calls a model, so that a run is refused up front without credits. */
  readonly metered: boolean;
  /**
   * The model a metered node will ask for, known before the run starts (a skill's or a
   * composition's default is read from the catalog), so the run is checked up front against the
   * providers it will call: their BYOK keys, else the credits.
   */
  modelChoice?(node: N, lookups: ResourceLookups): Promise<ModelChoice>;
  /** Runs the node; `resolved` has every template field rendered. */
  execute(resolved: N, services: NodeServices, ctx: NodeExecutionContext): Promise<NodeExecutionResult>;
  readonly render?: undefined;
}

export type NodeKind<N extends NodeFields> = EngineRenderedNodeKind<N> | ExecutedNodeKind<N>;
