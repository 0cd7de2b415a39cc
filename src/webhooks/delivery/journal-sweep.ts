import type { AppDirectory } from '../../apps/directory.js';
import type { Db } from '../../db/client.js';
import { logFailedTurn } from '../../db/errors.js';
import type { JournalSources } from '../../events/journal-sources.js';
import type { Logger } from '../../logger.js';
import { groupBy } from '../../group-by.js';
import { deliveriesOf, hooksView } from '../registry.js';
import { claimJournal } from '../store/deliveries.js';
import { hooksOf } from '../store/hooks.js';
import type { JournalRow } from '../types.js';
import type { Deliveries } from './pipeline.js';

/** A live node settles its events' journal rows within milliseconds; older ones were left by a crash, an outage or a dropped batch. */
const GRACE_SECONDS = 10;
const SWEEP_MS = 2000;
const BATCH = 500;
/** How long a claim holds rows; a sweeper that died meanwhile leaves them to another after that. */
const HOLD_SECONDS = 60;

export interface JournalSweepDeps {
  db: Db;
  apps: Pick<AppDirectory, 'get'>;
  sources: JournalSources;
  deliveries: Deliveries;
  log: Logger;
  /** False while the disk is full: the sweep waits (the rows stay owed). */
  mayWrite: () => boolean;
}

/**
 * Delivers what journalled events are still owed: every node claims, every SWEEP_MS, journal
 * rows no node settled within GRACE_SECONDS (SKIP LOCKED, so nodes share them), rebuilds each
 * event from what is stored (see JournalSources), and hands its deliveries to Deliveries, which
 * stores them with the settling of the rows. Runs in the serving thread, where the areas that
 * build events live.
 */
export class JournalSweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly deps: JournalSweepDeps) {}

  start(): void {
    this.timer = setInterval(() => {
      if (!this.deps.mayWrite()) return;
      this.running ??= this.sweep()
        .catch((err: unknown) => logFailedTurn(this.deps.log, err, 'webhook journal sweep failed'))
        .finally(() => (this.running = undefined));
    }, SWEEP_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Claims and settles batches until none is left. */
  private async sweep(): Promise<void> {
    for (;;) {
      const claimed = await claimJournal(this.deps.db, GRACE_SECONDS, BATCH, HOLD_SECONDS);
      if (claimed.length === 0) return;
      this.deps.log.warn({ events: claimed.length }, 'delivering webhook events a stopped node or a failed write left owed');
      for (const rows of groupBy(claimed, (r) => `${r.appId} ${r.kind}`).values()) await this.settle(rows);
      if (claimed.length < BATCH) return;
    }
  }

  private async settle(rows: JournalRow[]): Promise<void> {
    const { appId, kind } = rows[0] as JournalRow;
    const keys = rows.map((r) => r.key);
    const app = await this.deps.apps.get(appId);
    const events = app === undefined ? [] : await this.deps.sources.rebuild(kind, app, keys);
    // From the database, not the cached copy: a node that cached the app as having no hook, before
    // one was created on another node, would settle the rows with no delivery.
    const hooks = await hooksOf(this.deps.db, appId);
    const view = hooksView(hooks);
    this.deps.deliveries.add({ keys, views: keys.map(() => view), rows: events.flatMap((event) => deliveriesOf(event, hooks)) });
  }
}
