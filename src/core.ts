import type { TemplatedApp } from 'uWebSockets.js';
import type { AppDirectory } from './apps/directory.js';
import type { Config } from './config.js';
import type { BoundedSearch } from './db/bounded-search.js';
import type { Database, Db } from './db/client.js';
import type { PublishHooks } from './events/publish-hooks.js';
import type { RouteDef } from './http/route.js';
import type { Limits } from './limits/limits.js';
import type { Logger } from './logger.js';
import type { Bus } from './realtime/bus.js';
import type { ClientFrames } from './realtime/client-frames.js';
import type { LiveHub } from './realtime/hub.js';
import type { Shapes } from './realtime/compact/shapes.js';
import type { TopicRegistry } from './realtime/topics.js';
import type { UserService } from './users/service.js';

/** What every area is built from. main.ts makes one and hands it to each area in turn. */
export interface Core {
  config: Config;
  log: Logger;
  database: Database;
  db: Db;
  bus: Bus;
  apps: AppDirectory;
  users: UserService;
  hooks: PublishHooks;
  /** Topic kinds WebSocket clients may subscribe to, each registered by its area. */
  topics: TopicRegistry;
  /** The compact shapes of the objects topics carry, each registered by the area that owns the kind. */
  shapes: Shapes;
  /** Client frames areas handle (beyond the protocol's own). */
  frames: ClientFrames;
  /** This node's delivery to its own WebSocket subscribers. */
  hub: LiveHub;
  limits: Limits;
  /** Runs the searches within their timeout and this node's cap on searches at once. */
  searches: BoundedSearch;
}

/** An area (chat, comments, ...) contributes routes and may hook into the uWS app and shutdown. */
export interface Area {
  routes: RouteDef[];
  attach?(app: TemplatedApp): void;
  close?(): Promise<void>;
}
