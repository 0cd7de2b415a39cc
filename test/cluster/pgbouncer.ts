import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { stopProcess } from '../helpers/spawn.js';
import { freePort } from '../helpers/free-port.js';
import { asPostgresUser, debianBinary } from './binaries.js';
import { eventually } from './infra.js';

/** A PgBouncer of the test's own in front of the Postgres of `upstreamUrl`, in transaction mode with a pool of `poolSize` server connections per database. */
export class PgBouncer {
  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly port: number,
    private readonly upstream: URL,
  ) {}

  static async start(upstreamUrl: string, poolSize = 20): Promise<PgBouncer> {
    const upstream = new URL(upstreamUrl);
    const dir = mkdtempSync(join(tmpdir(), 'engage-pgbouncer-'));
    chmodSync(dir, 0o777);
    const port = await freePort();
    const ini = join(dir, 'pgbouncer.ini');
    writeFileSync(
      ini,
      [
        '[databases]',
        `* = host=${upstream.hostname} port=${upstream.port || 5432} user=${upstream.username || 'postgres'}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = any',
        'pool_mode = transaction',
        `default_pool_size = ${poolSize}`,
        'max_client_conn = 1000',
        `logfile = ${join(dir, 'pgbouncer.log')}`,
        'ignore_startup_parameters = extra_float_digits',
      ].join('\n'),
    );
    // PgBouncer refuses to run as root.
    const args = asPostgresUser() === undefined ? [ini] : ['-u', 'postgres', ini];
    const child = spawn(debianBinary('/usr/sbin/pgbouncer'), args, { stdio: 'ignore' });
    const bouncer = new PgBouncer(child, dir, port, upstream);
    await eventually(() => bouncer.accepts(), 10_000, 'pgbouncer accepting');
    return bouncer;
  }

  /** The URL of the upstream database, through PgBouncer. */
  get url(): string {
    const url = new URL(this.upstream);
    url.host = `127.0.0.1:${this.port}`;
    return url.toString();
  }

  /** The same database under another name (a fresh database made on the upstream server). */
  urlOf(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.host = `127.0.0.1:${this.port}`;
    return url.toString();
  }

  private async accepts(): Promise<boolean> {
    const client = new pg.Client({ connectionString: this.url });
    try {
      await client.connect();
      await client.query('select 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async stop(): Promise<void> {
    await stopProcess(this.child, 5000);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
