/**
 * An MCP host connecting to Porch the way a web chat product's connector does, end to end: the
 * v2 SDK client (revision 2026-07-28) with its OAuth provider calls a keyed tool without a token,
 * gets Porch's 401 challenge, discovers the protected-resource and authorization-server metadata,
 * registers itself and sends the person to authorize; the person signs in to the console and
 * approves one scope in Chromium; the code becomes a token; `tools/list` then shows exactly what
 * that scope grants; `execute_workflow` runs as an MCP task (the durable run) to its result; and
 * revoking the connection in Settings → API access makes the next call 401.
 */
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { TASKS_EXTENSION } from '../../src/mcp/tasks.js';
import { isOperationAllowed } from '../../src/operations/invoke.js';
import { operations } from '../../src/operations/index.js';
import { exposedOn } from '../../src/operations/operation.js';
import { launchChromium, signInWithChromium } from '../helpers/console-chromium.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { MemoryOAuthHost } from '../helpers/oauth-host.js';
import { CURRENT_REVISION, taskDispatch } from '../helpers/mcp-client.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';

const CLIENT_INFO = { name: 'chat-host', version: '1.0.0' };
const TASK_CAPABILITIES = { extensions: { [TASKS_EXTENSION]: {} } };

let harness: Harness;
let browser: Browser;
beforeAll(async () => {
  // The SDK follows the URLs the metadata names, so the public URL must be the one listening.
  harness = await createHarness({ publicPort: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

function modernClient(): Client {
  return new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: CURRENT_REVISION } }, capabilities: TASK_CAPABILITIES });
}

it('connects a host with OAuth: challenge, discovery, registration, sign-in and consent, the granted tools, a task, then revocation', async () => {
  const mcpUrl = new URL('/api/public/mcp', harness.url);
  // The person has a console account (set up through an invite), and a workflow to run.
  const setup = await signInWithChromium(browser, harness);
  await setup.context.close();
  const { ids } = await harness.core.bundles.importBundle(setup.accountId, DEMO_BUNDLE);
  const workflowId = ids['workflow:release-announcement'] ?? '';

  // 1. Without a token the host reaches Porch and the public tools, and a keyed tool is challenged.
  const provider = new MemoryOAuthHost('Chat Host');
  const anonymous = modernClient();
  await anonymous.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  expect(anonymous.getProtocolEra()).toBe('modern');
  await expect(anonymous.callTool({ name: 'execute_workflow', arguments: { id: workflowId, variables: RELEASE_VARIABLES } })).rejects.toThrow(
    UnauthorizedError,
  );
  await anonymous.close();
  // The SDK followed the challenge: metadata, registration, an authorization URL with PKCE for this resource.
  const authorizationUrl = provider.authorizationUrl;
  if (!authorizationUrl) throw new Error('the host was not sent to authorize');
  expect(provider.client?.client_id).toBeTruthy();
  expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorizationUrl.searchParams.get('resource')).toBe(mcpUrl.href);
  expect(authorizationUrl.searchParams.get('scope')?.split(' ')).toContain('execute:workflow');

  // 2. The person signs in to the console and approves the one scope asked for, in Chromium.
  const context = await browser.newContext();
  const page = await context.newPage();
  let arrived: (url: URL) => void = () => undefined;
  const callback = new Promise<URL>((resolve) => {
    arrived = resolve;
  });
  await page.route('http://127.0.0.1:6274/**', async (route) => {
    arrived(new URL(route.request().url()));
    await route.fulfill({ status: 200, contentType: 'text/plain', body: 'host callback' });
  });
  await page.goto(authorizationUrl.href);
  await page.waitForURL(/\/console\/sign-in/);
  await page.getByLabel('Email').fill(setup.email);
  await page.getByLabel('Password').fill(setup.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/console\/connect\//);
  expect(await page.locator('h1').textContent()).toBe('Connect Chat Host to Porch?');
  await page.getByRole('button', { name: 'Approve' }).click();
  const returned = await callback;
  const code = returned.searchParams.get('code');
  expect(code, returned.href).toBeTruthy();

  // 3. The code becomes tokens; the host reconnects and sees exactly what the granted scope allows.
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await transport.finishAuth(returned.searchParams);
  const granted = provider.saved?.scope?.split(' ') ?? [];
  expect(granted).toEqual(['execute:workflow']);
  const client = modernClient();
  await client.connect(transport);
  const listed = (await client.listTools()).tools.map((tool) => tool.name).sort();
  const expected = exposedOn(operations, 'mcp-tool')
    .filter((operation) => operation.access === 'public' || isOperationAllowed(operation, granted))
    .map((operation) => operation.name)
    .sort();
  expect(listed).toEqual(expected);
  expect(listed).toContain('execute_workflow');
  expect(listed).not.toContain('list_context_cards');

  // 4. execute_workflow as a task: the durable run, polled to its result.
  const session = createTaskSessionFromClient(client, {
    endpointId: 'chat-host',
    rawDispatch: taskDispatch(mcpUrl, () => ({ authorization: `Bearer ${provider.saved?.access_token ?? ''}` })),
    v2RequestFraming: { protocolVersion: CURRENT_REVISION, clientInfo: CLIENT_INFO, clientCapabilities: TASK_CAPABILITIES },
  });
  const execution = await session.callTool('execute_workflow', { id: workflowId, variables: RELEASE_VARIABLES, include_trace: true });
  expect(execution.kind).toBe('task');
  const { outcome } = await execution.settle();
  const result = resultFromTaskOutcome(outcome) as { isError?: boolean; structuredContent?: { status?: string; node_results?: unknown[] } };
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent?.status).toBe('completed');
  expect(result.structuredContent?.node_results).toHaveLength(4);
  await session.close();

  // 5. Revoking the connection in the console: the next call with the host's token is 401.
  await page.goto(`${harness.url}/console/settings/api-access`);
  await page.getByRole('cell', { name: 'Chat Host' }).waitFor();
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Revoke' }).click();
  await page.getByText('Disconnected Chat Host').waitFor();
  const after = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${provider.saved?.access_token ?? ''}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  expect(after.status).toBe(401);
  expect(after.headers.get('www-authenticate')).toMatch(/resource_metadata=".*oauth-protected-resource\/api\/public\/mcp", error="invalid_token"/);
  await client.close().catch(() => undefined);
  await context.close();
});
