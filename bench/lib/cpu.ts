import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far (Linux /proc). */
export function cpuSeconds(pid: number): number {
  return ticksIn(`/proc/${pid}/stat`);
}

/**
 * CPU seconds a process's main thread (the one running its JavaScript, the embedded database's
 * included) has used so far: its share of the wall time is how busy the event loop was.
 */
export function mainThreadCpuSeconds(pid: number): number {
  return ticksIn(`/proc/${pid}/task/${pid}/stat`);
}

function ticksIn(statFile: string): number {
  const stat = readFileSync(statFile, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** CPU seconds used so far by every running Postgres process of this machine (a process gone meanwhile drops out). */
export function postgresCpuSeconds(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += cpuSeconds(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return total;
}

/**
 * The Postgres backends connected to the database `client` is on, but its own (the server's pool):
 * their CPU (pidsCpuSeconds) is the database's work for that server, apart from other databases'
 * on the same machine.
 */
async function databaseBackendPids(client: pg.Client): Promise<number[]> {
  const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
  return rows.map((r) => r.pid);
}

/**
 * Starts counting the CPU of the backends of `url`'s database (the server's pool) from now: the
 * returned function gives the seconds they used since, those that connected meanwhile included
 * (all of theirs: a pool that let its connections go while idle opens new ones under the load).
 * 0 on the embedded database (no `url`), which runs in the server's process.
 */
export async function databaseCpuFrom(url: string | undefined): Promise<() => Promise<number>> {
  if (url === undefined) return async () => 0;
  // One connection lists the backends at both ends, so that neither list holds the other's lister.
  const lister = new pg.Client({ connectionString: url });
  await lister.connect();
  const before = pidsCpuSeconds(await databaseBackendPids(lister));
  return async () => {
    try {
      let used = 0;
      for (const [pid, seconds] of pidsCpuSeconds(await databaseBackendPids(lister))) used += seconds - (before.get(pid) ?? 0);
      return used;
    } finally {
      await lister.end();
    }
  };
}

/** CPU seconds so far of each of these processes still running. */
function pidsCpuSeconds(pids: number[]): Map<number, number> {
  const seconds = new Map<number, number>();
  for (const pid of pids) {
    try {
      seconds.set(pid, cpuSeconds(pid));
    } catch {
      // the backend ended (the pool let its connection go)
    }
  }
  return seconds;
}

/**
 * Waits until the server has finished the requests a load left behind: autocannon stops sending,
 * not the server working, and a slow read's queue would otherwise be counted in the next one.
 */
export async function settled(pid: number): Promise<void> {
  for (let tries = 0; tries < 600; tries++) {
    const before = cpuSeconds(pid);
    await new Promise((r) => setTimeout(r, 250));
    if (cpuSeconds(pid) - before < 0.02) return;
  }
}
