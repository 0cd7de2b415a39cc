import type { Application } from '../apps/types.js';
import type { PublishedEvent } from './publish-hooks.js';

/** What a webhook_journal row stands for (see migrations 0005 and 0006). */
export type JournalKind = 'chat' | 'comment' | 'commentreaction';

/**
 * Builds again, from what is stored now, the published events of an app whose journal rows
 * outlived their node (a crash, an outage): only what webhooks read (no one to notify).
 * Keys whose event is gone are left out.
 */
export type JournalSource = (app: Application, keys: string[]) => Promise<PublishedEvent[]>;

/** Each journalled kind's source, registered by the area that publishes it. */
export class JournalSources {
  private readonly sources = new Map<JournalKind, JournalSource>();

  add(kind: JournalKind, source: JournalSource): void {
    this.sources.set(kind, source);
  }

  rebuild(kind: JournalKind, app: Application, keys: string[]): Promise<PublishedEvent[]> {
    const source = this.sources.get(kind);
    if (source === undefined) throw new Error(`no journal source for ${kind}`);
    return source(app, keys);
  }
}
