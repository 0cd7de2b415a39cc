import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { dropDatabase, freshDatabase as databaseNextTo } from '../helpers/fresh-database.js';
import { freePort } from '../helpers/free-port.js';

/** A redis-server of the test's own on a free port; stop() kills it hard, start() brings it back on the same port. */
export class RedisProcess {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly extraArgs: string[],
  ) {}

  static async start(extraArgs: string[] = [], port?: number): Promise<RedisProcess> {
    const redis = new RedisProcess(port ?? (await freePort()), extraArgs);
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...this.extraArgs], { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    while (!(await accepts(this.port))) {
      if (Date.now() > deadline) throw new Error('redis-server did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  /** Stops it as an operator would: `SHUTDOWN NOSAVE` (clients see their connections closed, not reset). */
  async shutdown(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    const redis = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    await redis.connect();
    // The server closes the connection instead of answering.
    await redis.call('SHUTDOWN', 'NOSAVE').catch(() => {});
    redis.disconnect();
    await exited;
  }
}

/** A cluster node also listens on its port + 10,000 (the cluster bus), so its port must be 55,535 or less. */
const CLUSTER_BUS_OFFSET = 10_000;

/** A free port whose bus port is a port too, and free: the kernel's free ports run up to 60,999, a fifth of them too high. */
async function clusterNodePort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + CLUSTER_BUS_OFFSET <= 65_535 && !(await accepts(port + CLUSTER_BUS_OFFSET))) return port;
  }
}

/** A Redis Cluster of the test's own: `size` masters on loopback, no replicas, every slot assigned. */
export class RedisCluster {
  private constructor(
    readonly nodes: RedisProcess[],
    private readonly dir: string,
  ) {}

  static async start(size = 3): Promise<RedisCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'engage-redis-cluster-'));
    const nodes: RedisProcess[] = [];
    for (let i = 0; i < size; i++) nodes.push(await RedisProcess.start(['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${i}.conf`), '--dir', dir], await clusterNodePort()));
    const cluster = new RedisCluster(nodes, dir);
    const addresses = nodes.map((n) => `127.0.0.1:${n.port}`);
    await promisify(execFile)('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes']);
    await eventually(
      async () => (await Promise.all(nodes.map((n) => cluster.command(n, 'CLUSTER', 'INFO')))).every((info) => String(info).includes('cluster_state:ok')),
      20_000,
      'cluster_state:ok on every node',
    );
    return cluster;
  }

  /** A seed for REDIS_URL: the client learns the other nodes from it. */
  get url(): string {
    return (this.nodes[0] as RedisProcess).url;
  }

  /** One command on one node (not routed by slot). */
  async command(node: RedisProcess, ...args: string[]): Promise<unknown> {
    const redis = new Redis(node.url, { lazyConnect: true });
    try {
      await redis.connect();
      return await redis.call(...(args as [string, ...string[]]));
    } finally {
      redis.disconnect();
    }
  }

  /** Each master's sharded channels (PUBSUB SHARDCHANNELS), in the order of `nodes`. */
  shardChannels(): Promise<string[][]> {
    return Promise.all(this.nodes.map(async (n) => (await this.command(n, 'PUBSUB', 'SHARDCHANNELS')) as string[]));
  }

  /** The master a sharded channel whose name ends with `suffix` is subscribed on. */
  async holderOf(suffix: string): Promise<RedisProcess> {
    const byMaster = await this.shardChannels();
    const holder = this.nodes.find((_, i) => byMaster[i]?.some((c) => c.endsWith(suffix)));
    if (holder === undefined) throw new Error(`no master holds a channel ending with ${suffix}`);
    return holder;
  }

  async kill(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A database of its own on the server `adminUrl` names (one per suite, as fresh-database.ts makes them), dropped by drop(). */
export async function freshDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const url = (await databaseNextTo(adminUrl, `cluster_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`)) as string;
  return { url, drop: () => dropDatabase(url) };
}

/** Polls `check` until it returns true or the time is up. */
export async function eventually(check: () => Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
