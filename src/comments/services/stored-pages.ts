import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import { GroupCommit } from '../../db/group-commit.js';
import { ReadBatcher } from '../../db/read-batcher.js';
import type { Logger } from '../../logger.js';
import { ValueFamily } from '../../metrics/family.js';
import { commitMetrics, registry } from '../../metrics/registry.js';
import { findHoldingRenderings, keepRenderings, type Rendering, type WantedRendering } from '../store/renderings.js';
import type { CommentPage } from './page-cache.js';

/** Pages waiting to be kept at most: past it (the database slower than the reads that miss), a page made is not kept. */
const MAX_WAITING = 1_000;

const outcomes = new ValueFamily(
  registry,
  'engage_stored_comment_pages_total',
  'First comment pages kept in the database: found holding (hit), not found or out of date (miss), kept, or not kept (dropped: too large, too many waiting, or the write failed)',
  'counter',
  ['result'],
);

const keyOf = (w: WantedRendering) => `${w.appId}\u0000${w.conversationId}\u0000${w.variant}`;

/**
 * First pages of comments kept in the database (comment_page_renderings): a conversation nobody
 * read recently, whose page no node holds in memory, is answered with one statement (its
 * conversation and the page looked up) instead of the conversation, its comments and their
 * authors read and rendered. Each page made on a miss is kept in the background, batched with the
 * others made meanwhile. A kept page tells by itself whether it still holds, or is dropped by the
 * change that ends it (src/comments/store/renderings.ts), so no node has to tell another, and a
 * page is never kept for longer than a change.
 */
export class StoredPages {
  private readonly finds: ReadBatcher<WantedRendering, { key: string; page: CommentPage }>;
  private readonly keeps: GroupCommit<Rendering, undefined>;
  private waiting = 0;
  private readonly hits = outcomes.cell('hit');
  private readonly misses = outcomes.cell('miss');
  private readonly kept = outcomes.cell('kept');
  private readonly dropped = outcomes.cell('dropped');

  constructor(
    db: Db,
    private readonly log: Logger,
    /** Bytes of the largest page kept (STORED_COMMENT_PAGE_MAX); 0 keeps none. */
    private readonly maxBytes: number,
  ) {
    this.finds = new ReadBatcher<WantedRendering, { key: string; page: CommentPage }>({
      read: async (wanted) => {
        const found = await findHoldingRenderings(db, wanted);
        return [...found].map(([i, { json, expires }]) => ({ key: keyOf(wanted[i] as WantedRendering), page: { json, expires: expires ?? Number.POSITIVE_INFINITY } }));
      },
      keyOf,
      keyOfValue: (found) => found.key,
      log,
      name: 'comment_page_renderings',
    });
    this.keeps = new GroupCommit(
      async (renderings) => {
        await keepRenderings(db, lastOfEach(renderings));
        return renderings.map(() => undefined);
      },
      log,
      'keeping first comment pages',
      commitMetrics('comment_page_renderings'),
    );
  }

  /** The kept page of the app's conversation that holds now, or undefined. */
  async find(app: Application, conversationId: string, variant: string): Promise<CommentPage | undefined> {
    if (this.maxBytes === 0) return undefined;
    const found = await this.finds.get({ appId: app.id, conversationId, variant });
    (found === undefined ? this.misses : this.hits).inc();
    return found?.page;
  }

  /** Keeps a page just made, in the background: a page not kept is made again by the next read. */
  keep(rendering: Rendering): void {
    if (this.maxBytes === 0) return;
    if (Buffer.byteLength(rendering.json) > this.maxBytes || this.waiting >= MAX_WAITING) {
      this.dropped.inc();
      return;
    }
    this.waiting += 1;
    this.keeps
      .submit(rendering)
      .then(
        () => this.kept.inc(),
        (err: unknown) => {
          this.dropped.inc();
          this.log.debug({ err, conversationKey: rendering.conversationKey }, 'first comment page not kept');
        },
      )
      .finally(() => {
        this.waiting -= 1;
      });
  }
}

/** The last rendering of each conversation's variant: one statement may not write a row twice. */
function lastOfEach(renderings: Rendering[]): Rendering[] {
  return [...new Map(renderings.map((r) => [`${r.conversationKey}\u0000${r.variant}`, r])).values()];
}
