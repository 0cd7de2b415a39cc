import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Every metric of this process, in one registry (GET /metrics). Hot paths hold label children
 * bound once (below, or cached by their owner), so recording allocates nothing.
 * The webhook delivery thread has its own copy of this module; it posts its registry's values
 * to the main thread, which adds them in (see src/metrics/endpoint.ts).
 */
export const registry = new Registry();

const PREFIX = 'engage_';
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SIZE_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000];

export const httpRequestSeconds = new Histogram({
  name: `${PREFIX}http_request_duration_seconds`,
  help: 'HTTP requests by method, route pattern and status: latency (its _count is the number of requests)',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

const wsConnectionsGauge = new Gauge({ name: `${PREFIX}ws_connections`, help: 'Open WebSocket connections', registers: [registry] });
const wsSubscriptionsGauge = new Gauge({ name: `${PREFIX}ws_subscriptions`, help: 'Topic subscriptions held by open WebSocket connections', registers: [registry] });
const wsFramesIn = new Counter({ name: `${PREFIX}ws_frames_received_total`, help: 'WebSocket frames received from clients', registers: [registry] });
const wsFramesOut = new Counter({
  name: `${PREFIX}ws_frames_sent_total`,
  help: 'WebSocket frames sent: direct (answers, replays) or published (live events, one per subscribed socket)',
  labelNames: ['kind'] as const,
  registers: [registry],
});
const wsSlowConsumers = new Counter({ name: `${PREFIX}ws_slow_consumers_closed_total`, help: 'WebSocket connections closed with 4008 (more unsent bytes than WS_MAX_BACKPRESSURE)', registers: [registry] });

export const wsMetrics = {
  connections: wsConnectionsGauge,
  subscriptions: wsSubscriptionsGauge,
  framesIn: wsFramesIn,
  framesSentDirect: wsFramesOut.labels('direct'),
  framesSentPublished: wsFramesOut.labels('published'),
  slowConsumersClosed: wsSlowConsumers,
};

const busMessages = new Counter({
  name: `${PREFIX}bus_messages_total`,
  help: 'Bus messages published by this node, and received from other nodes',
  labelNames: ['direction'] as const,
  registers: [registry],
});

export const busMetrics = {
  published: busMessages.labels('published'),
  received: busMessages.labels('received'),
  reconnects: new Counter({ name: `${PREFIX}bus_reconnects_total`, help: 'Redis bus connections established again after being lost', registers: [registry] }),
};

const commitBatchSize = new Histogram({
  name: `${PREFIX}group_commit_batch_size`,
  help: 'Items written together by one group-commit write, per writer',
  labelNames: ['writer'] as const,
  buckets: SIZE_BUCKETS,
  registers: [registry],
});
const commitSeconds = new Histogram({
  name: `${PREFIX}group_commit_duration_seconds`,
  help: 'Time one group-commit write took to commit, per writer',
  labelNames: ['writer'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export interface CommitMetrics {
  /** One write of `size` items that started at `startedMs` (performance.now()) has finished. */
  observe(size: number, startedMs: number): void;
}

/** The bound children of one group-commit writer (chat feed, votes, comments, notifications, webhook outbox). */
export function commitMetrics(writer: string): CommitMetrics {
  const size = commitBatchSize.labels(writer);
  const seconds = commitSeconds.labels(writer);
  return {
    observe(n, startedMs) {
      size.observe(n);
      seconds.observe((performance.now() - startedMs) / 1000);
    },
  };
}

export const webhookMetrics = {
  attempts: new Counter({ name: `${PREFIX}webhook_attempts_total`, help: 'Webhook delivery attempts (HTTP requests sent, or found undeliverable)', registers: [registry] }),
  failures: new Counter({ name: `${PREFIX}webhook_failures_total`, help: 'Webhook delivery attempts that failed (no answer, or a status other than 2xx)', registers: [registry] }),
};
