import type { Area, Core } from '../core.js';
import { CorsPolicy } from '../http/cors.js';
import { metricSources } from '../metrics/sources.js';
import { telemetryRoutes } from '../telemetry/routes.js';
import { TelemetryService } from '../telemetry/service.js';
import { Endpoint } from './endpoint.js';
import { LiveHub } from './hub.js';
import { Subscriptions } from './subscriptions.js';

/**
 * Realtime: the WebSocket endpoint, this node's live delivery, and telemetry (presence over
 * REST and WebSocket, pushed to `context:` subscribers), which share one hub.
 */
export function realtimeArea(core: Core): Area {
  const { config, log } = core;
  const hub = new LiveHub(core.bus, log);
  const telemetry = new TelemetryService(core, hub);
  metricSources.telemetryContexts(() => telemetry.contextCount());
  const subscriptions = new Subscriptions({ hub, feeds: core.feeds, telemetry, log, maxSubscriptions: config.wsMaxSubscriptions, maxBackpressure: config.wsMaxBackpressure });
  const endpoint = new Endpoint({ config, log, apps: core.apps, cors: new CorsPolicy(config.corsOrigins), limits: core.limits, telemetry, subscriptions });
  return {
    routes: telemetryRoutes(telemetry),
    attach(app) {
      hub.attach(app);
      endpoint.attach(app);
    },
    async close() {
      endpoint.close();
      telemetry.close();
      hub.close();
    },
  };
}
