import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { lazyHandler } from '../../src/rest/lazy-handler.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function serve(app: express.Express): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  close = () => new Promise((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('lazyHandler', () => {
  it('loads the handler once, on the first request, and serves every request with it', async () => {
    let loads = 0;
    const app = express();
    app.use(
      lazyHandler(async () => {
        loads += 1;
        return (_req, res) => void res.send(`handler ${loads}`);
      }),
    );
    const url = await serve(app);
    expect(loads).toBe(0);
    const answers = await Promise.all([fetch(url), fetch(url), fetch(url)].map(async (response) => (await response).text()));
    expect(answers).toEqual(['handler 1', 'handler 1', 'handler 1']);
    expect(loads).toBe(1);
  });

  it('answers a failed load with the error and tries again on the next request', async () => {
    let attempts = 0;
    const app = express();
    app.use(
      lazyHandler(async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('module missing');
        return (_req, res) => void res.send('loaded');
      }),
    );
    app.use((_err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => void res.status(500).send('failed'));
    const url = await serve(app);
    const first = await fetch(url);
    expect([first.status, await first.text()]).toEqual([500, 'failed']);
    const second = await fetch(url);
    expect([second.status, await second.text()]).toEqual([200, 'loaded']);
  });
});
