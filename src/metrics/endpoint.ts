import { timingSafeEqual } from 'node:crypto';
import { AggregatorRegistry, collectDefaultMetrics } from 'prom-client';
import type { TemplatedApp } from 'uWebSockets.js';
import { envelope } from '../http/envelope.js';
import { getAndHead } from '../http/head.js';
import { sendPlain } from '../http/plain.js';
import { registry } from './registry.js';
import { threadSnapshots, type MetricsSnapshot } from './threads.js';

const JSON_TYPE = 'application/json; charset=utf-8';
/**
 * How often the event-loop delay histogram samples. prom-client's default, 10 ms, wakes an idle
 * server 100 times a second: over half of its idle CPU. A blocked loop still shows as lag.
 */
const EVENT_LOOP_SAMPLE_MS = 100;
let defaultsCollected = false;

/**
 * GET /metrics in the Prometheus text format: this process's registry, Node's default metrics,
 * and the values worker threads posted. With METRICS_TOKEN set, only `Authorization: Bearer
 * <token>` may read it (401 without credentials, 403 with others).
 */
export function attachMetrics(app: TemplatedApp, token: string | undefined): void {
  if (!defaultsCollected) {
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    defaultsCollected = true;
  }
  const expected = token === undefined ? undefined : Buffer.from(`Bearer ${token}`);
  getAndHead(app, '/metrics', (res, req, head) => {
    if (expected !== undefined) {
      const given = Buffer.from(req.getHeader('authorization'));
      if (given.length === 0) return sendPlain(res, 401, JSON_TYPE, envelope(401, 'Metrics need Authorization: Bearer <METRICS_TOKEN>.', null), [['www-authenticate', 'Bearer']], head);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return sendPlain(res, 403, JSON_TYPE, envelope(403, 'The metrics token is not valid.', null), [], head);
    }
    sendPlain(res, 200, registry.contentType, render(), [], head);
  });
}

async function render(): Promise<string> {
  const threads = threadSnapshots();
  if (threads.length === 0) return registry.metrics();
  const own = (await registry.getMetricsAsJSON()) as MetricsSnapshot;
  return AggregatorRegistry.aggregate([own, ...threads]).metrics();
}
