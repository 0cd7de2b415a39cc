import { Gauge } from 'prom-client';
import type pg from 'pg';
import { registry } from './registry.js';

/**
 * Gauges read when /metrics is scraped, from whatever the running server registered as their
 * source (nothing is counted on the paths that change them).
 */

let pools: { name: string; pool: pg.Pool }[] = [];
let contexts: (() => number) | undefined;
let webhooks: WebhookCounts | undefined;

/** Figures of the webhook tables, shared by every node. */
export interface WebhookCounts {
  queued(): Promise<number>;
  disabled(): Promise<number>;
}

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
  help: 'Telemetry contexts held: in memory on this node (PRESENCE_STORE=memory), or in Redis for the whole cluster (PRESENCE_STORE=redis, refreshed every 5 s)',
  registers: [registry],
  collect() {
    this.set(contexts?.() ?? 0);
  },
});

/** A gauge set from the database at each scrape; while it is unreachable the last value stands (/readyz tells why). */
const databaseGauge = (name: string, help: string, read: (counts: WebhookCounts) => Promise<number>) =>
  new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      if (webhooks === undefined) return;
      try {
        this.set(await read(webhooks));
      } catch {
        // keep the last value
      }
    },
  });

databaseGauge('engage_webhook_queue_depth', 'Webhook deliveries waiting in the outbox (shared by every node)', (w) => w.queued());
databaseGauge('engage_webhook_hooks_disabled', 'Webhooks disabled after WEBHOOK_FAILURE_LIMIT consecutive failures (and not changed since)', (w) => w.disabled());

export const metricSources = {
  pool(name: string, pool: pg.Pool): void {
    pools = [...pools, { name, pool }];
  },
  telemetryContexts(count: () => number): void {
    contexts = count;
  },
  webhooks(counts: WebhookCounts): void {
    webhooks = counts;
  },
  /** A stopped server's sources are forgotten. */
  clear(): void {
    pools = [];
    contexts = undefined;
    webhooks = undefined;
  },
};
