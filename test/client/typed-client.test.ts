/** The client's types come from the operation definitions, and it works against a real server. */
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { createPorchClient, type OperationRequest, type PorchClient } from '../../src/client/index.js';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import type { createContextCard } from '../../src/operations/create-context-card.js';
import type { executeWorkflow } from '../../src/operations/execute-workflow.js';
import type { getRun } from '../../src/operations/get-run.js';
import { operations } from '../../src/operations/index.js';
import { exposedOn, type OperationOutput } from '../../src/operations/operation.js';
import { renderClientRoutes } from '../../scripts/build-client-routes.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';

describe('client types', () => {
  it('takes each method’s input and output types from its operation definition', () => {
    expectTypeOf<Parameters<PorchClient['executeWorkflow']>[0]>().toEqualTypeOf<OperationRequest<typeof executeWorkflow>>();
    expectTypeOf<ReturnType<PorchClient['executeWorkflow']>>().resolves.toEqualTypeOf<OperationOutput<typeof executeWorkflow>>();
    expectTypeOf<ReturnType<PorchClient['createContextCard']>>().resolves.toEqualTypeOf<OperationOutput<typeof createContextCard>>();
    expectTypeOf<PorchClient>().toHaveProperty('listContextCards');
    // The body schema requires `content`, so the client's input type requires it too.
    expectTypeOf<Parameters<PorchClient['createContextCard']>[0]>().toHaveProperty('content').toEqualTypeOf<string>();
    expectTypeOf<{ title: string }>().not.toMatchTypeOf<Parameters<PorchClient['createContextCard']>[0]>();
  });

  // Regression: the client typed requests with the schemas' output types, so `include_trace`,
  // which has a default, was required.
  it('leaves fields with a default optional in requests', () => {
    const client = createPorchClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'x' });
    expectTypeOf(client.executeWorkflow).toBeCallableWith({ id: 'wf_1' });
    expectTypeOf<Parameters<PorchClient['executeWorkflow']>[0]>().toHaveProperty('include_trace').toEqualTypeOf<boolean | undefined>();
    // @ts-expect-error: `id` is a path parameter without a default, so it stays required.
    expectTypeOf(client.executeWorkflow).toBeCallableWith({ include_trace: true });
  });

  it('has one method per operation, from a route table generated from the definitions', () => {
    expect(readFileSync('src/client/routes.ts', 'utf8')).toBe(renderClientRoutes(exposedOn(operations, 'rest')));
    const client = createPorchClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'x' });
    const expected = exposedOn(operations, 'rest').map((operation) => operation.name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()));
    expect(Object.keys(client).sort()).toEqual([...expected, 'stream', 'executeAsync', 'waitForRun'].sort());
    const streaming = operations
      .filter((operation) => operation.streams !== undefined)
      .map((operation) => operation.name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()));
    expect(Object.keys(client.stream).sort()).toEqual(streaming.sort());
  });

  it('types each streamed event: the done event carries the non-streamed method’s result', () => {
    type Events = ReturnType<PorchClient['stream']['executeWorkflow']> extends AsyncGenerator<infer Event> ? Event : never;
    expectTypeOf<Extract<Events, { event: 'done' }>['data']>().toEqualTypeOf<OperationOutput<typeof executeWorkflow>>();
    expectTypeOf<Parameters<PorchClient['stream']['executeWorkflow']>[0]>().toEqualTypeOf<OperationRequest<typeof executeWorkflow>>();
  });

  it('queues only the executions that can run asynchronously, with their own input types', () => {
    const client = createPorchClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'x' });
    expectTypeOf(client.executeAsync).toBeCallableWith('executeWorkflow', { id: 'wf_1', variables: { topic: 'x' } });
    expectTypeOf(client.executeAsync).toBeCallableWith('executePersona', { id: 'p_1', input: 'hi' });
    // @ts-expect-error: the judge is an execution, but not one that runs as a queued run.
    expectTypeOf(client.executeAsync).toBeCallableWith('runJudge', { prompt: 'x' });
    expectTypeOf<ReturnType<PorchClient['waitForRun']>>().resolves.toEqualTypeOf<OperationOutput<typeof getRun>>();
  });
});

describe('client against a real server', () => {
  let harness: Harness;
  let key: string;
  let accountId: string;
  let proxy: Server;

  beforeEach(async () => {
    harness = await createHarness();
    ({ key, accountId } = await harness.expertWithKey());
  });
  afterEach(async () => {
    await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
    await harness.close();
  });

  it('streams a workflow as node events then done, and throws refusals as PorchApiError', async () => {
    const ids = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids;
    const client = createPorchClient({ baseUrl: harness.url, apiKey: key });
    const events = [];
    for await (const event of client.stream.executeWorkflow({ id: ids['workflow:release-announcement'] ?? '', variables: RELEASE_VARIABLES }))
      events.push(event);
    expect(events.map((event) => event.event)).toEqual(['node', 'node', 'node', 'node', 'done']);
    const done = events.at(-1);
    expect(done?.event === 'done' && done.data.status).toBe('completed');

    const refused = client.stream.executePersona({ id: ids['persona:plain-editor'] ?? '', input: '' });
    await expect(refused.next()).rejects.toMatchObject({ name: 'PorchApiError', status: 400, code: 'VALIDATION_ERROR' });
  });

  it('charges a retried execution once: the retry replays the stored result', async () => {
    const ids = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids;
    const target = new URL(harness.url);
    let lost = 0;
    // A proxy that loses Porch's first answer to an execution (Porch ran and charged it), telling
    // the client to retry at once: the retry must not run or charge again.
    proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const upstream = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => body.push(chunk));
          answer.on('end', () => {
            if (req.url?.endsWith('/execute') && lost === 0) {
              lost += 1;
              res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
              res.end(JSON.stringify({ success: false, error: { code: 'RATE_LIMITED', message: 'lost', request_id: 'proxy' } }));
              return;
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(body));
          });
        });
        upstream.end(Buffer.concat(chunks));
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const client = createPorchClient({ baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, apiKey: key });

    const result = await client.executeComposition({ id: ids['composition:release-notes'] ?? '', variables: RELEASE_VARIABLES });
    expect(lost).toBe(1);
    const usage = await harness.store.usage.listByAccount(accountId);
    expect(usage).toHaveLength(1);
    expect((await harness.store.credits.balance(accountId)).balanceTokens).toBe(1_000_000 - result.token_usage.total_tokens);
  });

  it('pages lists and reads markdown exports', async () => {
    const ids = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids;
    const client = createPorchClient({ baseUrl: harness.url, apiKey: key });
    const page = await client.listContextCards({ limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.next_cursor).toBeTruthy();
    const markdown = await client.exportSkillMd({ id: ids['skill:summarise'] ?? '' });
    expect(markdown).toMatch(/^---\n/);
  });

  it('queues an execution, waits for its run as the Retry-After says, and a retried queueing replays the same run', async () => {
    const ids = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids;
    // Only the execute scope: a key follows the runs it may start.
    const { key: executor } = await harness.createKey(accountId, { scopes: ['execute:composition'] });
    const client = createPorchClient({ baseUrl: harness.url, apiKey: executor });
    const input = { id: ids['composition:release-notes'] ?? '', variables: RELEASE_VARIABLES };
    const queued = await client.executeAsync('executeComposition', input, { idempotencyKey: 'queue-once' });
    expect(queued.status).toBe('queued');
    expect((await client.executeAsync('executeComposition', input, { idempotencyKey: 'queue-once' })).run_id).toBe(queued.run_id);
    const run = await client.waitForRun(queued.run_id);
    expect(run).toMatchObject({ id: queued.run_id, status: 'completed', result: { model_used: 'echo/echo' } });
    await expect(client.executeAsync('runJudge' as 'executeComposition', input)).rejects.toThrow('cannot be queued');
  });

  it('serves self-service: the account, key rotation with a grace period, and the runs of an execution', async () => {
    const ids = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids;
    const manager = await harness.createKey(accountId, { scopes: ['manage:keys', 'read:usage', 'execute:skill'] });
    const client = createPorchClient({ baseUrl: harness.url, apiKey: manager.key });
    expect((await client.getAccount()).key).toMatchObject({ id: manager.id, scopes: ['manage:keys', 'read:usage', 'execute:skill'] });
    const skillId = ids['skill:summarise'] ?? '';
    await client.executeSkill({ id: skillId, input: 'Porch runs workflows.', variables: { bullets: 2 } });
    const runs = await client.listRuns({ kind: 'skill' });
    expect(runs.items.map((run) => run.resource_id)).toEqual([skillId]);
    const run = await client.getRun({ id: runs.items[0]?.id ?? '' });
    expect(run.inputs).toMatchObject({ input: 'Porch runs workflows.' });
    const rotated = await client.rotateKey({ id: manager.id, grace_seconds: 60 });
    expect(rotated.previous).toMatchObject({ id: manager.id, status: 'active' });
    const next = createPorchClient({ baseUrl: harness.url, apiKey: rotated.api_key });
    expect((await next.listKeys()).items.map((item) => item.status)).toEqual(['active', 'active', 'active']);
  });
});
