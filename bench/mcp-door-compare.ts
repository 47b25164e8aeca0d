/**
 * `npx tsx bench/mcp-door-compare.ts BASE_DIST NEW_DIST`: the MCP endpoint's answers to a fixed
 * set of raw requests (refusals of every kind, both eras, path spellings), byte for byte, from
 * two builds; the request id, dates and uuids are masked. Prints the requests whose answers differ.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import type { loadConfig as LoadConfig } from '../src/config.js';
import type { createApplication as CreateApplication } from '../src/main.js';
import { benchListBundle, benchPorchEnv } from './bench-processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function raw(port: number, text: string): Promise<string> {
  return new Promise((done, fail) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', fail);
  });
}

function mask(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    .replace(/Date: .*\r\n/, 'Date: <date>\r\n')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>')
    .replace(/"reset":\d+/g, '"reset":<reset>')
    .replace(/(x-ratelimit-reset: )\d+/gi, '$1<reset>');
}

function requests(key: string, port: number): Array<[string, string]> {
  const host = `127.0.0.1:${port}`;
  const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_context_cards', arguments: {} } });
  const post = (path: string, body: string, headers: Record<string, string> = {}) => {
    const all: Record<string, string> = {
      Host: host,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Content-Length': String(Buffer.byteLength(body)),
      Connection: 'close',
      ...headers,
    };
    return `POST ${path} HTTP/1.1\r\n${Object.entries(all)
      .filter(([, v]) => v !== '')
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n${body}`;
  };
  const bare = (method: string, path: string, headers: Record<string, string> = {}) =>
    `${method} ${path} HTTP/1.1\r\n${Object.entries({ Host: host, Connection: 'close', ...headers })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`;
  const modern = JSON.stringify({
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/list',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  const k = { 'X-API-Key': key };
  return [
    ['list', post('/api/public/mcp', list, k)],
    ['list, Bearer', post('/api/public/mcp', list, { Authorization: `Bearer ${key}` })],
    ['list, trailing slash', post('/api/public/mcp/', list, k)],
    ['list, upper case', post('/API/Public/MCP', list, k)],
    ['list, query', post('/api/public/mcp?x=1', list, k)],
    ['under the path', post('/api/public/mcp/x', list, k)],
    ['under the path, bad origin', post('/api/public/mcp/x', list, { ...k, Origin: 'https://evil.example' })],
    ['bad origin', post('/api/public/mcp', list, { ...k, Origin: 'https://evil.example' })],
    ['allowed origin', post('/api/public/mcp', list, { ...k, Origin: 'http://localhost:4000' })],
    ['preflight', bare('OPTIONS', '/api/public/mcp', { Origin: 'http://127.0.0.1:4000', 'Access-Control-Request-Method': 'POST' })],
    ['OPTIONS without origin', bare('OPTIONS', '/api/public/mcp')],
    ['bad host', post('/api/public/mcp', list, { ...k, Host: 'evil.example' })],
    ['basic auth', post('/api/public/mcp', list, { Authorization: 'Basic abc' })],
    ['bad key', post('/api/public/mcp', list, { 'X-API-Key': 'mdi_nope' })],
    ['keyless keyed tool', post('/api/public/mcp', list)],
    ['keyless tools/list', post('/api/public/mcp', JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }))],
    ['too large', post('/api/public/mcp', list, { ...k, 'Content-Length': String(2 * 1024 * 1024) }).slice(0, -list.length)],
    ['compressed', post('/api/public/mcp', list, { ...k, 'Content-Encoding': 'gzip' })],
    ['not json', post('/api/public/mcp', '{oops', k)],
    ['text/plain', post('/api/public/mcp', list, { ...k, 'Content-Type': 'text/plain' })],
    ['accept json only', post('/api/public/mcp', list, { ...k, Accept: 'application/json' })],
    ['batch 2025-06-18', post('/api/public/mcp', `[${list}]`, { ...k, 'Mcp-Protocol-Version': '2025-06-18' })],
    ['batch 2025-03-26', post('/api/public/mcp', `[${list}]`, { ...k, 'Mcp-Protocol-Version': '2025-03-26' })],
    ['unknown revision', post('/api/public/mcp', list, { ...k, 'Mcp-Protocol-Version': '1999-01-01' })],
    ['malformed params', post('/api/public/mcp', JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: 7 }), k)],
    ['notification', post('/api/public/mcp', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), k)],
    [
      'initialize',
      post(
        '/api/public/mcp',
        JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
        }),
        k,
      ),
    ],
    ['modern tools/list', post('/api/public/mcp', modern, { ...k, 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' })],
    [
      'progress (event stream)',
      post(
        '/api/public/mcp',
        JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'list_context_cards', arguments: {}, _meta: { progressToken: 1 } } }),
        k,
      ),
    ],
    ['GET', bare('GET', '/api/public/mcp')],
    ['DELETE', bare('DELETE', '/api/public/mcp')],
    ['HEAD', bare('HEAD', '/api/public/mcp')],
    ['GET, bad origin', bare('GET', '/api/public/mcp', { Origin: 'https://evil.example' })],
  ];
}

async function answers(distPath: string, directory: string, index: number): Promise<Map<string, string>> {
  const configPath = join(directory, 'porch.config.yaml');
  await writeFile(configPath, stringify({}));
  const env = { ...benchPorchEnv(directory, `cmp-${index}.db`, configPath, 'unused'), PORCH_PUBLIC_URL: 'http://localhost:4000' };
  const { loadConfig } = (await import(join(distPath, 'config.js'))) as { loadConfig: typeof LoadConfig };
  const { createApplication } = (await import(join(distPath, 'main.js'))) as { createApplication: typeof CreateApplication };
  const application = await createApplication(loadConfig(env, ROOT));
  const account = await application.core.accounts.createAccount({ email: 'list@example.com', plan: 'expert', credits: 1_000_000 });
  const key = await application.core.accounts.createKey({ accountId: account.id, name: 'bench', requestsPerMinute: 1e9, requestsPerDay: 1e9 });
  await application.core.bundles.importBundle(account.id, benchListBundle(3));
  const server: Server = createServer(application.app);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const result = new Map<string, string>();
  // Twice: the first MCP request loads the endpoint (through Express); the second round is the node door's.
  for (const round of [1, 2]) {
    for (const [name, text] of requests(key.plaintext, port)) {
      result.set(`${name} (${round})`, mask((await raw(port, text)).replaceAll(String(port), '<port>').replaceAll(key.plaintext, '<key>')));
    }
  }
  server.close();
  await application.close();
  return result;
}

const [basePath, newPath] = process.argv.slice(2).map((path) => resolve(ROOT, path));
if (basePath === undefined || newPath === undefined) throw new Error('usage: mcp-door-compare.ts BASE_DIST NEW_DIST');
const directory = await mkdtemp(join(tmpdir(), 'porch-mcp-cmp-'));
try {
  const base = await answers(basePath, directory, 0);
  const fresh = await answers(newPath, directory, 1);
  let differing = 0;
  for (const [name, answer] of base) {
    const other = fresh.get(name);
    if (other === answer) continue;
    differing += 1;
    process.stdout.write(`--- ${name}\nbase:\n${answer}\nnew:\n${other}\n\n`);
  }
  process.stdout.write(`${base.size} answers compared, ${differing} differ\n`);
  if (process.env.CMP_SHOW) for (const [name, answer] of fresh) process.stdout.write(`=== ${name}\n${answer.slice(0, 400)}\n`);
} finally {
  await rm(directory, { recursive: true, force: true });
}
