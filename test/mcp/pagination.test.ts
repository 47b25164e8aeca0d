/**
 * tools/list, prompts/list and resources/list page through long lists with the specification's
 * cursor / nextCursor, and answer a cursor Porch did not issue with -32602.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { createMcpServer } from '../../src/mcp/create-mcp-server.js';
import { liveIdentity } from '../../src/mcp/identity.js';
import { LIST_PAGE_SIZE } from '../../src/mcp/paginate.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { mcpUrl, sharedToolset } from '../helpers/mcp-client.js';

let harness: Harness;
let closers: Array<() => Promise<void>>;
beforeEach(async () => {
  harness = await createHarness();
  closers = [];
});
afterEach(async () => {
  for (const close of closers) await close();
  await harness.close();
});

/** An in-process client whose server pages lists by `pageSize`. */
async function connect(key: string, pageSize?: number): Promise<Client> {
  const server = createMcpServer(harness.core, liveIdentity(harness.core, { apiKey: key }), {
    tools: sharedToolset(),
    errorCodes: harness.config.errorCodes,
    ...(pageSize === undefined ? {} : { pageSize }),
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'porch-tests', version: '1.0.0' });
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

/** Every page of a list, following nextCursor; answers the pages' items and sizes. */
async function allPages<Item>(list: (cursor: string | undefined) => Promise<{ items: Item[]; nextCursor?: string | undefined }>) {
  const items: Item[] = [];
  const sizes: number[] = [];
  let cursor: string | undefined;
  do {
    const page = await list(cursor);
    items.push(...page.items);
    sizes.push(page.items.length);
    cursor = page.nextCursor;
  } while (cursor !== undefined && sizes.length < 100);
  return { items, sizes };
}

describe('pagination', () => {
  it(`pages resources/list by ${LIST_PAGE_SIZE}, each card once`, async () => {
    const { accountId, key } = await harness.expertWithKey();
    const count = LIST_PAGE_SIZE + 1;
    for (let index = 0; index < count; index++) await harness.core.contextCards.create(accountId, { title: `Card ${index}`, content: 'x' });
    const client = await connect(key);
    const { items, sizes } = await allPages(async (cursor) => {
      const page = await client.request({ method: 'resources/list', params: cursor === undefined ? {} : { cursor } });
      return { items: page.resources.map((resource) => resource.uri), nextCursor: page.nextCursor };
    });
    expect(sizes).toEqual([LIST_PAGE_SIZE, 1]);
    expect(new Set(items).size).toBe(count);
  });

  it('pages tools/list and prompts/list, and the pages add up to the whole list', async () => {
    const { accountId, key } = await harness.expertWithKey();
    await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE);
    const whole = await connect(key);
    const allTools = (await whole.listTools()).tools.map((tool) => tool.name);
    const allPrompts = (await whole.listPrompts()).prompts.map((prompt) => prompt.name);
    expect(allPrompts.length).toBeGreaterThan(1);

    const paged = await connect(key, 5);
    const tools = await allPages(async (cursor) => {
      const page = await paged.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } });
      return { items: page.tools.map((tool) => tool.name), nextCursor: page.nextCursor };
    });
    expect(tools.items).toEqual(allTools);
    expect(tools.sizes[0]).toBe(5);
    const single = await connect(key, 1);
    const prompts = await allPages(async (cursor) => {
      const page = await single.request({ method: 'prompts/list', params: cursor === undefined ? {} : { cursor } });
      return { items: page.prompts.map((prompt) => prompt.name), nextCursor: page.nextCursor };
    });
    expect(prompts.items).toEqual(allPrompts);
    expect(prompts.sizes.every((size) => size === 1)).toBe(true);
  });

  it('gives a list that fits one page no nextCursor', async () => {
    const { key } = await harness.expertWithKey();
    const page = await (await connect(key)).listTools();
    expect(page.tools.length).toBeGreaterThan(0);
    expect(page.nextCursor).toBeUndefined();
  });

  it('answers a cursor Porch did not issue with -32602, with or without a key', async () => {
    const { key } = await harness.expertWithKey();
    const cursors = ['garbage', Buffer.from('offset:-1').toString('base64url'), Buffer.from('offset:01').toString('base64url'), ''];
    for (const method of ['tools/list', 'prompts/list', 'resources/list']) {
      for (const headers of [{}, { 'x-api-key': key }] as Array<Record<string, string>>) {
        for (const cursor of cursors) {
          const response = await fetch(mcpUrl(harness), {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { cursor } }),
          });
          const text = await response.text();
          expect(JSON.parse(text), `${method} ${cursor}: ${text}`).toMatchObject({
            id: 1,
            error: { code: -32602, message: expect.stringContaining('Invalid cursor') },
          });
        }
      }
    }
  });
});
