import { Registry } from 'prom-client';
import { HistogramFamily, ValueFamily } from './family.js';

/**
 * Every metric of this process, in one registry (GET /metrics). Hot paths hold their series
 * (cells) bound once, here or by their owner, so recording allocates nothing.
 * The webhook delivery thread has its own copy of this module; it posts its registry's values
 * to the main thread, which adds them in (see src/metrics/threads.ts).
 */
export const registry = new Registry();

const PREFIX = 'engage_';
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SIZE_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000];

export const httpRequestSeconds = new HistogramFamily(
  registry,
  `${PREFIX}http_request_duration_seconds`,
  'HTTP requests by method, route pattern and status: latency (its _count is the number of requests)',
  ['method', 'route', 'status'],
  LATENCY_BUCKETS,
);

const wsFramesSent = new ValueFamily(registry, `${PREFIX}ws_frames_sent_total`, 'WebSocket frames sent: direct (answers, replays) or published (live events, one per subscribed socket)', 'counter', [
  'kind',
]);

const wsRefused = new ValueFamily(registry, `${PREFIX}ws_upgrades_refused_total`, 'WebSocket upgrades refused past a connection cap (503: the process, 429: the address)', 'counter', ['status']);

export const wsMetrics = {
  connections: new ValueFamily(registry, `${PREFIX}ws_connections`, 'Open WebSocket connections', 'gauge', []).cell(),
  subscriptions: new ValueFamily(registry, `${PREFIX}ws_subscriptions`, 'Topic subscriptions held by open WebSocket connections', 'gauge', []).cell(),
  framesIn: new ValueFamily(registry, `${PREFIX}ws_frames_received_total`, 'WebSocket frames received from clients', 'counter', []).cell(),
  framesSentDirect: wsFramesSent.cell('direct'),
  framesSentPublished: wsFramesSent.cell('published'),
  slowConsumersClosed: new ValueFamily(
    registry,
    `${PREFIX}ws_slow_consumers_closed_total`,
    'WebSocket connections closed with 4008 (more unsent bytes than WS_MAX_BACKPRESSURE)',
    'counter',
    [],
  ).cell(),
  /** Upgrades refused past a connection cap: 503, this process is full; 429, the address is. */
  refusedFull: wsRefused.cell('503'),
  refusedAddress: wsRefused.cell('429'),
};

/** Each listener is called with every live item of its topic: it must go with its subscriber. */
export const liveMetrics = {
  listeners: new ValueFamily(
    registry,
    `${PREFIX}live_listeners`,
    "Listeners on live topics besides uWS's own: each event stream's topics, and each WebSocket resume still replaying or in its grace period",
    'gauge',
    [],
  ).cell(),
};

export const sseMetrics = {
  connections: new ValueFamily(registry, `${PREFIX}sse_connections`, 'Open server-sent event streams (GET /api/v3/{appid}/sse)', 'gauge', []).cell(),
};

const busMessages = new ValueFamily(registry, `${PREFIX}bus_messages_total`, 'Bus messages published by this node, and received from other nodes', 'counter', ['direction']);

export const busMetrics = {
  published: busMessages.cell('published'),
  received: busMessages.cell('received'),
  /** Part of `received`: live items, which reach only the nodes that take an interest in their topic. */
  receivedLive: new ValueFamily(
    registry,
    `${PREFIX}bus_live_messages_received_total`,
    "Topics' live items received from other nodes (on the topic channels this node subscribes to)",
    'counter',
    [],
  ).cell(),
  reconnects: new ValueFamily(registry, `${PREFIX}bus_reconnects_total`, 'Redis bus connections established again after being lost', 'counter', []).cell(),
  /** Live items not sent to other nodes (the link was down, or Redis refused them): their nodes read them from the feed. */
  unsent: busMessages.cell('unsent'),
  outages: new ValueFamily(registry, `${PREFIX}bus_outages_total`, "Times this node's link to the other nodes (Redis) was lost", 'counter', []).cell(),
  /** Writes answered before every node acknowledged their broadcasts (BroadcastAcks): a node slow or gone. */
  ackTimeouts: new ValueFamily(registry, `${PREFIX}bus_ack_timeouts_total`, 'Broadcasts not acknowledged by every node that received them within a second', 'counter', []).cell(),
};

/** Holes in live topics this node filled from the feed (lost bus messages, items out of order, items subscribers may not see). */
export const gapMetrics = {
  fills: new ValueFamily(registry, `${PREFIX}live_gap_fills_total`, "Reads of a live topic's feed to fill a hole in what this node delivered (once per topic, not per socket)", 'counter', []).cell(),
  filledEvents: new ValueFamily(registry, `${PREFIX}live_gap_filled_events_total`, 'Live items delivered from the feed because the bus had not brought them in order', 'counter', []).cell(),
};

const commitBatchSize = new HistogramFamily(
  registry,
  `${PREFIX}group_commit_batch_size`,
  'Items written or read together by one group-commit statement, per writer (or batched reader)',
  ['writer'],
  SIZE_BUCKETS,
);
const commitSeconds = new HistogramFamily(registry, `${PREFIX}group_commit_duration_seconds`, 'Time one group-commit write took to commit, per writer', ['writer'], LATENCY_BUCKETS);

export interface CommitMetrics {
  /** One write of `size` items that started at `startedMs` (performance.now()) has finished. */
  observe(size: number, startedMs: number): void;
}

/** The series of one group-commit writer (chat feed, votes, comments, notifications, webhook outbox). */
export function commitMetrics(writer: string): CommitMetrics {
  const size = commitBatchSize.cell(writer);
  const seconds = commitSeconds.cell(writer);
  return {
    observe(n, startedMs) {
      size.observe(n);
      seconds.observe((performance.now() - startedMs) / 1000);
    },
  };
}

/** The storage state (StorageGuard): out of space, writes refused. */
export const storageMetrics = {
  full: new ValueFamily(registry, `${PREFIX}storage_full`, "1 while the database's disk is full and writes are refused (507), else 0", 'gauge', []).cell(),
  episodes: new ValueFamily(registry, `${PREFIX}storage_full_episodes_total`, 'Times the storage became full', 'counter', []).cell(),
  refused: new ValueFamily(registry, `${PREFIX}storage_writes_refused_total`, 'Writes refused (507) because the storage was full', 'counter', []).cell(),
  freeBytes: new ValueFamily(
    registry,
    `${PREFIX}storage_free_bytes`,
    "Bytes free on the embedded database's disk, the reserve it holds not counted (Postgres: 0, its disk is not this process's)",
    'gauge',
    [],
  ).cell(),
};

/** As the embedded database reports it once open (Postgres: 0, its buffers are its own setting). */
export const embeddedSharedBuffers = new ValueFamily(
  registry,
  `${PREFIX}embedded_shared_buffers_bytes`,
  "Bytes of the embedded database's shared buffers (EMBEDDED_SHARED_BUFFERS), its cache of table and index pages",
  'gauge',
  [],
).cell();

export const webhookMetrics = {
  attempts: new ValueFamily(registry, `${PREFIX}webhook_attempts_total`, 'Webhook delivery attempts (HTTP requests sent, or found undeliverable)', 'counter', []).cell(),
  failures: new ValueFamily(registry, `${PREFIX}webhook_failures_total`, 'Webhook delivery attempts that failed (no answer, or a status other than 2xx)', 'counter', []).cell(),
};
