/**
 * `npx tsx bench/prototype-change-cost.ts`: what one request whose req/res get another prototype
 * (as Express 5's `app.handle` does to every request it serves: `Object.setPrototypeOf(req,
 * app.request)`) costs the plain node:http requests that follow. Three identical bare servers,
 * each in its own process, answer a 20-card JSON body under the same load at once (the start order
 * rotating); after round 2 the third is sent one such request per round, as Porch's /metrics
 * scrape, /livez and /readyz probes are sent to it. Prints CPU per request of each, per round.
 * Found while measuring observability (bench/RESULTS-NOTES.md, Observability overhead, third look).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { cpuNanoseconds } from './bench-processes.js';

const SERVER = `
const http = require('node:http');
const payload = JSON.stringify({ data: Array.from({ length: 20 }, (_, i) => ({ id: 'card-' + i, name: 'Card ' + i, body: 'x'.repeat(200), tags: ['a', 'b'] })) });
const otherRequest = Object.create(http.IncomingMessage.prototype);
const otherResponse = Object.create(http.ServerResponse.prototype);
const server = http.createServer((req, res) => {
  if (req.url === '/other-prototype') {
    Object.setPrototypeOf(req, otherRequest);
    Object.setPrototypeOf(res, otherResponse);
    res.end('ok');
    return;
  }
  res.setHeader('content-type', 'application/json');
  res.end(payload);
});
server.listen(0, '127.0.0.1', () => console.log('listening http://127.0.0.1:' + server.address().port));
`;
const ROUNDS = 8;

function start(): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', SERVER]);
    child.stdout?.on('data', (data: Buffer) => {
      const match = /listening (\S+)/.exec(String(data));
      if (match?.[1] !== undefined) resolve({ child, url: match[1] });
    });
  });
}

const servers = [await start(), await start(), await start()];
const names = ['plain', 'plain2', 'changed'];
const cpuPerRequest = async (server: (typeof servers)[number], seconds: number) => {
  const before = await cpuNanoseconds(server.child.pid ?? 0);
  const result = await autocannon({ url: server.url, connections: 4, duration: seconds });
  return ((await cpuNanoseconds(server.child.pid ?? 0)) - before) / 1e3 / Math.max(1, result.requests.total);
};
try {
  await Promise.all(servers.map((server) => cpuPerRequest(server, 2)));
  for (let round = 0; round < ROUNDS; round++) {
    const shift = round % servers.length;
    const order = [...servers.slice(shift), ...servers.slice(0, shift)];
    const results = await Promise.all(order.map((server) => cpuPerRequest(server, 4)));
    const of = (index: number) => results[order.indexOf(servers[index] as (typeof servers)[number])] ?? NaN;
    process.stdout.write(
      `round ${round + 1}: ${names.map((name, index) => `${name} ${of(index).toFixed(1)} µs`).join(', ')}; changed vs plain ${((of(2) / of(0) - 1) * 100).toFixed(1)} %\n`,
    );
    if (round >= 1) await (await fetch(`${servers[2]?.url}/other-prototype`)).text();
  }
} finally {
  for (const server of servers) server.child.kill();
}
