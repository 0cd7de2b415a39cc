import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of Redis for one node whose answers and messages arrive `delayMs` late
 * (the direction towards the node only), as a node on a congested link or a busy event loop
 * hears other nodes' invalidations late. Order is kept: every chunk waits the same time.
 */
export class SlowLink {
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  private port = 0;

  private constructor(
    private readonly target: URL,
    private readonly delayMs: number,
  ) {
    this.server = createServer((client) => this.relay(client));
  }

  static async start(target: string, delayMs: number): Promise<SlowLink> {
    const link = new SlowLink(new URL(target), delayMs);
    await new Promise<void>((resolve) => link.server.listen(0, '127.0.0.1', resolve));
    const address = link.server.address();
    if (address === null || typeof address === 'string') throw new Error('the slow link has no port');
    link.port = address.port;
    return link;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: Socket): void {
    const upstream = createConnection({ host: this.target.hostname, port: Number(this.target.port) });
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => setTimeout(() => client.writable && client.write(chunk), this.delayMs));
  }
}
