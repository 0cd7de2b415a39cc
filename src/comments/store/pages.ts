import { and, asc, desc, eq, getTableColumns, inArray, lte, sql, type SQL } from 'drizzle-orm';
import { textArrayLiteral, plannedOnce } from '../../db/arrays.js';
import { statementOnce, type Queryable } from '../../db/client.js';
import { comments } from '../../db/schema/comments.js';
import type { Sort } from '../schemas.js';
import type { Comment, TimeKey } from '../types.js';
import { COMMENT_ROWS } from './comments.js';

/** A page of comments under a parent, of any number of conversations. */
export interface PageQuery {
  /** '' for top-level comments, else the comment whose direct replies are listed. */
  parentId: string;
  sort: Sort;
  backward: boolean;
  includeInactive: boolean;
  /** '' for everyone's. */
  userId: string;
  /** Time sorts: the key of the previous page's last row. */
  after: TimeKey | undefined;
  /** Other sorts: rows to skip. */
  offset: number;
  limit: number;
}

const COUNT_COLUMN = { likes: comments.likeCount, votescore: comments.voteScore, mostreplies: comments.replyCount } as const;

export const isTimeSort = (sort: Sort): sort is 'oldest' | 'newest' => sort === 'oldest' || sort === 'newest';

/**
 * The same page of each conversation (by key), read from the index that matches the sort:
 * (conversation, parent, added, id) for time sorts, keyset from `after`;
 * (conversation, parent, count, added, id) for the others, by offset.
 * The hot path: each shape of the query is a named prepared statement, planned once per
 * connection, and reads the pages of every conversation it is given at once. Rows come in page
 * order within each conversation.
 */
export async function readPages(q: Queryable, p: PageQuery, conversationKeys: string[]): Promise<Comment[]> {
  const shape: PageShape = { sort: p.sort, backward: p.backward, includeInactive: p.includeInactive, byUser: p.userId !== '', after: p.after !== undefined };
  const name = `comments_pages_${shape.sort}_${+shape.backward}${+shape.includeInactive}${+shape.byUser}${+shape.after}`;
  let statement = pageStatements.get(name);
  if (statement === undefined) {
    statement = statementOnce<Record<string, unknown>>(name, pageStatement(shape));
    pageStatements.set(name, statement);
  }
  const found = await statement(q, {
    keys: textArrayLiteral(conversationKeys),
    parent: p.parentId,
    user: p.userId,
    a: p.after?.a ?? '',
    i: p.after?.i ?? '',
    offset: p.offset,
    limit: p.limit,
  });
  return found.map(COMMENT_ROWS.of);
}

interface PageShape {
  sort: Sort;
  backward: boolean;
  includeInactive: boolean;
  byUser: boolean;
  after: boolean;
}

function pageStatement(shape: PageShape): SQL {
  const c = comments;
  const filters: (SQL | undefined)[] = [sql`${c.conversationKey} = wanted.key`, eq(c.parentId, sql.placeholder('parent'))];
  if (!shape.includeInactive) filters.push(eq(c.active, true));
  if (shape.byUser) filters.push(eq(c.userId, sql.placeholder('user')));
  let order: SQL[];
  if (isTimeSort(shape.sort)) {
    const ascending = (shape.sort === 'oldest') !== shape.backward;
    const dir = ascending ? asc : desc;
    order = [dir(c.added), dir(c.id)];
    const after = sql`(${sql.placeholder('a')}::timestamptz, ${sql.placeholder('i')}::text)`;
    if (shape.after) filters.push(ascending ? sql`(${c.added}, ${c.id}) > ${after}` : sql`(${c.added}, ${c.id}) < ${after}`);
  } else {
    const dir = shape.backward ? asc : desc;
    order = [dir(COUNT_COLUMN[shape.sort]), dir(c.added), dir(c.id)];
  }
  return sql`select page.* from unnest(${plannedOnce('keys', 'text[]')}) as wanted(key) cross join lateral (
      select ${COMMENT_ROWS.list} from ${c} where ${and(...filters)} order by ${sql.join(order, sql`, `)}
      limit ${sql.placeholder('limit')} offset ${sql.placeholder('offset')}) as page`;
}

/** Each shape's statement, made when first read. */
const pageStatements = new Map<string, (q: Queryable, values: Record<string, unknown>) => Promise<Record<string, unknown>[]>>();

/** Every reply below the given top-level comments, oldest first. */
export async function readDescendants(q: Queryable, conversationKey: string, rootIds: string[], includeInactive: boolean): Promise<Comment[]> {
  if (rootIds.length === 0) return [];
  const c = comments;
  return q
    .select()
    .from(c)
    .where(and(eq(c.conversationKey, conversationKey), inArray(c.rootId, rootIds), includeInactive ? undefined : eq(c.active, true)))
    .orderBy(asc(c.added), asc(c.id));
}

/** The first `limit` direct replies (oldest first) of each parent, in one query. */
export async function readFirstReplies(q: Queryable, conversationKey: string, parentIds: string[], limit: number, includeInactive: boolean): Promise<Comment[]> {
  const c = comments;
  const ranked = q
    .select({ ...getTableColumns(c), rank: sql<number>`row_number() over (partition by ${c.parentId} order by ${c.added}, ${c.id})`.as('rank') })
    .from(c)
    .where(and(eq(c.conversationKey, conversationKey), inArray(c.parentId, parentIds), includeInactive ? undefined : eq(c.active, true)))
    .as('ranked');
  const found = await q.select().from(ranked).where(lte(ranked.rank, limit)).orderBy(asc(ranked.parentId), asc(ranked.added), asc(ranked.id));
  return found.map(({ rank: _rank, ...comment }) => comment);
}

/** Comments awaiting a moderator (pending or flagged), oldest first, keyset on (added, id). */
export async function readQueue(q: Queryable, appId: string, conversationKey: string | undefined, after: TimeKey | undefined, limit: number): Promise<Comment[]> {
  const c = comments;
  return q
    .select()
    .from(c)
    .where(
      and(
        eq(c.appId, appId),
        sql`${c.moderation} in ('pending', 'flagged')`,
        conversationKey === undefined ? undefined : eq(c.conversationKey, conversationKey),
        after === undefined ? undefined : sql`(${c.added}, ${c.id}) > (${after.a}::timestamptz, ${after.i})`,
      ),
    )
    .orderBy(asc(c.added), asc(c.id))
    .limit(limit);
}
