import type { Area, Core } from '../core.js';
import { metricSources } from '../metrics/sources.js';
import { heartbeatFrame, heartbeatHandler } from './heartbeat-frame.js';
import { MemoryPresenceStore } from './memory-store.js';
import type { PresenceStore } from './presence-store.js';
import { RedisPresenceStore } from './redis-store.js';
import { telemetryRoutes } from './routes.js';
import { CONTEXT_TOPIC, SNAPSHOT_SHAPE, TelemetryService } from './service.js';

/** Presence, metrics and gauges: REST routes, the `context:` topic and the heartbeat frame. */
export function telemetryArea(core: Core): Area {
  const { config, log } = core;
  const store: PresenceStore =
    config.presenceStore === 'redis' && config.redis !== undefined
      ? new RedisPresenceStore(config.redis, config.presenceWindowSeconds, config.telemetryLimits, log)
      : new MemoryPresenceStore(core.bus, config.presenceWindowSeconds, config.telemetryLimits);
  const telemetry = new TelemetryService(store, config.telemetryLimits.keysPerContext, core.hub, log);
  metricSources.telemetryContexts(() => store.contextCount());
  core.shapes.register('telemetry.snapshot', SNAPSHOT_SHAPE);
  core.topics.register(CONTEXT_TOPIC, {
    carries: { kind: 'telemetry.snapshot' },
    madeOnEachNode: true,
    snapshot: async (app, contextid) => ({ type: 'telemetry.snapshot', data: await telemetry.subscribed(app.id, contextid) }),
    doc: { events: ['telemetry.snapshot'], who: 'anyone with the app token; once on subscribe, then on every change, at most twice a second' },
  });
  core.frames.register('heartbeat', heartbeatFrame(config.telemetryLimits), heartbeatHandler(telemetry));
  return {
    routes: telemetryRoutes(telemetry, config.telemetryLimits),
    close: () => telemetry.close(),
  };
}
