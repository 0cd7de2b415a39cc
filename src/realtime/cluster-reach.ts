import { type Cluster, Redis } from 'ioredis';
import type { Logger } from '../logger.js';

/** How often the masters are pinged while one is thought lost. */
const PROBE_MS = 500;

/**
 * Whether every master of a Redis Cluster answers. The cluster client stays "ready" while one of
 * its masters is away (the others serve their slots), so a lost master is told by its events and
 * failed commands; from then on each master the slot map names is pinged on a connection of this
 * class's own until all answer. One master away is an outage of the bus as a whole: what was
 * published to its slots meanwhile is lost to the other nodes.
 */
export class ClusterReach {
  /** Every master answered the last probe (or none was ever thought lost). */
  whole = true;
  private probing: NodeJS.Timeout | undefined;
  private readonly probes = new Map<string, Redis>();
  private closed = false;

  constructor(
    private readonly cluster: Cluster,
    private readonly log: Logger,
    private readonly onLost: () => void,
    private readonly onWhole: () => void,
  ) {}

  /** A master's connection ended or a command to one failed: probe until every master answers. */
  suspect(): void {
    if (this.closed) return;
    if (this.whole) {
      this.whole = false;
      this.onLost();
    }
    this.probing ??= setTimeout(() => void this.probe(), PROBE_MS);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.probing);
    this.disconnectProbes();
  }

  private async probe(): Promise<void> {
    const masters = new Set(this.cluster.slots.map((owners) => owners[0]).filter((key): key is string => key !== undefined));
    const answers = await Promise.all(
      [...masters].map((key) =>
        this.probeOf(key)
          .ping()
          .then(
            () => true,
            () => false,
          ),
      ),
    );
    this.probing = undefined;
    if (this.closed) return;
    if (masters.size === 0 || answers.includes(false)) {
      this.probing = setTimeout(() => void this.probe(), PROBE_MS);
      return;
    }
    this.disconnectProbes();
    this.whole = true;
    this.log.info({ masters: masters.size }, 'every Redis Cluster master answers again');
    this.onWhole();
  }

  private probeOf(key: string): Redis {
    let probe = this.probes.get(key);
    if (probe === undefined) {
      const [host, port] = splitKey(key);
      const { username, password, tls } = this.cluster.options.redisOptions ?? {};
      probe = new Redis({ host, port, username, password, tls, maxRetriesPerRequest: 0, retryStrategy: () => PROBE_MS, connectTimeout: PROBE_MS * 2 });
      probe.on('error', () => {});
      this.probes.set(key, probe);
    }
    return probe;
  }

  private disconnectProbes(): void {
    for (const probe of this.probes.values()) probe.disconnect();
    this.probes.clear();
  }
}

/** `host:port` (an IPv6 host keeps its colons). */
function splitKey(key: string): [string, number] {
  const colon = key.lastIndexOf(':');
  return [key.slice(0, colon), Number(key.slice(colon + 1))];
}
