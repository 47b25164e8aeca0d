/**
 * The ceiling for `npm run bench`: bare Express 5 answering GET /cards with `res.json` of the very
 * body Porch returns for its 20-card list (read from the file named by argv[2]), so both sides
 * serialise the same object per request. No auth, no database: what is left is Node's HTTP
 * server, Express routing and JSON. Prints `listening <url>` on stdout; stops on SIGTERM.
 */
import { readFileSync } from 'node:fs';
import express from 'express';

const payloadFile = process.argv[2];
if (payloadFile === undefined) throw new Error('usage: bare-express-server.ts <payload.json>');
const payload: unknown = JSON.parse(readFileSync(payloadFile, 'utf8'));

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.get('/cards', (_req, res) => {
  res.json(payload);
});

const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(`listening http://127.0.0.1:${port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
