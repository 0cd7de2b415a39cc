import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import { notFound } from '../../errors.js';
import { groupBy } from '../../group-by.js';
import { decodeCursor, listPayload, pageOf } from '../../http/cursor.js';
import type { UserService } from '../../users/service.js';
import type { User } from '../../users/types.js';
import type { ListCommentsQuery, Sort } from '../schemas.js';
import { findComment } from '../store/comments.js';
import { isTimeSort, readDescendants, readFirstReplies } from '../store/pages.js';
import type { Comment, Conversation } from '../types.js';
import { commentView, conversationView, usersOf, type CommentView } from '../views.js';
import type { Conversations } from './conversations.js';
import type { CommentPage, PageCache } from './page-cache.js';
import type { PageReads } from './page-reads.js';
import type { StoredPages } from './stored-pages.js';
import { isTimeKey, timeKeyOf } from './time-key.js';

const MAX_OFFSET = 1_000_000_000;
const isOffset = (x: unknown): x is { o: number } =>
  typeof x === 'object' && x !== null && Number.isInteger((x as { o: number }).o) && (x as { o: number }).o >= 0 && (x as { o: number }).o <= MAX_OFFSET;

export interface PageRequest {
  sort: Sort;
  direction: 'forward' | 'backward';
  includeinactive: boolean;
  cursor: string;
  limit: number;
}

export interface ReaderDeps {
  db: Db;
  pages: PageReads;
  users: Pick<UserService, 'getMany'>;
  cache: PageCache;
  stored: Pick<StoredPages, 'find' | 'keep'>;
  conversations: Conversations;
}

/** Reads comments and renders them with their users: one query for the comments, one batched for the users. */
export class Reader {
  constructor(private readonly deps: ReaderDeps) {}

  private async render(app: Application, conversation: Conversation, list: Comment[]): Promise<CommentView[]> {
    return (await this.renderTimed(app, () => conversation.conversationId, list)).views;
  }

  /** Comments of several conversations; `conversationIdOf` names each one's. */
  async renderAcross(app: Application, conversationIdOf: (c: Comment) => string, list: Comment[]): Promise<CommentView[]> {
    return (await this.renderTimed(app, conversationIdOf, list)).views;
  }

  /** One comment rendered with its users. */
  async renderOne(app: Application, conversation: Conversation, comment: Comment): Promise<CommentView> {
    return commentView(comment, conversation.conversationId, await this.deps.users.getMany(app, usersOf(comment)));
  }

  /** The conversation and one of its comments; 404 when either is missing. */
  async find(app: Application, conversationId: string, commentId: string): Promise<{ conversation: Conversation; comment: Comment }> {
    const conversation = await this.deps.conversations.require(app, conversationId);
    return { conversation, comment: await this.require(conversation, commentId) };
  }

  async one(app: Application, conversationId: string, commentId: string): Promise<{ conversation: Conversation; comment: Comment; view: CommentView }> {
    const { conversation, comment } = await this.find(app, conversationId, commentId);
    return { conversation, comment, view: await this.renderOne(app, conversation, comment) };
  }

  async require(conversation: Conversation, commentId: string): Promise<Comment> {
    const comment = await findComment(this.deps.db, conversation.key, commentId);
    if (comment === undefined) throw notFound(`Comment ${commentId} not found in conversation ${conversation.conversationId}.`);
    return comment;
  }

  /**
   * Top-level comments (with every nested reply when includechildren), as the JSON of the
   * list payload: first pages are shared by the crowd that reads them (PageCache), `shared` when
   * they are, and kept in the database for the next reader of a conversation nobody read recently
   * (StoredPages; not the pages of one user's comments, which are as many as the users).
   */
  async listJson(app: Application, conversationId: string, q: ListCommentsQuery): Promise<{ json: Buffer; shared: boolean }> {
    const began = performance.now();
    if (q.cursor !== '') return { json: (await this.listPage(app, conversationId, q)).page.json, shared: false };
    const variant = `${q.sort}|${q.direction}|${q.limit}|${q.includechildren}|${q.includeinactive}|${q.filterpostedbyuserid}`;
    return this.deps.cache.take(app.id, conversationId, variant, began, () =>
      q.filterpostedbyuserid === '' ? this.firstPage(app, conversationId, q, variant) : this.listPage(app, conversationId, q).then((made) => made.page),
    );
  }

  /** The first page as kept in the database if it holds, else made (and kept). */
  private async firstPage(app: Application, conversationId: string, q: ListCommentsQuery, variant: string): Promise<CommentPage> {
    const kept = await this.deps.stored.find(app, conversationId, variant);
    if (kept !== undefined) return kept;
    const { page, text, conversation, users, userIds } = await this.listPage(app, conversationId, q);
    this.deps.stored.keep({
      conversationKey: conversation.key,
      variant,
      conversationRevision: conversation.revision,
      userPool: app.userPool,
      userIds,
      userModified: userIds.map((id) => users.get(id)?.whenModified.getTime() ?? null),
      expiresAt: Number.isFinite(page.expires) ? page.expires : null,
      json: text,
    });
    return page;
  }

  /**
   * A page made: its JSON (as text too), and what it was made from. The conversation is read
   * before its comments, so a change of them committed meanwhile has moved the revision kept.
   */
  private async listPage(
    app: Application,
    conversationId: string,
    q: ListCommentsQuery,
  ): Promise<{ page: CommentPage; text: string; conversation: Conversation; users: Map<string, User>; userIds: string[] }> {
    const conversation = await this.deps.conversations.require(app, conversationId);
    const { items, next } = await this.page(conversation, '', q.filterpostedbyuserid, q);
    const all = q.includechildren
      ? withDescendants(
          items,
          await readDescendants(
            this.deps.db,
            conversation.key,
            items.map((c) => c.id),
            q.includeinactive,
          ),
        )
      : items;
    const { views, expires, users, userIds } = await this.renderTimed(app, () => conversation.conversationId, all);
    const text = JSON.stringify(listPayload('list.comments', 'comments', views, next, { conversation: conversationView(conversation) }));
    return { page: { json: Buffer.from(text), expires }, text, conversation, users, userIds };
  }

  /** Direct replies of one comment. */
  async replies(app: Application, conversationId: string, commentId: string, q: PageRequest): Promise<unknown> {
    const conversation = await this.deps.conversations.require(app, conversationId);
    await this.require(conversation, commentId);
    const { items, next } = await this.page(conversation, commentId, '', q);
    return listPayload('list.comments', 'comments', await this.render(app, conversation, items), next, { conversation: conversationView(conversation) });
  }

  /** The first `childLimit` replies of each parent, oldest first, with a cursor for the replies endpoint. */
  async firstReplies(app: Application, conversationId: string, parentIds: string[], childLimit: number, includeInactive: boolean): Promise<unknown> {
    const conversation = await this.deps.conversations.require(app, conversationId);
    const found = await readFirstReplies(this.deps.db, conversation.key, parentIds, childLimit + 1, includeInactive);
    const views = new Map((await this.render(app, conversation, found)).map((v) => [v.id, v]));
    const byParent = groupBy(found, (c) => c.parentId);
    const groups = [...new Set(parentIds)].map((parentId) => {
      const { items, next } = pageOf(byParent.get(parentId) ?? [], childLimit, timeKeyOf);
      return {
        ...listPayload(
          'list.commentreplygroup',
          'comments',
          items.map((c) => views.get(c.id)),
          next,
        ),
        parentid: parentId,
      };
    });
    return { kind: 'list.repliesbyparentid', conversation: conversationView(conversation), itemcount: groups.length, repliesgroupedbyparentid: groups };
  }

  private async page(conversation: Conversation, parentId: string, userId: string, q: PageRequest) {
    const time = isTimeSort(q.sort);
    const after = q.cursor === '' || !time ? undefined : decodeCursor(q.cursor, isTimeKey);
    const offset = q.cursor === '' || time ? 0 : decodeCursor(q.cursor, isOffset).o;
    const rows = await this.deps.pages.read(conversation.key, {
      parentId,
      sort: q.sort,
      backward: q.direction === 'backward',
      includeInactive: q.includeinactive,
      userId,
      after,
      offset,
      limit: q.limit + 1,
    });
    return pageOf(rows, q.limit, time ? timeKeyOf : () => ({ o: offset + q.limit }));
  }

  /**
   * Views, the users they show (`userIds`, each once; `users`, those there are), and until when
   * they stay right: a rendered user's ban or mute may run out.
   */
  private async renderTimed(
    app: Application,
    conversationIdOf: (c: Comment) => string,
    list: Comment[],
  ): Promise<{ views: CommentView[]; expires: number; users: Map<string, User>; userIds: string[] }> {
    const userIds = [...new Set(list.flatMap(usersOf))];
    const users = await this.deps.users.getMany(app, userIds);
    return { views: list.map((c) => commentView(c, conversationIdOf(c), users)), expires: nextExpiry(users.values()), users, userIds };
  }
}

/** Each top-level comment followed by its replies (which come oldest first). */
function withDescendants(top: Comment[], descendants: Comment[]): Comment[] {
  const byRoot = groupBy(descendants, (d) => d.rootId);
  return top.flatMap((c) => [c, ...(byRoot.get(c.id) ?? [])]);
}

function nextExpiry(users: Iterable<User>): number {
  const now = Date.now();
  let next = Number.POSITIVE_INFINITY;
  for (const u of users) {
    for (const until of [u.bannedUntil, u.shadowBannedUntil, u.mutedUntil]) {
      const t = until?.getTime();
      if (t !== undefined && t > now && t < next) next = t;
    }
  }
  return next;
}
