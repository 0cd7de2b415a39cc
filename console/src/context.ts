import type { Api } from './api.js';
import type { Live } from './live.js';
import type { Session } from './session.js';

/** What every view works with: the session, its API client and its one WebSocket. */
export interface Ctx {
  session: Session;
  api: Api;
  live: Live;
}
