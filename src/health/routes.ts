import type { Core } from '../core.js';
import { unavailable } from '../errors.js';
import type { Drain } from '../http/drain.js';
import { ok, route, type RouteDef } from '../http/route.js';

export function healthRoutes(core: Core, drain: Drain): RouteDef[] {
  return [
    route({ method: 'GET', path: 'healthz', scope: 'public', handler: () => ok({ kind: 'health', alive: true }) }),
    route({
      method: 'GET',
      path: 'readyz',
      scope: 'public',
      errors: [503],
      handler: async () => {
        if (drain.draining) throw unavailable('Not ready: shutting down.', { kind: 'readiness', draining: true });
        const database = await core.database.ping();
        const bus = core.bus.isConnected();
        const data = { kind: 'readiness', database, bus, buskind: core.bus.kind, databasekind: core.database.kind };
        if (!database || !bus) throw unavailable(`Not ready: ${!database ? 'database unreachable' : 'bus disconnected'}.`, data);
        return ok(data);
      },
    }),
  ];
}
