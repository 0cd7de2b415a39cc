import type { Db } from '../../db/client.js';
import type { Logger } from '../../logger.js';
import type { Bus } from '../../realtime/bus.js';
import { publishLive } from '../../realtime/live.js';
import * as store from '../store/polls.js';
import { standingsView } from '../views.js';

const INTERVAL_MS = 100;

/** What StandingsPush uses. */
export interface StandingsPushDeps {
  db: Db;
  bus: Bus;
  log: Logger;
}

/**
 * Pushes `poll.standings` to `poll:{pollid}` after votes, at most once per poll per 100 ms:
 * a burst of votes costs one read and one frame per poll, and the last frame is always current.
 */
export class StandingsPush {
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: StandingsPushDeps) {}

  changed(pollIds: Iterable<string>): void {
    for (const id of pollIds) this.dirty.add(id);
    this.timer ??= setTimeout(() => void this.flush(), INTERVAL_MS);
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.dirty.clear();
  }

  private async flush(): Promise<void> {
    const ids = [...this.dirty];
    this.dirty.clear();
    try {
      for (const standings of await store.findStandings(this.deps.db, ids)) {
        publishLive(this.deps.bus, standings.appId, 'poll', standings.pollId, { type: 'poll.standings', data: standingsView(standings) });
      }
    } catch (err) {
      this.deps.log.error({ err }, 'poll standings push failed');
    } finally {
      this.timer = undefined;
      if (this.dirty.size > 0) this.timer = setTimeout(() => void this.flush(), INTERVAL_MS);
    }
  }
}
