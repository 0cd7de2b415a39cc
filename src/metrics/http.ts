import type { RouteDef } from '../http/route.js';
import { httpRequestSeconds } from './registry.js';

type Child = ReturnType<typeof httpRequestSeconds.labels>;

/** A route's path as the metrics and the API reference spell it: `:name` becomes `{name}`. */
export const routePattern = (fullPath: string) => fullPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/**
 * Request latency by route pattern and status. Each route's children are bound once per status
 * it answers with; recording a request is two map lookups and a histogram observation.
 */
export class RequestMetrics {
  private readonly routes = new Map<RouteDef, { method: string; pattern: string; byStatus: Map<number, Child> }>();
  /** Requests no route matched (404, 405), by status. */
  private readonly unmatched = new Map<number, Child>();

  add(route: RouteDef, fullPath: string): void {
    this.routes.set(route, { method: route.method, pattern: routePattern(fullPath), byStatus: new Map() });
  }

  observe(route: RouteDef | undefined, status: number, ms: number): void {
    const known = route === undefined ? undefined : this.routes.get(route);
    const byStatus = known?.byStatus ?? this.unmatched;
    let child = byStatus.get(status);
    if (child === undefined) {
      child = known === undefined ? httpRequestSeconds.labels('*', 'unmatched', String(status)) : httpRequestSeconds.labels(known.method, known.pattern, String(status));
      byStatus.set(status, child);
    }
    child.observe(ms / 1000);
  }
}
