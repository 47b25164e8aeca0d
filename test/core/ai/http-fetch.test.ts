/**
 * The provider transport (src/core/ai/http-fetch.ts) answers as the runtime's fetch would in the
 * cases the provider suite does not reach: compressed answers, redirects, a stream read as it
 * arrives, aborts and refused connections. Over real HTTP on 127.0.0.1.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { httpFetch } from '../../../src/core/ai/http-fetch.js';

let server: Server | undefined;

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

afterEach(async () => {
  server?.closeAllConnections();
  server?.close();
  server = undefined;
});

describe('provider transport', () => {
  it('sends the method, headers and body, and answers status, headers and JSON', async () => {
    const url = await serve(async (req, res) => {
      const body = await bodyOf(req);
      res.writeHead(201, { 'content-type': 'application/json', 'x-seen': `${req.method} ${req.headers.authorization} ${req.headers['content-length']}` });
      res.end(JSON.stringify({ echoed: JSON.parse(body) }));
    });
    const response = await httpFetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer k' }, body: '{"a":"é"}' });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-seen')).toBe('POST Bearer k 10');
    expect(await response.json()).toEqual({ echoed: { a: 'é' } });
  });

  it('inflates a gzip answer and drops the encoding and length it no longer has', async () => {
    const url = await serve((_req, res) => {
      const packed = gzipSync(JSON.stringify({ ok: true }));
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(packed.length) });
      res.end(packed);
    });
    const response = await httpFetch(url, { method: 'POST', body: '{}' });
    expect(response.headers.get('content-encoding')).toBeNull();
    expect(await response.json()).toEqual({ ok: true });
  });

  it('follows a redirect as fetch does, sending the body again', async () => {
    const url = await serve(async (req, res) => {
      const body = await bodyOf(req);
      if (req.url === '/old') {
        res.writeHead(307, { location: '/new' });
        res.end();
      } else res.end(`${req.url} ${body}`);
    });
    const response = await httpFetch(`${url}/old`, { method: 'POST', body: 'payload' });
    expect(await response.text()).toBe('/new payload');
  });

  it('hands a text/event-stream over as it arrives, before the upstream ends it', async () => {
    let finish: () => void = () => undefined;
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      finish = () => res.end('data: last\n\n');
    });
    const response = await httpFetch(url, { method: 'POST', body: '{}' });
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error('no body');
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: first\n\n');
    finish();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toBe('data: last\n\n');
  });

  it('rejects with an AbortError when the signal aborts before the answer, and closes the connection', async () => {
    let arrived: () => void = () => undefined;
    const requestArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let closed: Promise<unknown> = Promise.resolve();
    const url = await serve((req) => {
      closed = once(req.socket, 'close');
      arrived();
    });
    const abort = new AbortController();
    const pending = httpFetch(url, { method: 'POST', body: '{}', signal: abort.signal });
    await requestArrived;
    abort.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await closed;
  });

  it('rejects a refused connection as fetch does: TypeError "fetch failed" with the cause', async () => {
    const url = await serve(() => undefined);
    server?.close();
    await once(server as Server, 'close');
    await expect(httpFetch(url, { method: 'POST', body: '{}' })).rejects.toMatchObject({
      name: 'TypeError',
      message: 'fetch failed',
      cause: { code: 'ECONNREFUSED' },
    });
  });
});
