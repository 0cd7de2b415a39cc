import { Gauge } from 'prom-client';
import type pg from 'pg';
import { registry } from './registry.js';

/**
 * Gauges read when /metrics is scraped, from whatever the running server registered as their
 * source (nothing is counted on the paths that change them).
 */

let pools: { name: string; pool: pg.Pool }[] = [];
let contexts: (() => number) | undefined;
let webhookQueue: (() => Promise<number>) | undefined;

new Gauge({
  name: 'engage_db_pool_connections',
  help: 'Postgres pool connections by pool and state: total, idle, and waiting (requests queued for a connection); absent on the embedded database',
  labelNames: ['pool', 'state'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const { name, pool } of pools) {
      this.labels(name, 'total').set(pool.totalCount);
      this.labels(name, 'idle').set(pool.idleCount);
      this.labels(name, 'waiting').set(pool.waitingCount);
    }
  },
});

new Gauge({
  name: 'engage_telemetry_contexts',
  help: 'Telemetry contexts held in memory on this node',
  registers: [registry],
  collect() {
    this.set(contexts?.() ?? 0);
  },
});

new Gauge({
  name: 'engage_webhook_queue_depth',
  help: 'Webhook deliveries waiting in the outbox (shared by every node)',
  registers: [registry],
  async collect() {
    try {
      if (webhookQueue !== undefined) this.set(await webhookQueue());
    } catch {
      // Database unreachable: the last value stands; /readyz tells why.
    }
  },
});

export const metricSources = {
  pool(name: string, pool: pg.Pool): void {
    pools = [...pools, { name, pool }];
  },
  telemetryContexts(count: () => number): void {
    contexts = count;
  },
  webhookQueue(depth: () => Promise<number>): void {
    webhookQueue = depth;
  },
  /** A stopped server's sources are forgotten. */
  clear(): void {
    pools = [];
    contexts = undefined;
    webhookQueue = undefined;
  },
};
