/**
 * A TCP relay to PostgreSQL that a test can cut (every connection reset, new ones refused) and
 * restore on the same port: a network partition or a database restart, as a Porch server
 * reaching PostgreSQL through it sees one.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export class PostgresRelay {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** A relay to the database of `url`, listening; `relayedUrl` is the same database through it. */
  static async to(url: string): Promise<{ relay: PostgresRelay; relayedUrl: string }> {
    const direct = new URL(url);
    const relay = new PostgresRelay(direct.hostname, Number(direct.port));
    await relay.open();
    const relayed = new URL(url);
    relayed.port = String(relay.port);
    return { relay, relayedUrl: relayed.toString() };
  }

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address === 'object' && address) this.port = address.port;
    this.server = server;
  }

  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.resetAndDestroy();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
