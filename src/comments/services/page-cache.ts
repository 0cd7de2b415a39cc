import { ChangeClock } from '../../change-clock.js';
import { internal, on, send } from '../../internal-messages.js';
import type { Bus } from '../../realtime/bus.js';
import { SharedAnswers, withItsAnswer } from '../../shared-answers.js';

const ALL = '*';
/** Conversations whose last change is remembered at most (see ChangeClock). */
const REMEMBERED = 100_000;

/** A first page as sent, and until when it holds. */
export interface CommentPage {
  json: Buffer;
  /** Date.now() past which the page must be read again (a rendered user's ban or mute runs out), or Infinity. */
  expires: number;
}

/**
 * First pages of conversations, a crowd's reads when it opens the comments, made once per change
 * and shared (SharedAnswers): every committed change to a conversation (and any user change of its
 * app, which may alter rendered authors) is announced on the bus, and moves the conversation's
 * version on each node; a page is shared only at the version it was read at. Nothing is shared while the bus
 * is down, and every version moves when it comes back (changes announced meanwhile may be lost).
 */
export class PageCache {
  private readonly pages: SharedAnswers<CommentPage>;
  private readonly changes = new ChangeClock(REMEMBERED);

  constructor(
    private readonly bus: Bus,
    maxBytes: number,
  ) {
    this.pages = new SharedAnswers({ name: 'comment_page', maxBytes, sizeOf: (page) => withItsAnswer(page.json.length), expiresAt: (page) => page.expires });
    // A user's change alters the authors a page of their app may show.
    on(bus, internal.userChanged, (appId) => this.changes.changed(appId));
    on(bus, internal.commentsChanged, (appId, ids) => {
      if (ids.includes(ALL)) this.changes.changed(appId);
      else for (const id of ids) this.changes.changed(key(appId, id));
    });
    bus.onReconnect(() => this.changes.changedAll());
  }

  /**
   * The first page `page` of a conversation for a request that began at `began` (performance.now()):
   * the one shared at its version, else made by `read`. On one node every change is heard before
   * it is answered; on several, another node's announcement may still be on its way when its
   * writer answers, so a page is shared only with requests that began before its read started.
   * `shared`: the page is the one other requests get too (not while the bus is down).
   */
  async take(appId: string, conversationId: string, page: string, began: number, read: () => Promise<CommentPage>): Promise<{ json: Buffer; shared: boolean }> {
    // Without the bus, other nodes' changes would not reach this node: share nothing then.
    if (!this.bus.isConnected()) return { json: (await read()).json, shared: false };
    const k = key(appId, conversationId);
    const version = `${this.changes.versionOf(appId)}/${this.changes.versionOf(k)}`;
    return { json: (await this.pages.take(`${k}\u0000${page}`, this.bus.kind === 'memory' ? { version } : { version, since: began }, read)).json, shared: true };
  }

  /** After a change to these conversations committed: every node's pages of them are out of date (this one's at once, as the bus delivers locally at once). */
  changed(appId: string, conversationIds: string[]): void {
    send(this.bus, appId, internal.commentsChanged, conversationIds);
  }

  /** After a change that may touch any conversation (a user's comments purged). */
  changedEverywhere(appId: string): void {
    send(this.bus, appId, internal.commentsChanged, [ALL]);
  }
}

const key = (appId: string, conversationId: string) => `${appId}\u0000${conversationId}`;
