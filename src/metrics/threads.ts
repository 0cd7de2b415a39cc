import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import { registry } from './registry.js';

/** A registry's values as a thread posts them to the main thread. */
export type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

/** How often a worker thread posts its metrics to the main thread. */
export const THREAD_REPORT_MS = 1000;

const snapshots = new Map<string, MetricsSnapshot>();

/** The latest values of a worker thread's registry (replacing its previous ones). */
export function reportThreadMetrics(thread: string, snapshot: MetricsSnapshot): void {
  snapshots.set(thread, snapshot);
}

export function threadSnapshots(): MetricsSnapshot[] {
  return [...snapshots.values()];
}

/** This thread's values, for posting to the main thread. */
export async function snapshotMetrics(): Promise<MetricsSnapshot> {
  return (await registry.getMetricsAsJSON()) as MetricsSnapshot;
}
