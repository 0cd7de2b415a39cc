import type { Core } from '../core.js';
import { unavailable } from '../errors.js';
import type { Drain } from '../http/drain.js';
import { ok, route, type RouteDef } from '../http/route.js';

export function healthRoutes(core: Core, drain: Drain): RouteDef[] {
  return [
    // The process lives; `bus: degraded` while its link to the other nodes is down (it fills what it missed when the link returns).
    route({ method: 'GET', path: 'healthz', scope: 'public', handler: () => ok({ kind: 'health', alive: true, bus: core.bus.isConnected() ? 'ok' : 'degraded' }) }),
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
        // A node without the bus still answers every request correctly (see docs/realtime.md): only the database takes it out.
        if (!database) throw unavailable('Not ready: database unreachable.', data);
        return ok(data);
      },
    }),
  ];
}
