/**
 * A local OTLP/HTTP trace receiver for `npm run bench:observability`, in its own process as a
 * collector would be: it reads every export to the end, counts its bytes and answers 200, so
 * the Porch it receives from pays the whole cost of exporting. GET /stats says how many exports
 * and bytes arrived (the bench checks spans really went out). Prints `listening <url>`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let exports = 0;
let bytes = 0;
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ exports, bytes }));
    return;
  }
  req.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
  });
  req.on('end', () => {
    exports += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
