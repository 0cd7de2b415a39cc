import type { Db, Tx } from '../../db/client.js';
import { GroupCommit } from '../../db/group-commit.js';
import { violatedForeignKey, violatedUniqueIndex } from '../../db/errors.js';
import { conflict, notFound } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { commitMetrics } from '../../metrics/registry.js';
import { adjustReplyCount, insertComments } from '../store/comments.js';
import { adjustCommentCount } from '../store/conversations.js';
import type { Comment } from '../types.js';

const MAX_BATCH = 500;

export interface CommentWriterDeps {
  db: Db;
  log: Logger;
}

/**
 * Stores new comments. Comments that arrive while a write is in flight are stored together
 * in the next transaction (one multi-row insert, one count update per parent and per
 * conversation, one commit), so a busy conversation's counter row is not a queue of commits.
 * Each request is answered once its own comment has committed; if a batch fails (a customid
 * taken, a parent deleted meanwhile), its comments are stored one by one so only the culprit fails.
 */
export class CommentWriter {
  private readonly commits: GroupCommit<Comment, undefined>;

  constructor(deps: CommentWriterDeps) {
    const write = async (batch: Comment[]) => {
      await deps.db.transaction((tx) => store(tx, batch));
      return batch.map(() => undefined);
    };
    this.commits = new GroupCommit(write, deps.log, 'comment batch', commitMetrics('comments'), MAX_BATCH);
  }

  async insert(comment: Comment): Promise<void> {
    await this.commits.submit(comment).catch((err: unknown) => {
      throw explain(err, comment);
    });
  }
}

/** Inserts the comments and adds them to their parents' and conversations' counts. */
async function store(tx: Tx, batch: Comment[]): Promise<void> {
  await insertComments(tx, batch);
  // Rows are locked deepest comment first, then conversations, the order every other change uses.
  // A parent's replies share its conversation and depth.
  const parents = new Map<string, { conversationKey: string; depth: number; replies: number }>();
  for (const c of batch) {
    if (c.parentId === '') continue;
    const parent = parents.get(c.parentId);
    if (parent === undefined) parents.set(c.parentId, { conversationKey: c.conversationKey, depth: c.hierarchy.length, replies: 1 });
    else parent.replies += 1;
  }
  const ordered = [...parents].sort(([a, pa], [b, pb]) => pb.depth - pa.depth || (a < b ? -1 : 1));
  for (const [parentId, { conversationKey, replies }] of ordered) {
    if (!(await adjustReplyCount(tx, conversationKey, parentId, replies))) throw new ParentGone(parentId);
  }
  const conversations = countBy(batch, (c) => c.conversationKey);
  for (const key of [...conversations.keys()].sort()) await adjustCommentCount(tx, key, conversations.get(key) ?? 0);
}

function countBy<T>(items: T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

class ParentGone extends Error {
  constructor(readonly parentId: string) {
    super(`parent ${parentId} is gone`);
  }
}

function explain(err: unknown, comment: Comment): unknown {
  if (err instanceof ParentGone) return notFound(`Comment ${err.parentId} was deleted; cannot reply to it.`);
  if (violatedUniqueIndex(err) === 'comments_customid_idx') return conflict(`The customid ${comment.customId ?? ''} is already used by another comment.`, { customid: 'is already in use' });
  if (violatedForeignKey(err)) return notFound('The conversation was deleted; the comment was not stored.');
  return err;
}
