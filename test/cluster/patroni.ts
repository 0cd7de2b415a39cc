import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../helpers/free-port.js';
import { asPostgresUser, debianBinary } from './binaries.js';
import { eventually } from './infra.js';

/**
 * Leader election timing. The leader key lives `TTL` seconds past the last renewal (every `LOOP_WAIT`
 * seconds): a dead leader is replaced after at most about TTL + LOOP_WAIT + a promotion.
 * Patroni wants LOOP_WAIT + 2 × RETRY_TIMEOUT ≤ TTL.
 */
const TTL = 8;
const LOOP_WAIT = 1;
const RETRY_TIMEOUT = 3;
const PG_BIN = '/usr/lib/postgresql/15/bin';

interface Node {
  name: string;
  pgPort: number;
  apiPort: number;
  dataDir: string;
  patroni: ChildProcess;
  output: string;
}

/**
 * A highly available Postgres of the test's own on loopback: one etcd member, two Patroni nodes
 * (a primary and its synchronous standby) and HAProxy sending connections to whichever node
 * Patroni's REST API says is the primary (`GET /primary`).
 */
export class PatroniCluster {
  private haproxy: ChildProcess | undefined;
  private haproxyOutput = '';
  readonly nodes: Node[] = [];

  private constructor(
    private readonly dir: string,
    private readonly etcd: ChildProcess,
    readonly port: number,
  ) {}

  /** Through HAProxy, to the primary's `postgres` database. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  static async start(): Promise<PatroniCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'engage-patroni-'));
    chmodSync(dir, 0o777);
    const [etcdClient, etcdPeer, haproxyPort] = [await freePort(), await freePort(), await freePort()];
    const etcd = spawn(
      debianBinary('/usr/bin/etcd'),
      [
        '--name=e0',
        `--data-dir=${join(dir, 'etcd')}`,
        `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
        `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-cluster=e0=http://127.0.0.1:${etcdPeer}`,
      ],
      { stdio: 'ignore' },
    );
    const cluster = new PatroniCluster(dir, etcd, haproxyPort);
    try {
      await cluster.startMembers(etcdClient);
      return cluster;
    } catch (err) {
      const logs = cluster.logs();
      await cluster.stop();
      throw new Error(`${(err as Error).message}\n${logs}`);
    }
  }

  private async startMembers(etcdClient: number): Promise<void> {
    const { dir, nodes, port: haproxyPort } = this;
    await eventually(async () => (await fetch(`http://127.0.0.1:${etcdClient}/health`).catch(() => undefined))?.ok === true, 20_000, 'etcd healthy');

    const scope = `engage${Date.now().toString(36)}`;
    for (const name of ['node0', 'node1']) {
      const node: Node = { name, pgPort: await freePort(), apiPort: await freePort(), dataDir: join(dir, name), patroni: undefined as unknown as ChildProcess, output: '' };
      node.patroni = startPatroni(dir, scope, etcdClient, node);
      nodes.push(node);
      // The second node starts once the first leads, so it joins as a replica instead of racing to bootstrap.
      if (name === 'node0') await eventually(() => answers(node, '/primary'), 60_000, 'node0 leading');
    }

    const haproxyConfig = join(dir, 'haproxy.cfg');
    writeFileSync(
      haproxyConfig,
      [
        'defaults',
        '  mode tcp',
        '  timeout connect 1s',
        '  timeout client 30m',
        '  timeout server 30m',
        '  timeout check 1s',
        'listen primary',
        `  bind 127.0.0.1:${haproxyPort}`,
        '  option httpchk GET /primary',
        '  http-check expect status 200',
        '  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions',
        ...nodes.map((n) => `  server ${n.name} 127.0.0.1:${n.pgPort} check port ${n.apiPort}`),
        '',
      ].join('\n'),
    );
    const haproxy = spawn(debianBinary('/usr/sbin/haproxy'), ['-db', '-f', haproxyConfig], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.haproxy = haproxy;
    const keep = (d: Buffer) => (this.haproxyOutput = (this.haproxyOutput + d.toString()).slice(-10_000));
    haproxy.stdout?.on('data', keep);
    haproxy.stderr?.on('data', keep);
    await eventually(() => answers(nodes[1] as Node, '/sync'), 90_000, 'node1 a synchronous standby');
    await eventually(() => writable(this.url), 20_000, 'the primary writable through haproxy');
  }

  /** The node Patroni's REST API calls primary, if any. */
  async leader(): Promise<Node | undefined> {
    for (const node of this.nodes) if (await answers(node, '/primary')) return node;
    return undefined;
  }

  /** The leader's Patroni and postmaster, killed with SIGKILL (as a machine dying would leave them). */
  async killLeader(): Promise<Node> {
    const leader = await this.leader();
    if (leader === undefined) throw new Error('no leader to kill');
    const postmaster = Number(readFileSync(join(leader.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    leader.patroni.kill('SIGKILL');
    process.kill(postmaster, 'SIGKILL');
    return leader;
  }

  /** Patroni's log of each node (for a failed test's message). */
  logs(): string {
    return [...this.nodes.map((n) => `--- ${n.name}\n${n.output.slice(-4000)}`), `--- haproxy\n${this.haproxyOutput}`].join('\n');
  }

  async stop(): Promise<void> {
    for (const node of this.nodes) {
      if (node.patroni.exitCode === null && node.patroni.signalCode === null) {
        const exited = new Promise((r) => node.patroni.once('exit', r));
        node.patroni.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      }
      killPostmaster(node);
    }
    this.haproxy?.kill('SIGKILL');
    this.etcd.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function startPatroni(dir: string, scope: string, etcdPort: number, node: Node): ChildProcess {
  const config = join(dir, `${node.name}.yml`);
  // JSON is YAML: Patroni reads it as its configuration file.
  writeFileSync(
    config,
    JSON.stringify({
      scope,
      name: node.name,
      restapi: { listen: `127.0.0.1:${node.apiPort}`, connect_address: `127.0.0.1:${node.apiPort}` },
      etcd3: { host: `127.0.0.1:${etcdPort}` },
      bootstrap: {
        dcs: {
          ttl: TTL,
          loop_wait: LOOP_WAIT,
          retry_timeout: RETRY_TIMEOUT,
          synchronous_mode: true,
          postgresql: { use_pg_rewind: false, parameters: { max_connections: 200, wal_keep_size: '128MB' } },
        },
        initdb: [{ encoding: 'UTF8' }, { 'auth-local': 'trust' }, { 'auth-host': 'trust' }],
      },
      postgresql: {
        listen: `127.0.0.1:${node.pgPort}`,
        connect_address: `127.0.0.1:${node.pgPort}`,
        data_dir: node.dataDir,
        bin_dir: debianPgBin(),
        pgpass: join(dir, `${node.name}.pgpass`),
        authentication: { superuser: { username: 'postgres' }, replication: { username: 'postgres' } },
        parameters: { unix_socket_directories: dir },
        pg_hba: ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication all 127.0.0.1/32 trust'],
      },
    }),
  );
  const user = asPostgresUser();
  const child = spawn(debianBinary('/usr/bin/patroni'), [config], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: dir, LANG: 'C.UTF-8' },
    ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }),
  });
  const keep = (d: Buffer) => (node.output = (node.output + d.toString()).slice(-20_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return child;
}

function debianPgBin(): string {
  return debianBinary(join(PG_BIN, 'pg_ctl')).replace(/\/pg_ctl$/, '');
}

async function answers(node: Node, path: string): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${node.apiPort}${path}`, { signal: AbortSignal.timeout(2000) });
    return res.status === 200;
  } catch {
    return false;
  }
}

/** True when a connection through `url` can write (it reached a primary). */
export async function writable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    const [row] = (await client.query<{ standby: boolean }>('select pg_is_in_recovery() as standby')).rows;
    return row?.standby === false;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function killPostmaster(node: Node): void {
  try {
    process.kill(Number(readFileSync(join(node.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]), 'SIGKILL');
  } catch {
    // Not running.
  }
}
