import type { Core } from '../core.js';
import { unavailable } from '../errors.js';
import type { Drain } from '../http/drain.js';
import { ok, route, type RouteDef } from '../http/route.js';

export function healthRoutes(core: Core, drain: Drain): RouteDef[] {
  const { bus, database } = core;
  return [
    // The process lives. `degraded`, with the reasons, while its link to the other nodes is down
    // (it fills what it missed when the link returns) or its database's disk is full (writes refused).
    route({
      method: 'GET',
      path: 'healthz',
      scope: 'public',
      handler: () => {
        const busUp = bus.isConnected();
        const reasons = [...(busUp ? [] : ['the link to the other nodes (Redis) is down']), ...(database.storage.full ? [`storage full: ${database.storage.reason}`] : [])];
        return ok({
          kind: 'health',
          alive: true,
          status: reasons.length === 0 ? 'ok' : 'degraded',
          bus: busUp ? 'ok' : 'degraded',
          storage: database.storage.full ? 'degraded' : 'ok',
          reasons,
        });
      },
    }),
    route({
      method: 'GET',
      path: 'readyz',
      scope: 'public',
      errors: [503],
      handler: async () => {
        if (drain.draining) throw unavailable('Not ready: shutting down.', { kind: 'readiness', draining: true });
        const reachable = await database.ping();
        const storage = !database.storage.full;
        const data = { kind: 'readiness', database: reachable, bus: bus.isConnected(), storage, buskind: bus.kind, databasekind: database.kind };
        // A node without the bus still answers every request correctly (see docs/realtime.md): only the database takes it out,
        // out of reach or with its disk full (a balancer then sends the writes to a node that can take them).
        if (!reachable) throw unavailable('Not ready: database unreachable.', data);
        if (!storage) throw unavailable(`Not ready: storage full (${database.storage.reason}); writes are refused, reads go on.`, data);
        return ok(data);
      },
    }),
  ];
}
