import { ChangeClock } from '../../change-clock.js';
import { internal, on, send } from '../../internal-messages.js';
import type { Bus } from '../../realtime/bus.js';

const ALL = '*';
const MAX_CONVERSATIONS = 10_000;
const MAX_PAGES_PER_CONVERSATION = 64;

interface Entry {
  /** The page as JSON. */
  value: string;
  /** Epoch ms after which the page must be read again (a user's ban or mute runs out), or Infinity. */
  expires: number;
}

/**
 * First pages of conversations, kept exact: every committed change to a conversation (and any
 * user change, which alters rendered authors) is announced on the bus, and each node drops the
 * pages concerned. A read that overlapped a change does not store its page: it captured the
 * stamp before reading (`ticket`), and the change is newer. Nothing is kept while the bus is
 * down, and everything is dropped when it comes back (changes announced meanwhile may be lost).
 */
export class PageCache {
  private readonly pages = new Map<string, Map<string, Entry>>();
  private readonly changes = new ChangeClock(MAX_CONVERSATIONS * 10);

  constructor(private readonly bus: Bus) {
    on(bus, internal.userChanged, () => this.dropAll());
    on(bus, internal.commentsChanged, (appId, ids) => {
      if (ids.includes(ALL)) this.dropAll();
      else for (const id of ids) this.drop(key(appId, id));
    });
    bus.onReconnect(() => this.dropAll());
  }

  /** Taken before a page is read from the database; the page is kept only if nothing changed meanwhile. */
  ticket(): number {
    return this.changes.stamp();
  }

  get(appId: string, conversationId: string, page: string): string | undefined {
    const entry = this.pages.get(key(appId, conversationId))?.get(page);
    if (entry === undefined || entry.expires <= Date.now()) return undefined;
    return entry.value;
  }

  put(ticket: number, appId: string, conversationId: string, page: string, value: string, expires: number): void {
    const k = key(appId, conversationId);
    // Without the bus, other nodes' changes would not reach this cache: keep nothing then.
    if (!this.bus.isConnected() || !this.changes.unchangedSince(k, ticket)) return;
    let pages = this.pages.get(k);
    if (pages === undefined) {
      if (this.pages.size >= MAX_CONVERSATIONS) this.pages.clear();
      pages = new Map();
      this.pages.set(k, pages);
    }
    if (pages.size >= MAX_PAGES_PER_CONVERSATION) pages.clear();
    pages.set(page, { value, expires });
  }

  /** After a change to these conversations committed: drop their pages on every node (this one synchronously, as the bus delivers locally at once). */
  changed(appId: string, conversationIds: string[]): void {
    send(this.bus, appId, internal.commentsChanged, conversationIds);
  }

  /** After a change that may touch any conversation (a user's comments purged). */
  changedEverywhere(appId: string): void {
    send(this.bus, appId, internal.commentsChanged, [ALL]);
  }

  private drop(k: string): void {
    this.pages.delete(k);
    this.changes.changed(k);
  }

  private dropAll(): void {
    this.pages.clear();
    this.changes.changedAll();
  }
}

const key = (appId: string, conversationId: string) => `${appId}\u0000${conversationId}`;
