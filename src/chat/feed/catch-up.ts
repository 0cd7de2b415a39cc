import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import type { CommitVersions } from '../../db/commit-versions.js';
import { ReadBatcher } from '../../db/read-batcher.js';
import { jsonOnce } from '../../json-once.js';
import type { FeedPage, LiveMessage } from '../../realtime/live.js';
import { atVersionOrSince, SharedAnswers } from '../../shared-answers.js';
import type { EventViews } from '../services/event-views.js';
import { feedRange } from '../store/events.js';
import type { Logger } from '../../logger.js';
import { feedHeads } from '../store/rooms.js';
import { updatesCursor } from './cursor.js';

/** Catch-up reads the feed in blocks of this many positions, aligned so that fans at nearby cursors share them. */
export const CATCH_UP_BLOCK = 500;
/** Bytes an item costs beyond its JSON and the frame made from it (the view object). */
const ITEM_OVERHEAD = 256;

interface Block {
  /** Events everyone may see, oldest first. */
  items: LiveMessage[];
  /** The events revision and the last position it was read at. */
  revision: number;
  end: number;
}

export interface Head {
  seq: number;
  revision: number;
}

export interface CatchUpDeps {
  db: Db;
  log: Logger;
  views: EventViews;
  /** Versions of rooms as this process heard their commits (Database.commits); undefined where it cannot (a cluster, a transaction pooler). */
  commits: CommitVersions | undefined;
  /** Bytes of blocks held at most (CATCH_UP_CACHE_MB). */
  maxBytes: number;
}

/**
 * The feed after a cursor as a crowd resuming at once reads it: the room's head is read once for
 * every resume that began before the read started, and the feed in aligned blocks of
 * CATCH_UP_BLOCK positions, each read and viewed once per (events revision, end) and held while
 * memory allows. A stadium resuming after a blip makes a handful of reads, not one per fan; the
 * items are the same objects for everyone, so their frames are made once too (see resume.ts).
 * Any change in place (edit, removal, reaction counts, reset) moves the room's events revision, and
 * with it every block's version.
 * What only one viewer may see (their own shadow-banned events) is never in a block, and an item's
 * `prev` (which depends on where a subscriber started) is left to the resume.
 */
export class CatchUpBlocks {
  private readonly heads = new SharedAnswers<Head>({ name: 'feed_head', maxBytes: 1 << 20, sizeOf: () => 64 });
  private readonly blocks: SharedAnswers<Block>;
  /** Heads read together with the other rooms' asked for at the same moment. */
  private readonly headReads: ReadBatcher<string, Head & { roomId: string }>;

  constructor(private readonly deps: CatchUpDeps) {
    this.blocks = new SharedAnswers({ name: 'catch_up_block', maxBytes: deps.maxBytes, sizeOf: blockBytes });
    this.headReads = new ReadBatcher({ read: (ids) => feedHeads(deps.db, ids), keyOf: (id) => id, keyOfValue: (head) => head.roomId, log: deps.log, name: 'feed_heads' });
  }

  /**
   * Up to `limit` items after `seq` that everyone may see, and the cursor that continues after
   * them; every event committed before `began` (performance.now()) is within reach.
   */
  async after(app: Application, roomId: string, seq: number, cursor: string, limit: number, began: number): Promise<FeedPage> {
    const head = await this.head(app, roomId, began);
    const items: LiveMessage[] = [];
    let examined = seq;
    while (examined < head.seq) {
      const index = Math.floor(examined / CATCH_UP_BLOCK);
      const end = Math.min(head.seq, (index + 1) * CATCH_UP_BLOCK);
      const block = await this.block(app, roomId, index, end, head.revision);
      for (const item of block.items) {
        if ((item.seq as number) <= examined) continue;
        if (items.length === limit) return { items, cursor: updatesCursor(examined), seq: examined, from: seq };
        items.push(item);
        examined = item.seq as number;
      }
      examined = end;
    }
    return { items, cursor: examined === seq ? cursor : updatesCursor(examined), seq: examined, from: seq };
  }

  /**
   * The room's head and events revision, read once per version of the room's row where commits
   * are heard (CommitVersions), else once for every caller that began (performance.now()) before the read started.
   */
  head(app: Application, roomId: string, began: number): Promise<Head> {
    return this.heads.take(`${app.id}/${roomId}`, atVersionOrSince(this.deps.commits?.room(roomId), began), async () => (await this.headReads.get(roomId)) ?? { seq: 0, revision: 0 });
  }

  /**
   * The block's items up to `end`. The newest block grows with every post while a crowd resumes:
   * held at the same revision up to an earlier end, only the positions after it are read, and the
   * items it had stay the same objects (their frames made once).
   */
  private block(app: Application, roomId: string, index: number, end: number, revision: number): Promise<Block> {
    return this.blocks.take(blockKey(app, roomId, index), { version: `${revision}/${end}` }, async (replaced) => {
      const grows = replaced !== undefined && replaced.revision === revision && replaced.end < end;
      const rows = await feedRange(this.deps.db, roomId, grows ? replaced.end : index * CATCH_UP_BLOCK, end);
      const views = await this.deps.views.views(app, rows);
      const added = rows.map((row, i): LiveMessage => ({ type: 'chat.event', data: views[i], seq: row.seq as number, cursor: updatesCursor(row.seq as number) }));
      return { items: grows ? [...replaced.items, ...added] : added, revision, end };
    });
  }
}

const blockKey = (app: Application, roomId: string, index: number) => `${app.id}/${roomId}/${index}`;

function blockBytes(block: Block): number {
  let bytes = 0;
  for (const item of block.items) bytes += 2 * jsonOnce(item.data).length + ITEM_OVERHEAD;
  return bytes;
}
