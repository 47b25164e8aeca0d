/**
 * The peer gateway of the execution benchmarks: the open-source Portkey AI gateway
 * (`@portkey-ai/gateway`), put in front of the same fake upstream as Porch. It is installed by the
 * bench itself into bench/.cache (git-ignored, never a dependency of Porch), at a fixed version,
 * so the comparison is reproducible. It does no authentication, limits, metering or usage
 * records: what it adds is a gateway's bare routing and proxying.
 */
import { execFile } from 'node:child_process';
import { access } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Child, startProcess } from './bench-processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const PORTKEY_VERSION = '1.15.2';
const CACHE = join(ROOT, 'bench', '.cache');
const ENTRY = join(CACHE, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');

/** Installs the gateway into bench/.cache unless it is there (npm, from the registry). */
export async function installPortkey(): Promise<void> {
  const present = await access(ENTRY).then(
    () => true,
    () => false,
  );
  if (present) return;
  process.stdout.write(`Installing @portkey-ai/gateway@${PORTKEY_VERSION} into bench/.cache...\n`);
  await promisify(execFile)('npm', ['install', '--prefix', CACHE, '--no-save', '--no-audit', '--no-fund', `@portkey-ai/gateway@${PORTKEY_VERSION}`], {
    cwd: ROOT,
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no free port');
  return address.port;
}

/** Starts the gateway on a free port; its URL is the child's `url`. */
export async function startPortkey(): Promise<Child> {
  await installPortkey();
  const port = await freePort();
  return startProcess(
    process.execPath,
    [ENTRY, `--port=${port}`, '--headless'],
    { ...process.env, NODE_ENV: 'production' },
    /running at:[\s\S]*?(http:\/\/localhost:\d+)/,
  );
}

/** The headers that make the gateway forward an OpenAI chat completion to `upstreamBaseUrl` (ending in /v1). */
export function portkeyHeaders(upstreamBaseUrl: string, apiKey: string): Record<string, string> {
  return { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': upstreamBaseUrl, authorization: `Bearer ${apiKey}` };
}
