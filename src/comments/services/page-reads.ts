import type { Db } from '../../db/client.js';
import { ReadBatcher, readByScope } from '../../db/read-batcher.js';
import { groupBy } from '../../group-by.js';
import type { Logger } from '../../logger.js';
import { type PageQuery, readPages } from '../store/pages.js';
import type { Comment } from '../types.js';

interface Wanted {
  conversationKey: string;
  query: PageQuery;
}

interface Read {
  scope: string;
  conversationKey: string;
  rows: Comment[];
}

/** The same page of every conversation asked for it (`scope`: the page apart from its conversation). */
const scopeOf = (query: PageQuery) => JSON.stringify(query);
const keyOf = (scope: string, conversationKey: string) => `${scope}\u0000${conversationKey}`;

/**
 * Pages of comments, each read with the same page of the other conversations asked for at the
 * same moment (readers opening many articles' comments), in one statement.
 */
export class PageReads {
  private readonly pages: ReadBatcher<Wanted, Read>;

  constructor(db: Db, log: Logger) {
    this.pages = new ReadBatcher({
      read: (wanted) =>
        readByScope(
          wanted,
          (w) => scopeOf(w.query),
          async (scope, ofScope) => {
            const rows = await readPages(db, (ofScope[0] as Wanted).query, [...new Set(ofScope.map((w) => w.conversationKey))]);
            return [...groupBy(rows, (r) => r.conversationKey)].map(([conversationKey, ofConversation]) => ({ scope, conversationKey, rows: ofConversation }));
          },
        ),
      keyOf: (w) => keyOf(scopeOf(w.query), w.conversationKey),
      keyOfValue: (r) => keyOf(r.scope, r.conversationKey),
      log,
      name: 'comment_pages',
    });
  }

  /** The page `query` of the conversation (its key), read after the request began. */
  async read(conversationKey: string, query: PageQuery): Promise<Comment[]> {
    return (await this.pages.get({ conversationKey, query }))?.rows ?? [];
  }
}
