import type { Db } from '../../db/client.js';
import { logFailedTurn } from '../../db/errors.js';
import { idAt } from '../../ids.js';
import type { Logger } from '../../logger.js';
import * as store from '../store/deliveries.js';

/** Rows per delete statement: short statements, so deliveries' own statements are not held up long. */
const BATCH = 5000;
const MAX_INTERVAL_MS = 10 * 60_000;

/**
 * Forgets deliveries older than the retention: log entries, and the messages no longer waiting
 * in the outbox (a pending one is kept, however old, until it is delivered or given up). Every
 * node runs one; SKIP LOCKED lets several share a pass without waiting on each other. A pass
 * runs every tenth of the retention (at least every second, at most every 10 minutes).
 */
export class LogPruner {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly retentionSeconds: number,
    private readonly mayWrite: () => boolean,
  ) {}

  /** Does nothing when the retention is 0 (keep everything). */
  start(): void {
    if (this.retentionSeconds > 0) this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.pass;
  }

  private schedule(): void {
    this.timer = setTimeout(
      () => {
        this.pass = this.prune().finally(() => {
          this.pass = undefined;
          if (!this.stopped) this.schedule();
        });
      },
      Math.min(MAX_INTERVAL_MS, Math.max(1000, (this.retentionSeconds * 1000) / 10)),
    );
    this.timer.unref();
  }

  private async prune(): Promise<void> {
    if (!this.mayWrite()) return;
    const before = idAt(Date.now() - this.retentionSeconds * 1000);
    let entries = 0;
    let messages = 0;
    try {
      for (;;) {
        const e = await store.pruneLog(this.db, before, BATCH);
        const m = await store.pruneMessages(this.db, before, BATCH);
        entries += e;
        messages += m;
        if ((e < BATCH && m < BATCH) || this.stopped) break;
      }
    } catch (err) {
      logFailedTurn(this.log, err, 'pruning old webhook deliveries failed');
    }
    if (entries + messages > 0) this.log.debug({ entries, messages }, 'pruned old webhook deliveries');
  }
}
