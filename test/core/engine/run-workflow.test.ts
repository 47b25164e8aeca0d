import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { PorchError } from '../../../src/core/errors.js';
import { compileWorkflow } from '../../../src/core/engine/compile-workflow.js';
import {
  MAX_RUN_OUTPUT_CHARACTERS,
  TIMEOUT_ERROR_CODE,
  runWorkflow,
  type ExecutableNode,
  type ExecuteNode,
  type NodeExecutionContext,
  type NodeExecutionResult,
  type NodeResult,
  type WorkflowRunResult,
} from '../../../src/core/engine/run-workflow.js';
import { validateWorkflowDefinition, type WorkflowDefinition, type WorkflowDefinitionInput } from '../../../src/core/engine/workflow-definition.js';

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve: (value: T) => void = () => undefined;
  let reject: (reason: unknown) => void = () => undefined;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

interface Call {
  node: ExecutableNode;
  resolved: ExecutableNode;
  ctx: NodeExecutionContext;
}

/**
 * An executeNode whose calls the test answers by hand: no sleeps, the test decides exactly when
 * each node finishes and can observe which nodes are in flight at the same time. A call stops
 * when its signal fires, as a provider call does (the engine waits for it to settle).
 */
class ControlledExecutor {
  readonly calls: Call[] = [];
  running = 0;
  maxRunning = 0;
  private readonly answers = new Map<string, Deferred<NodeExecutionResult>>();
  private readonly startWaiters = new Map<string, Deferred<Call>>();

  readonly execute: ExecuteNode = (node, resolved, ctx) => {
    const call = { node, resolved, ctx };
    this.calls.push(call);
    this.running += 1;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    const answer = deferred<NodeExecutionResult>();
    this.answers.set(node.id, answer);
    ctx.signal.addEventListener('abort', () => answer.reject(new Error('AbortError: request aborted')), { once: true });
    this.waiter(node.id).resolve(call);
    return answer.promise.finally(() => {
      this.running -= 1;
    });
  };

  /** Resolves once the engine has called executeNode for this node. */
  started(nodeId: string): Promise<Call> {
    return this.waiter(nodeId).promise;
  }

  release(nodeId: string, result: NodeExecutionResult = { output: `out:${nodeId}` }): void {
    this.answer(nodeId).resolve(result);
  }

  fail(nodeId: string, error: unknown): void {
    this.answer(nodeId).reject(error);
  }

  calledIds(): string[] {
    return this.calls.map((call) => call.node.id);
  }

  private answer(nodeId: string): Deferred<NodeExecutionResult> {
    const answer = this.answers.get(nodeId);
    if (answer === undefined) throw new Error(`node ${nodeId} was not called`);
    return answer;
  }

  private waiter(nodeId: string): Deferred<Call> {
    let waiter = this.startWaiters.get(nodeId);
    if (waiter === undefined) {
      waiter = deferred<Call>();
      this.startWaiters.set(nodeId, waiter);
    }
    return waiter;
  }
}

/** Answers every node at once with its rendered prompt/input/text, recording the order of calls. */
function echoExecutor(order: string[] = []): ExecuteNode {
  return async (_node, resolved) => {
    order.push(resolved.id);
    const text =
      resolved.kind === 'model' || resolved.kind === 'judge'
        ? resolved.prompt
        : resolved.kind === 'skill' || resolved.kind === 'persona'
          ? resolved.input
          : resolved.kind === 'sanitise'
            ? resolved.text
            : JSON.stringify(resolved.variables ?? {});
    return { output: text, model: 'echo/echo', token_usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 } };
  };
}

function define(input: WorkflowDefinitionInput): WorkflowDefinition {
  return validateWorkflowDefinition(input);
}

function resultOf(run: WorkflowRunResult, nodeId: string): NodeResult {
  const result = run.node_results.find((node) => node.node_id === nodeId);
  if (result === undefined) throw new Error(`no result for ${nodeId}: ${JSON.stringify(run)}`);
  return result;
}

function statuses(run: WorkflowRunResult): Record<string, string> {
  return Object.fromEntries(run.node_results.map((node) => [node.node_id, node.status]));
}

async function rejectionOf(promise: Promise<unknown>): Promise<PorchError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(PorchError);
    return err as PorchError;
  }
  throw new Error('expected the run to be rejected');
}

const model = (id: string, prompt: string): { id: string; kind: 'model'; prompt: string } => ({ id, kind: 'model', prompt });

describe('runWorkflow: order and data flow', () => {
  it('runs a chain in dependency order, feeding each output into the next template', async () => {
    const order: string[] = [];
    const definition = define({
      variables: [{ name: 'topic', required: true }],
      // Defined out of order on purpose: order in the list is not execution order.
      nodes: [model('c', 'C<{{b}}>'), model('a', 'A<{{topic}}>'), model('b', 'B<{{a}}>')],
      outputs: { final: 'c' },
    });
    const run = await runWorkflow(definition, { topic: 'owls' }, echoExecutor(order));
    expect(order).toEqual(['a', 'b', 'c']);
    expect(run.status).toBe('completed');
    expect(run.outputs).toEqual({ final: 'C<B<A<owls>>>' });
    expect(run.node_results.map((node) => node.node_id)).toEqual(['c', 'a', 'b']);
  });

  it('starts a node as soon as its own dependencies completed, not when a wave finishes', async () => {
    const executor = new ControlledExecutor();
    const definition = define({
      nodes: [model('slow', 'x'), model('fast', 'y'), model('after_fast', '{{fast}}'), model('join', '{{slow}} {{after_fast}}')],
    });
    const running = runWorkflow(definition, {}, executor.execute);
    await executor.started('slow');
    await executor.started('fast');
    executor.release('fast');
    // after_fast starts while slow is still running.
    const afterFast = await executor.started('after_fast');
    expect(afterFast.resolved.kind === 'model' && afterFast.resolved.prompt).toBe('out:fast');
    expect(executor.calledIds()).not.toContain('join');
    executor.release('after_fast');
    executor.release('slow');
    await executor.started('join');
    executor.release('join');
    const run = await running;
    expect(run.status).toBe('completed');
    expect(executor.calledIds()).toEqual(['slow', 'fast', 'after_fast', 'join']);
  });

  it('passes every template field rendered, and leaves the raw node untouched', async () => {
    const executor = new ControlledExecutor();
    const definition = define({
      variables: [{ name: 'tone', default: 'dry' }],
      nodes: [
        { id: 'src', kind: 'template', template: 'SRC' },
        { id: 'sk', kind: 'skill', skill: 'writer', input: 'in {{src}}', variables: { tone: '{{tone}}!' }, model: 'echo/echo' },
        { id: 'co', kind: 'composition', composition: 'c1', variables: { text: '{{src}}' } },
        { id: 'pe', kind: 'persona', persona: 'p1', input: '{{src}}', context: 'ctx {{tone}}', temperature: 0.5 },
        { id: 'sa', kind: 'sanitise', text: 'scan {{src}}' },
        { id: 'ju', kind: 'judge', prompt: 'judge {{src}}', criteria: 'be {{tone}}' },
        { id: 'mo', kind: 'model', prompt: 'p {{src}}', system: 's {{tone}}', persona: 'p2', max_output_tokens: 10 },
      ],
    });
    const running = runWorkflow(definition, {}, executor.execute, { maxConcurrency: 10 });
    const ids = ['sk', 'co', 'pe', 'sa', 'ju', 'mo'];
    const calls = await Promise.all(ids.map((id) => executor.started(id)));
    const resolved = Object.fromEntries(calls.map((call) => [call.node.id, call.resolved]));
    expect(resolved.sk).toEqual({ id: 'sk', kind: 'skill', skill: 'writer', input: 'in SRC', variables: { tone: 'dry!' }, model: 'echo/echo' });
    expect(resolved.co).toMatchObject({ composition: 'c1', variables: { text: 'SRC' } });
    expect(resolved.pe).toMatchObject({ persona: 'p1', input: 'SRC', context: 'ctx dry', temperature: 0.5 });
    expect(resolved.sa).toMatchObject({ text: 'scan SRC' });
    expect(resolved.ju).toMatchObject({ prompt: 'judge SRC', criteria: 'be dry' });
    expect(resolved.mo).toMatchObject({ prompt: 'p SRC', system: 's dry', persona: 'p2', max_output_tokens: 10 });
    const rawSkill = calls[0]?.node;
    expect(rawSkill?.kind === 'skill' && rawSkill.input).toBe('in {{src}}');
    for (const id of ids) executor.release(id);
    expect((await running).status).toBe('completed');
  });

  it('renders template nodes itself, without calling executeNode or counting tokens', async () => {
    const executor = new ControlledExecutor();
    const definition = define({
      variables: [{ name: 'name', required: true }],
      nodes: [
        { id: 'greet', kind: 'template', template: 'Hello {{name}}' },
        { id: 'shout', kind: 'template', template: '{{greet}}!' },
      ],
    });
    const run = await runWorkflow(definition, { name: 'Ada' }, executor.execute);
    expect(executor.calls).toEqual([]);
    expect(run.outputs).toEqual({ shout: 'Hello Ada!' });
    expect(resultOf(run, 'greet')).toMatchObject({ status: 'completed', output: 'Hello Ada', model: null, token_usage: null });
    expect(run.token_usage).toEqual({ input_tokens: 0, output_tokens: 0, total_tokens: 0 });
  });

  it('fails a node that renders past the template limit, skipping the rest (regression: each node doubling the last)', async () => {
    const nodes = [
      { id: 'n0', kind: 'template' as const, template: 'xxxxxxxxxx' },
      ...Array.from({ length: 39 }, (_, index) => ({ id: `n${index + 1}`, kind: 'template' as const, template: `{{n${index}}}{{n${index}}}` })),
    ];
    const run = await runWorkflow(define({ nodes }), {}, new ControlledExecutor().execute);
    expect(run.status).toBe('failed');
    // 10 × 2^17 = 1,310,720 characters fit; n18 would render 2,621,440.
    expect(resultOf(run, 'n17')).toMatchObject({ status: 'completed' });
    expect(resultOf(run, 'n18')).toMatchObject({ status: 'failed', error: { code: 'VALIDATION_ERROR' } });
    expect(resultOf(run, 'n19')).toMatchObject({ status: 'skipped' });
  });

  it(`fails the node whose output takes the run past ${MAX_RUN_OUTPUT_CHARACTERS.toLocaleString('en')} characters of outputs`, async () => {
    const nodes = Array.from({ length: 7 }, (_, index) => ({ id: `copy${index}`, kind: 'template' as const, template: '{{big}}{{big}}' }));
    const run = await runWorkflow(
      define({ variables: [{ name: 'big', required: true }], nodes }),
      { big: 'y'.repeat(900_000) },
      new ControlledExecutor().execute,
    );
    expect(run.status).toBe('failed');
    // 1,800,000 characters a node: five fit in 10,000,000, the sixth does not.
    expect(run.node_results.map((node) => node.status)).toEqual(['completed', 'completed', 'completed', 'completed', 'completed', 'failed', 'skipped']);
    expect(resultOf(run, 'copy5')?.error?.message).toContain('more than 10,000,000 characters in all');
  });

  it('lets templates pick fields of an object output, such as a judge score', async () => {
    const definition = define({
      nodes: [
        { id: 'review', kind: 'judge', prompt: 'text' },
        { id: 'report', kind: 'template', template: '{{review.verdict}} at {{ review.score }}' },
      ],
      outputs: { review: 'review', report: 'report' },
    });
    const verdict = { verdict: 'pass', score: 82, reasoning: 'fine', suggestions: [] };
    const run = await runWorkflow(definition, {}, async () => ({ output: verdict }));
    expect(run.outputs).toEqual({ review: verdict, report: 'pass at 82' });
  });
});

describe('runWorkflow: concurrency', () => {
  it('runs independent branches at the same time', async () => {
    const executor = new ControlledExecutor();
    const definition = define({ nodes: [model('left', 'l'), model('right', 'r'), model('join', '{{left}}{{right}}')] });
    const running = runWorkflow(definition, {}, executor.execute);
    // Both branches are in flight before either is answered.
    await Promise.all([executor.started('left'), executor.started('right')]);
    expect(executor.running).toBe(2);
    executor.release('right');
    executor.release('left');
    await executor.started('join');
    executor.release('join', { output: 'joined' });
    const run = await running;
    expect(run.outputs).toEqual({ join: 'joined' });
  });

  it('never runs more nodes at once than maxConcurrency, and fills freed slots', async () => {
    const executor = new ControlledExecutor();
    const ids = ['n1', 'n2', 'n3', 'n4', 'n5'];
    const definition = define({ nodes: ids.map((id) => model(id, id)) });
    const running = runWorkflow(definition, {}, executor.execute, { maxConcurrency: 2 });
    await Promise.all([executor.started('n1'), executor.started('n2')]);
    expect(executor.calledIds()).toEqual(['n1', 'n2']);
    executor.release('n2');
    await executor.started('n3');
    expect(executor.calledIds()).toEqual(['n1', 'n2', 'n3']);
    executor.release('n1');
    executor.release('n3');
    await Promise.all([executor.started('n4'), executor.started('n5')]);
    executor.release('n4');
    executor.release('n5');
    const run = await running;
    expect(run.status).toBe('completed');
    expect(executor.maxRunning).toBe(2);
  });

  it('defaults to four nodes at a time', async () => {
    const executor = new ControlledExecutor();
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    const running = runWorkflow(define({ nodes: ids.map((id) => model(id, id)) }), {}, executor.execute);
    await Promise.all(['a', 'b', 'c', 'd'].map((id) => executor.started(id)));
    expect(executor.calledIds()).toEqual(['a', 'b', 'c', 'd']);
    for (const id of ['a', 'b', 'c', 'd']) executor.release(id);
    await Promise.all(['e', 'f'].map((id) => executor.started(id)));
    executor.release('e');
    executor.release('f');
    await running;
    expect(executor.maxRunning).toBe(4);
  });

  it('rejects a concurrency bound that is not a positive integer', async () => {
    const definition = define({ nodes: [model('a', 'a')] });
    await expect(runWorkflow(definition, {}, echoExecutor(), { maxConcurrency: 0 })).rejects.toThrow(RangeError);
  });
});

describe('runWorkflow: failures', () => {
  it('skips and never calls the dependants of a failed node, lets running branches finish', async () => {
    const executor = new ControlledExecutor();
    const errors: Array<[string, unknown]> = [];
    const definition = define({
      nodes: [
        model('bad', 'x'),
        model('busy', 'y'),
        model('child', '{{bad}}'),
        model('grandchild', '{{child}}'),
        model('waiting', 'z'),
        model('after_busy', '{{busy}}'),
      ],
      outputs: { busy: 'busy', grandchild: 'grandchild' },
    });
    const running = runWorkflow(definition, {}, executor.execute, {
      maxConcurrency: 2,
      onNodeError: (nodeId, error) => errors.push([nodeId, error]),
    });
    await Promise.all([executor.started('bad'), executor.started('busy')]);
    const failure = new PorchError('AI_SERVICE_ERROR', 'The model provider failed.');
    executor.fail('bad', failure);
    // busy was already running: it finishes and its result is kept.
    executor.release('busy', { output: 'kept', token_usage: { input_tokens: 5, output_tokens: 6, total_tokens: 11 } });
    const run = await running;
    expect(run.status).toBe('failed');
    expect(statuses(run)).toEqual({
      bad: 'failed',
      busy: 'completed',
      child: 'skipped',
      grandchild: 'skipped',
      waiting: 'skipped',
      after_busy: 'skipped',
    });
    expect(executor.calledIds()).toEqual(['bad', 'busy']);
    expect(resultOf(run, 'bad').error).toEqual({ code: 'AI_SERVICE_ERROR', message: 'The model provider failed.' });
    expect(resultOf(run, 'child')).toMatchObject({ output: null, error: null, started_at: null, duration_ms: 0 });
    expect(run.outputs).toEqual({ busy: 'kept' });
    expect(run.token_usage.total_tokens).toBe(11);
    expect(errors).toEqual([['bad', failure]]);
  });

  it('records a foreign error as INTERNAL_ERROR without its message or stack', async () => {
    const errors: unknown[] = [];
    const secret = new Error('connect ECONNREFUSED 10.0.0.5 with key sk-live-123');
    const run = await runWorkflow(
      define({ nodes: [model('a', 'x')] }),
      {},
      async () => {
        throw secret;
      },
      { onNodeError: (_id, error) => errors.push(error) },
    );
    const error = resultOf(run, 'a').error;
    expect(error?.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(run)).not.toContain('ECONNREFUSED');
    expect(JSON.stringify(run)).not.toContain('sk-live');
    expect(JSON.stringify(run)).not.toContain('at ');
    expect(errors).toEqual([secret]);
  });

  it('fails a node whose executor throws synchronously', async () => {
    const throwing: ExecuteNode = () => {
      throw new PorchError('MODEL_ACCESS_DENIED', 'Model x/y is not available on your plan.');
    };
    const run = await runWorkflow(define({ nodes: [model('a', 'x')] }), {}, throwing);
    expect(resultOf(run, 'a').error).toEqual({ code: 'MODEL_ACCESS_DENIED', message: 'Model x/y is not available on your plan.' });
  });

  it('fails a node whose executor answers without a usable output', async () => {
    const broken = (async () => ({ output: 42 })) as unknown as ExecuteNode;
    const run = await runWorkflow(define({ nodes: [model('a', 'x')] }), {}, broken);
    expect(run.status).toBe('failed');
    expect(resultOf(run, 'a').error?.code).toBe('INTERNAL_ERROR');
  });

  it('fails a node whose property path finds nothing, before calling executeNode for it', async () => {
    const executor = new ControlledExecutor();
    const definition = define({
      nodes: [
        { id: 'review', kind: 'judge', prompt: 'x' },
        { id: 'use', kind: 'model', prompt: 'score {{review.score}} {{review.grade}}' },
      ],
    });
    const running = runWorkflow(definition, {}, executor.execute);
    await executor.started('review');
    executor.release('review', { output: 'plain text, not an object' });
    const run = await running;
    expect(executor.calledIds()).toEqual(['review']);
    expect(resultOf(run, 'use')).toMatchObject({
      status: 'failed',
      error: { code: 'VALIDATION_ERROR', message: 'Missing required variables: review.score, review.grade' },
    });
  });
});

describe('runWorkflow: time limits', () => {
  it('fails a node that ignores its signal once the node time limit and the settle grace pass', async () => {
    let seen: AbortSignal | undefined;
    const hanging: ExecuteNode = (_node, _resolved, ctx) => {
      seen = ctx.signal;
      return new Promise<NodeExecutionResult>(() => undefined);
    };
    const definition = define({ nodes: [model('stuck', 'x'), model('next', '{{stuck}}')] });
    const run = await runWorkflow(definition, {}, hanging, { nodeTimeoutMs: 30, settleGraceMs: 20 });
    expect(run.status).toBe('failed');
    expect(resultOf(run, 'stuck').error).toEqual({
      code: TIMEOUT_ERROR_CODE,
      message: 'Node "stuck" did not finish within its time limit of 30 ms.',
    });
    expect(resultOf(run, 'next').status).toBe('skipped');
    expect(seen?.aborted).toBe(true);
  });

  it('records the time limit, not the abort error, for a node that honours its signal', async () => {
    const honouring: ExecuteNode = (_node, _resolved, ctx) =>
      new Promise<NodeExecutionResult>((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => reject(new Error('AbortError: request aborted')));
      });
    const run = await runWorkflow(define({ nodes: [model('a', 'x')] }), {}, honouring, { nodeTimeoutMs: 20 });
    expect(resultOf(run, 'a').error?.message).toBe('Node "a" did not finish within its time limit of 20 ms.');
  });

  it('stops the whole run at the run time limit, failing running nodes and skipping the rest', async () => {
    const executor = new ControlledExecutor();
    const definition = define({ nodes: [model('first', 'x'), model('second', '{{first}}'), model('other', 'y')] });
    const run = await runWorkflow(definition, {}, executor.execute, { runTimeoutMs: 40, nodeTimeoutMs: 60_000, maxConcurrency: 1 });
    expect(run.status).toBe('failed');
    expect(resultOf(run, 'first').error).toEqual({
      code: TIMEOUT_ERROR_CODE,
      message: 'The workflow run exceeded its time limit of 40 ms.',
    });
    expect(statuses(run)).toEqual({ first: 'failed', second: 'skipped', other: 'skipped' });
    expect(executor.calls[0]?.ctx.signal.aborted).toBe(true);
    expect(executor.calledIds()).toEqual(['first']);
  });

  it('keeps the result of a node that answers within its limit', async () => {
    const executor = new ControlledExecutor();
    const running = runWorkflow(define({ nodes: [model('a', 'x')] }), {}, executor.execute, { nodeTimeoutMs: 60_000, runTimeoutMs: 60_000 });
    const call = await executor.started('a');
    executor.release('a', { output: 'in time' });
    const run = await running;
    expect(run.outputs).toEqual({ a: 'in time' });
    expect(call.ctx.signal.aborted).toBe(false);
  });

  it('cancels the run when the caller aborts its signal', async () => {
    const executor = new ControlledExecutor();
    const controller = new AbortController();
    const running = runWorkflow(define({ nodes: [model('a', 'x'), model('b', '{{a}}')] }), {}, executor.execute, {
      signal: controller.signal,
    });
    const call = await executor.started('a');
    controller.abort(new PorchError('SERVICE_UNAVAILABLE', 'The server is shutting down.'));
    const run = await running;
    expect(call.ctx.signal.aborted).toBe(true);
    expect(resultOf(run, 'a').error).toEqual({ code: 'SERVICE_UNAVAILABLE', message: 'The server is shutting down.' });
    expect(statuses(run)).toEqual({ a: 'failed', b: 'skipped' });
  });
});

describe('runWorkflow: variables', () => {
  const definition = define({
    variables: [{ name: 'topic', required: true }, { name: 'audience', required: true }, { name: 'tone', default: 'friendly' }, { name: 'extra' }],
    nodes: [{ id: 'out', kind: 'template', template: '{{topic}}|{{audience}}|{{tone}}|{{extra}}' }],
  });

  it('rejects a run missing required variables, naming them all, before calling anything', async () => {
    const executor = new ControlledExecutor();
    const error = await rejectionOf(runWorkflow(definition, { tone: 'x', topic: null }, executor.execute));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toBe('Missing required variables: topic, audience');
    expect(executor.calls).toEqual([]);
  });

  it('applies defaults, renders an optional variable without default as empty, ignores extras', async () => {
    const run = await runWorkflow(definition, { topic: 'owls', audience: 7, undeclared: 'ignored' }, echoExecutor());
    expect(run.outputs).toEqual({ out: 'owls|7|friendly|' });
  });

  it('prefers a sent value over the default', async () => {
    const run = await runWorkflow(definition, { topic: 't', audience: 'a', tone: 'stern', extra: { k: 1 } }, echoExecutor());
    expect(run.outputs).toEqual({ out: 't|a|stern|{"k":1}' });
  });

  it('rejects variables that are not an object', async () => {
    const error = await rejectionOf(runWorkflow(definition, ['owls'], echoExecutor()));
    expect(error.message).toBe('variables: must be an object of name -> value');
  });

  it('accepts absent variables when none are required', async () => {
    const run = await runWorkflow(define({ nodes: [{ id: 't', kind: 'template', template: 'fixed' }] }), undefined, echoExecutor());
    expect(run.outputs).toEqual({ t: 'fixed' });
  });
});

describe('runWorkflow: results', () => {
  it('sums token usage over nodes and records each model', async () => {
    const usage = {
      a: { input_tokens: 10, output_tokens: 20, total_tokens: 30 },
      b: { input_tokens: 1, output_tokens: 2, total_tokens: 3 },
    };
    const definition = define({ nodes: [model('a', 'x'), model('b', 'y'), { id: 'c', kind: 'template', template: '{{a}}{{b}}' }] });
    const run = await runWorkflow(definition, {}, async (node) => ({
      output: node.id,
      model: `echo/${node.id}`,
      token_usage: node.id === 'a' ? usage.a : usage.b,
    }));
    expect(run.token_usage).toEqual({ input_tokens: 11, output_tokens: 22, total_tokens: 33 });
    expect(resultOf(run, 'a')).toMatchObject({ model: 'echo/a', token_usage: usage.a });
    expect(resultOf(run, 'b')).toMatchObject({ model: 'echo/b', token_usage: usage.b });
  });

  it('maps outputs by name, including one node under two names', async () => {
    const definition = define({ nodes: [model('a', 'x'), model('b', '{{a}}')], outputs: { first: 'a', again: 'a', last: 'b' } });
    const run = await runWorkflow(definition, {}, async (node) => ({ output: `o-${node.id}` }));
    expect(run.outputs).toEqual({ first: 'o-a', again: 'o-a', last: 'o-b' });
  });

  it('measures durations with the injected clock', async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
    const cost: Record<string, number> = { a: 250, b: 40 };
    const definition = define({ nodes: [model('a', 'x'), model('b', '{{a}}'), { id: 't', kind: 'template', template: '{{b}}' }] });
    const run = await runWorkflow(
      definition,
      {},
      async (node) => {
        clock.advance(cost[node.id] ?? 0);
        return { output: node.id };
      },
      { clock },
    );
    expect(run.node_results.map((node) => node.duration_ms)).toEqual([250, 40, 0]);
    expect(run.duration_ms).toBe(290);
    expect(resultOf(run, 'a')).toMatchObject({ started_at: '2026-06-01T12:00:00.000Z', finished_at: '2026-06-01T12:00:00.250Z' });
    expect(resultOf(run, 'b')).toMatchObject({ started_at: '2026-06-01T12:00:00.250Z', finished_at: '2026-06-01T12:00:00.290Z' });
  });
});

describe('compileWorkflow', () => {
  it('compiles a definition object once', () => {
    const definition = define({ nodes: [model('a', 'x')] });
    expect(compileWorkflow(definition)).toBe(compileWorkflow(definition));
  });

  it('refuses to run an unvalidated definition with a cycle', async () => {
    const cyclic: WorkflowDefinition = {
      variables: [],
      nodes: [model('a', '{{b}}'), model('b', '{{a}}')],
      outputs: { a: 'a' },
    };
    const executor = new ControlledExecutor();
    const error = await rejectionOf(runWorkflow(cyclic, {}, executor.execute));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain('dependency cycle a -> b -> a');
    expect(executor.calls).toEqual([]);
  });
});
