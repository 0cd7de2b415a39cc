import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { connectPostgres } from '../../db/client.js';
import { createLogger } from '../../logger.js';
import { metricSources } from '../../metrics/sources.js';
import { snapshotMetrics, THREAD_REPORT_MS } from '../../metrics/threads.js';
import type { DeliveryThreadSettings, FromDeliveryThread, ToDeliveryThread } from './delivery-thread.js';
import { DeliveryPipeline } from './pipeline.js';

// The thread side of DeliveryThread.
const port = parentPort;
if (port === null) throw new Error('delivery-thread-entry runs as a worker thread');
const settings = workerData as DeliveryThreadSettings;
lowerPriority();
const log = createLogger(settings.logLevel, { buffered: false }).child({ area: 'webhooks', thread: 'delivery' });
// The outbox writer and the delivery loop each run one statement at a time.
const { db, pool } = connectPostgres(settings.databaseUrl, log, { max: 4, name: 'engage-webhooks', pooler: settings.databasePooler });
metricSources.pool('webhooks', pool);
const pipeline = new DeliveryPipeline(db, log, settings, (appId) => port.postMessage({ disabled: appId } satisfies FromDeliveryThread));

// The main thread serves /metrics: it adds in what this thread counted.
const reporter = setInterval(() => void snapshotMetrics().then((metrics) => port.postMessage({ metrics } satisfies FromDeliveryThread)), THREAD_REPORT_MS);
reporter.unref();

port.on('message', (message: ToDeliveryThread) => {
  if ('owed' in message) {
    pipeline.add(message.owed);
    return;
  }
  pipeline
    .close()
    .then(() => pool.end())
    .catch((err: unknown) => log.error({ err }, 'closing the webhook delivery thread failed'))
    .finally(() => process.exit(0));
});

/**
 * When the CPUs are busy, serving requests goes first and deliveries take the time left:
 * on Linux a thread has its own nice value, set through its thread id.
 */
function lowerPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    setPriority(tid, 10);
  } catch {
    // Not Linux, or not allowed: the thread keeps the process's priority.
  }
}
