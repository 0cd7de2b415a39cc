import type { Area, Core } from '../core.js';
import { CorsPolicy } from '../http/cors.js';
import { Backpressure } from './backpressure.js';
import { Endpoint } from './endpoint.js';
import { SseEndpoint } from './sse.js';
import { Subscriptions } from './subscriptions.js';

/**
 * Realtime: the WebSocket endpoint, the event streams (SSE) and this node's live delivery. It knows no feature: areas
 * register their topic kinds (core.topics) and client frames (core.frames).
 */
export function realtimeArea(core: Core): Area {
  const { config, log, hub } = core;
  const backpressure = new Backpressure(config.wsMaxBackpressure);
  const subscriptions = new Subscriptions({ hub, topics: core.topics, log, maxSubscriptions: config.wsMaxSubscriptions, backpressure });
  const cors = new CorsPolicy(config.corsOrigins);
  const endpoint = new Endpoint({ config, log, apps: core.apps, cors, limits: core.limits, frames: core.frames, subscriptions, backpressure, hub, shapes: core.shapes });
  const sse = new SseEndpoint({
    log,
    apps: core.apps,
    cors,
    limits: core.limits,
    hub,
    topics: core.topics,
    maxSubscriptions: config.wsMaxSubscriptions,
    maxUnsent: config.wsMaxBackpressure,
    shapes: core.shapes,
  });
  return {
    routes: [],
    attach(app) {
      hub.attach(app, backpressure);
      endpoint.attach(app);
      sse.attach(app);
    },
    async close() {
      endpoint.close();
      sse.close();
      hub.close();
    },
  };
}
