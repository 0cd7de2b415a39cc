import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy between a client and the server, for cutting the network: `cut` resets every
 * connection and refuses new ones, `stall` keeps connections open but forwards nothing (a dead
 * link that reports nothing), `restore` lets traffic through again; `target` can move (a
 * balancer sending the client to another node).
 */
export class TcpProxy {
  private mode: 'pass' | 'cut' | 'stall' = 'pass';
  private readonly pairs = new Set<[Socket, Socket]>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
    public target: number,
  ) {}

  static async start(target: number): Promise<TcpProxy> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const proxy = new TcpProxy(server, typeof address === 'object' && address !== null ? address.port : 0, target);
    server.on('connection', (client) => proxy.accept(client));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  private accept(client: Socket): void {
    if (this.mode !== 'pass') return void client.destroy();
    const upstream = connect(this.target, '127.0.0.1');
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    const end = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const [from, to] of [pair, [upstream, client] as const]) {
      from.on('data', (chunk) => {
        if (this.mode === 'pass') to.write(chunk);
      });
      from.on('error', end);
      from.on('close', end);
    }
  }

  /** Resets every connection; new ones are reset at once until `restore`. */
  cut(): void {
    this.mode = 'cut';
    for (const [client, upstream] of this.pairs) {
      client.resetAndDestroy();
      upstream.destroy();
    }
    this.pairs.clear();
  }

  /** Open connections stay open but carry nothing; new ones are refused. */
  stall(): void {
    this.mode = 'stall';
  }

  restore(): void {
    if (this.mode === 'stall') this.cut();
    this.mode = 'pass';
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((r) => this.server.close(r));
  }
}
