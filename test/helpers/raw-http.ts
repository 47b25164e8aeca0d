/**
 * HTTP spoken by hand over a TCP socket, for what fetch cannot send: a body that never completes,
 * a malformed request line, headers beyond Node's limit.
 */
import { connect } from 'node:net';

export interface RawResponse {
  /** Everything the server wrote, as text. */
  raw: string;
  status: number;
  /** Header names in lower case. */
  headers: Map<string, string>;
  body: string;
  /** Whether the server closed the connection (the promise resolves only once it has). */
  closed: boolean;
}

/**
 * Writes `request` to a new connection to `url` and resolves with what the server answered once
 * it closes the connection. Whatever the test does not send (an announced body, the end of a
 * request) stays unsent, so a server that waits for it is cut off only by its own timeouts.
 */
export function sendRaw(url: string, request: string | Buffer): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  // A server that closes with bytes of ours unread resets the connection; what it sent still counts.
  socket.on('error', () => undefined);
  socket.write(request);
  return new Promise((resolve) => {
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = raw.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = new Map<string, string>();
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      resolve({ raw, status: Number(statusLine.split(' ')[1] ?? 0), headers, body: rest.join('\r\n\r\n'), closed: true });
    });
  });
}
