import { routePattern } from '../http/paths.js';
import type { RouteDef } from '../http/route.js';
import type { HistogramCell } from './family.js';
import { httpRequestSeconds } from './registry.js';

/**
 * Request latency by route pattern and status. Each route's series are bound once per status
 * it answers with; recording a request is two map lookups and a histogram observation.
 */
export class RequestMetrics {
  private readonly routes = new Map<RouteDef, { method: string; pattern: string; byStatus: Map<number, HistogramCell> }>();
  /** Requests no route matched (404, 405), by status. */
  private readonly unmatched = new Map<number, HistogramCell>();

  add(route: RouteDef, fullPath: string): void {
    this.routes.set(route, { method: route.method, pattern: routePattern(fullPath), byStatus: new Map() });
  }

  observe(route: RouteDef | undefined, status: number, ms: number): void {
    const known = route === undefined ? undefined : this.routes.get(route);
    const byStatus = known?.byStatus ?? this.unmatched;
    let cell = byStatus.get(status);
    if (cell === undefined) {
      cell = known === undefined ? httpRequestSeconds.cell('*', 'unmatched', String(status)) : httpRequestSeconds.cell(known.method, known.pattern, String(status));
      byStatus.set(status, cell);
    }
    cell.observe(ms / 1000);
  }
}
