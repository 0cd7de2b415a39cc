import type { Db, Tx } from '../../db/client.js';
import { KeyedBatcher } from '../../db/keyed-batcher.js';
import type { Tally } from '../../db/schema/comments.js';
import type { Logger } from '../../logger.js';
import { commitMetrics } from '../../metrics/registry.js';
import { lockCommentOf, updateComment } from '../store/comments.js';
import { lockConversation, updateConversation } from '../store/conversations.js';
import { applyReactions, applyVotes, COMMENT_REACTIONS, COMMENT_VOTES, CONVERSATION_REACTIONS, latestUsers, type Applied, type TallyRows, type Wanted } from '../store/tally-rows.js';
import type { Comment, CommentIn, Conversation } from '../types.js';
import { applyTransitions, refilled, typesAfter } from './tally-change.js';

export interface TallyWriterDeps {
  db: Db;
  log: Logger;
  /** Users listed per type (REACTION_USERS_SHOWN). */
  shown: number;
}

/** A request's answer once its batch committed: the row after the batch (undefined: gone), the user's types on it, whether this request added its type. */
export interface Tallied<Row> {
  row: Row | undefined;
  own: ReadonlySet<string>;
  added: boolean;
}

type Reaction = Wanted;
interface Vote {
  userId: string;
  /** up, down, or '' for none. */
  vote: string;
}

const NONE: ReadonlySet<string> = new Set();
const SEP = '\u0000';
const lastPerType = (items: Reaction[]) => lastOf(items, (r) => r.userId + SEP + r.type);
const countOf = (tallies: Tally[], type: string) => tallies.find((t) => t.type === type)?.count ?? 0;

/**
 * Votes and reactions, group-committed per target row: the requests on one comment (or
 * conversation) that arrive together take its row lock once, write their rows in one statement,
 * and update the row's tallies once with the batch's net change (exact counts, the latest
 * `shown` users per type). Each request is answered after its batch commits. Within a batch, a
 * user's last request for a type is the one applied, as if they had come one after another.
 */
export class TallyWriter {
  private readonly votes: KeyedBatcher<Vote, Tallied<CommentIn>>;
  private readonly commentReactions: KeyedBatcher<Reaction, Tallied<CommentIn>>;
  private readonly conversationReactions: KeyedBatcher<Reaction, Tallied<Conversation>>;

  constructor(private readonly deps: TallyWriterDeps) {
    this.votes = new KeyedBatcher((key, items) => this.writeVotes(key, items), deps.log, 'comment votes', commitMetrics('comment_votes'));
    this.commentReactions = new KeyedBatcher((key, items) => this.writeCommentReactions(key, items), deps.log, 'comment reactions', commitMetrics('comment_reactions'));
    this.conversationReactions = new KeyedBatcher((key, items) => this.writeConversationReactions(key, items), deps.log, 'conversation reactions', commitMetrics('conversation_reactions'));
  }

  /** The conversation is looked up once per batch, with the comment's lock. */
  vote(appId: string, conversationId: string, commentId: string, vote: Vote): Promise<Tallied<CommentIn>> {
    return this.votes.submit([appId, conversationId, commentId].join(SEP), vote);
  }

  reactToComment(appId: string, conversationId: string, commentId: string, reaction: Reaction): Promise<Tallied<CommentIn>> {
    return this.commentReactions.submit([appId, conversationId, commentId].join(SEP), reaction);
  }

  reactToConversation(appId: string, conversationId: string, reaction: Reaction): Promise<Tallied<Conversation>> {
    return this.conversationReactions.submit([appId, conversationId].join(SEP), reaction);
  }

  private writeVotes(key: string, items: Vote[]): Promise<Tallied<CommentIn>[]> {
    const [appId = '', conversationId = '', commentId = ''] = key.split(SEP);
    return this.write(items, (v) => v.vote, {
      lock: (tx) => lockCommentOf(tx, appId, conversationId, commentId),
      tallies: (c) => c.comment.votes,
      apply: (tx) =>
        applyVotes(
          tx,
          commentId,
          lastOf(items, (v) => v.userId),
        ),
      rows: COMMENT_VOTES,
      target: () => commentId,
      keepEmptied: false,
      save: async (tx, votes, locked) => {
        const up = countOf(votes, 'up');
        const down = countOf(votes, 'down');
        return inConversation(await updateComment(tx, commentId, { votes, voteCount: up + down, voteScore: up - down }), locked);
      },
    });
  }

  private writeCommentReactions(key: string, items: Reaction[]): Promise<Tallied<CommentIn>[]> {
    const [appId = '', conversationId = '', commentId = ''] = key.split(SEP);
    return this.write(items, (r) => r.type, {
      lock: (tx) => lockCommentOf(tx, appId, conversationId, commentId),
      tallies: (c) => c.comment.reactions,
      apply: (tx) => applyReactions(tx, COMMENT_REACTIONS, commentId, lastPerType(items)),
      rows: COMMENT_REACTIONS,
      target: () => commentId,
      keepEmptied: true,
      save: async (tx, reactions, locked) => inConversation(await updateComment(tx, commentId, { reactions, likeCount: countOf(reactions, 'like') }), locked),
    });
  }

  private writeConversationReactions(key: string, items: Reaction[]): Promise<Tallied<Conversation>[]> {
    const [appId = '', conversationId = ''] = key.split(SEP);
    return this.write(items, (r) => r.type, {
      lock: (tx) => lockConversation(tx, appId, conversationId),
      tallies: (c) => c.reactions,
      apply: (tx, c) => applyReactions(tx, CONVERSATION_REACTIONS, c.key, lastPerType(items)),
      rows: CONVERSATION_REACTIONS,
      target: (c) => c.key,
      keepEmptied: true,
      save: (tx, reactions, c) => updateConversation(tx, c.key, { reactions, likeCount: countOf(reactions, 'like') }),
    });
  }

  /** One batch on one target, in one transaction: lock the row, write the user rows, update the row's tallies once. */
  private async write<Row, Item extends { userId: string }>(items: Item[], typeOf: (item: Item) => string, how: Batch<Row>): Promise<Tallied<Row>[]> {
    const { shown } = this.deps;
    return this.deps.db.transaction(async (tx) => {
      const locked = await how.lock(tx);
      if (locked === undefined) return items.map(() => ({ row: undefined, own: NONE, added: false }));
      const applied = await how.apply(tx, locked);
      const { tallies, refill } = applyTransitions(how.tallies(locked), applied.transitions, shown, how.keepEmptied);
      const row = applied.transitions.length === 0 ? locked : await how.save(tx, refilled(tallies, await latestUsers(tx, how.rows, how.target(locked), refill, shown)), locked);
      const after = typesAfter(applied.before, applied.transitions);
      const addedBy = new Set(applied.transitions.filter((t) => t.to !== null).map((t) => t.userId + SEP + (t.to as string)));
      return items.map((item) => ({ row, own: after.get(item.userId) ?? NONE, added: addedBy.delete(item.userId + SEP + typeOf(item)) }));
    });
  }
}

/** The updated comment beside its conversation (the row is locked: it cannot have gone). */
const inConversation = (comment: Comment | undefined, locked: CommentIn): CommentIn => ({ comment: comment ?? locked.comment, conversation: locked.conversation });

interface Batch<Row> {
  lock: (tx: Tx) => Promise<Row | undefined>;
  tallies: (row: Row) => Tally[];
  apply: (tx: Tx, locked: Row) => Promise<Applied>;
  rows: TallyRows;
  target: (locked: Row) => string;
  keepEmptied: boolean;
  save: (tx: Tx, tallies: Tally[], locked: Row) => Promise<Row | undefined>;
}

/** The last item per key, in the order their keys first came. */
function lastOf<T>(items: T[], keyOf: (item: T) => string): T[] {
  const last = new Map<string, T>();
  for (const item of items) last.set(keyOf(item), item);
  return [...last.values()];
}
