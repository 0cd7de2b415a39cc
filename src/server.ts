import { us_listen_socket_close, us_socket_local_port, type us_listen_socket } from 'uWebSockets.js';
import { AppDirectory } from './apps/directory.js';
import { type Config, databaseSettings } from './config.js';
import type { Area, Core } from './core.js';
import { openDatabase } from './db/client.js';
import { PublishHooks } from './events/publish-hooks.js';
import { attachReference } from './docs/reference.js';
import { healthRoutes } from './health/routes.js';
import { CorsPolicy } from './http/cors.js';
import { Drain } from './http/drain.js';
import type { RouteDef } from './http/route.js';
import { createHttpApp } from './http/server.js';
import { listenExclusively } from './http/listen.js';
import type { Logger } from './logger.js';
import { manageRoutes } from './manage/routes.js';
import { attachMetrics } from './metrics/endpoint.js';
import { metricSources } from './metrics/sources.js';
import type { Bus } from './realtime/bus.js';
import { MemoryBus } from './realtime/memory-bus.js';
import { RedisBus } from './realtime/redis-bus.js';
import { realtimeArea } from './realtime/area.js';
import { ClientFrames } from './realtime/client-frames.js';
import { LiveHub } from './realtime/hub.js';
import { Shapes } from './realtime/compact/shapes.js';
import { CompactWriter } from './realtime/compact/writer.js';
import { TopicRegistry } from './realtime/topics.js';
import { newSecret } from './ids.js';
import { Limits } from './limits/limits.js';
import { BoundedSearch } from './db/bounded-search.js';
import { usersArea } from './users/routes.js';
import { chatArea } from './chat/area.js';
import { commentsArea } from './comments/area.js';
import { pollsArea } from './polls/area.js';
import { telemetryArea } from './telemetry/area.js';
import { webhooksArea } from './webhooks/area.js';
import { notificationsArea } from './notifications/routes.js';
import { consoleArea } from './console/static.js';
import { clientScriptArea } from './realtime/client-script.js';
import { UserService } from './users/service.js';
import { backupArea } from './backup/area.js';

/** Every area, in the order they are built; an area may use what earlier ones registered. */
const AREAS: ((core: Core) => Area)[] = [usersArea, chatArea, pollsArea, telemetryArea, realtimeArea, webhooksArea, commentsArea, notificationsArea, consoleArea, clientScriptArea, backupArea];

/** After the listener closes, the stop waits until no request has arrived for this long (see Drain.quiet). */
const LAST_REQUEST_QUIET_MS = 300;

export interface RunningServer {
  port: number;
  core: Core;
  manageToken: string;
  /** Every HTTP route served, as registered. */
  routes: readonly RouteDef[];
  /** Keeps serving, but says 503 on /readyz and closes each connection after its answer (see Drain). */
  beginDrain(): void;
  /** Stops listening, answers every request already received, closes sockets and streams (1001), flushes what is pending, then closes the rest. */
  stop(): Promise<void>;
}

export async function startServer(config: Config, log: Logger): Promise<RunningServer> {
  const database = await openDatabase({ ...databaseSettings(config), log, singleNode: config.redis === undefined });
  const bus = await openBus(config, log);
  const apps = new AppDirectory(database.db, bus);
  const topics = new TopicRegistry();
  const shapes = new Shapes(topics, config.wsCompact.window);
  const core: Core = {
    config,
    log,
    database,
    db: database.db,
    bus,
    apps,
    users: new UserService(database.db, bus, log, config.userCacheEntries),
    hooks: new PublishHooks(),
    topics,
    shapes,
    frames: new ClientFrames(),
    hub: new LiveHub(bus, topics, log, { shapes, writer: new CompactWriter(shapes), ...config.wsCompact }),
    limits: new Limits(config.rateLimits, config.redis, log),
    searches: new BoundedSearch(database, config.searchBounds),
  };
  const areas = AREAS.map((build) => build(core));
  const manageToken = config.manageToken ?? newSecret(24);
  const drain = new Drain();
  const routes = [...healthRoutes(core, drain), ...manageRoutes(core), ...areas.flatMap((a) => a.routes)];
  const app = createHttpApp({
    log,
    apps,
    bodyLimit: config.bodyLimit,
    manageToken,
    cors: new CorsPolicy(config.corsOrigins),
    routes,
    limits: core.limits,
    drain,
    bus,
    storage: database.storage,
  });
  for (const area of areas) area.attach?.(app);
  attachReference(app, routes, { topics, frames: core.frames });
  attachMetrics(app, config.metricsToken);
  if (database.pool !== undefined) metricSources.pool('main', database.pool);

  const listenSocket = await new Promise<us_listen_socket>((resolve, reject) => {
    listenExclusively(app, config.host, config.port, (socket) => (socket ? resolve(socket) : reject(new Error(`Cannot listen on ${config.host}:${config.port}`))));
  });
  const port = us_socket_local_port(listenSocket);
  log.info({ host: config.host, port, database: database.kind, bus: bus.kind }, 'listening');

  return {
    port,
    core,
    manageToken,
    routes,
    beginDrain: () => drain.begin(),
    async stop() {
      drain.begin();
      us_listen_socket_close(listenSocket);
      await drain.quiet(LAST_REQUEST_QUIET_MS);
      for (const area of areas.reverse()) await area.close?.();
      await bus.close();
      await core.limits.close();
      await database.close();
      metricSources.clear();
      app.close();
    },
  };
}

async function openBus(config: Config, log: Logger): Promise<Bus> {
  if (config.redis === undefined) return new MemoryBus(log);
  const bus = new RedisBus(config.redis, log);
  if (!(await bus.waitUntilConnected(5000))) log.warn('redis not reachable at start; serving local subscribers until it is');
  return bus;
}
