import type { Db } from '../../db/client.js';
import { KeyedBatcher } from '../../db/keyed-batcher.js';
import { badRequest, conflict } from '../../errors.js';
import type { WrittenNotification } from '../../events/publish-hooks.js';
import { newId } from '../../ids.js';
import type { Logger } from '../../logger.js';
import { commitMetrics } from '../../metrics/registry.js';
import { writeCommentReactions, writeConversationReactions, writeVotes, type BatchOutcome, type Change, type WantedReaction, type WantedVote } from '../store/tally-batch.js';
import type { CommentIn, Conversation } from '../types.js';

export interface TallyWriterDeps {
  db: Db;
  log: Logger;
  /** Users listed per type (REACTION_USERS_SHOWN). */
  shown: number;
  /** Distinct reaction types one comment or conversation may list (REACTION_TYPES_MAX). */
  maxTypes: number;
}

/** A request's answer once its batch committed: the row after the batch (undefined: gone), the user's types on it, whether this request added its type. */
export interface Tallied<Row> {
  row: Row | undefined;
  own: ReadonlySet<string>;
  added: boolean;
  /** The notification the batch wrote the comment's author about this request's reaction, when it added one. */
  notice?: WrittenNotification;
}

/** A reaction's outcome in its batch: refused when its type would be one more than the target may list. */
type Reacted<Row> = Tallied<Row> & { refused: boolean };

const NONE: ReadonlySet<string> = new Set();
const SEP = '\u0000';
/** Sending a vote again that another node changed meanwhile: past this many rounds, the request is answered 409. */
const MAX_ROUNDS = 10;

/**
 * Votes and reactions, group-committed per target row: the requests on one comment (or
 * conversation) that arrive together are written by one statement (store/tally-batch.ts) that
 * takes the row's lock, writes the user rows and the row's tallies once from exactly what
 * changed (exact counts, the latest `shown` users per type). Each request is answered after its
 * batch commits. Within a batch, a user's last request for a type is the one applied, as if they
 * had come one after another.
 */
export class TallyWriter {
  private readonly votes: KeyedBatcher<WantedVote, Tallied<CommentIn>>;
  private readonly commentReactions: KeyedBatcher<WantedReaction, Reacted<CommentIn>>;
  private readonly conversationReactions: KeyedBatcher<WantedReaction, Reacted<Conversation>>;

  constructor(private readonly deps: TallyWriterDeps) {
    this.votes = new KeyedBatcher((key, items) => this.writeVotes(key, items), deps.log, 'comment votes', commitMetrics('comment_votes'));
    this.commentReactions = new KeyedBatcher((key, items) => this.writeCommentReactions(key, items), deps.log, 'comment reactions', commitMetrics('comment_reactions'));
    this.conversationReactions = new KeyedBatcher((key, items) => this.writeConversationReactions(key, items), deps.log, 'conversation reactions', commitMetrics('conversation_reactions'));
  }

  /** The conversation is looked up once per batch, with the comment's lock. */
  vote(appId: string, conversationId: string, commentId: string, vote: WantedVote): Promise<Tallied<CommentIn>> {
    return this.votes.submit([appId, conversationId, commentId].join(SEP), vote);
  }

  /** 400 naming `reaction` when the comment already lists REACTION_TYPES_MAX other types. */
  reactToComment(appId: string, conversationId: string, commentId: string, reaction: WantedReaction): Promise<Tallied<CommentIn>> {
    return this.unlessRefused(this.commentReactions.submit([appId, conversationId, commentId].join(SEP), reaction));
  }

  /** 400 naming `reaction` when the conversation already lists REACTION_TYPES_MAX other types. */
  reactToConversation(appId: string, conversationId: string, reaction: WantedReaction): Promise<Tallied<Conversation>> {
    return this.unlessRefused(this.conversationReactions.submit([appId, conversationId].join(SEP), reaction));
  }

  private async unlessRefused<Row>(outcome: Promise<Reacted<Row>>): Promise<Tallied<Row>> {
    const { refused, ...tallied } = await outcome;
    if (!refused) return tallied;
    const max = this.deps.maxTypes;
    throw badRequest(`A comment or conversation lists at most ${max} distinct reactions (REACTION_TYPES_MAX); this one would be one more.`, {
      reaction: `at most ${max} distinct reactions per comment or conversation`,
    });
  }

  /**
   * A vote the statement left alone (another node changed that user's vote while it waited for
   * the comment's lock) is sent again in another round, which finds the vote as it is now.
   */
  private async writeVotes(key: string, items: WantedVote[]): Promise<Tallied<CommentIn>[]> {
    const [appId = '', conversationId = '', commentId = ''] = key.split(SEP);
    const state = new Map<string, Set<string>>();
    let pending = lastOf(items, (v) => v.userId);
    let row: CommentIn | undefined;
    const addedBy = new Set<string>();
    for (let round = 0; pending.length > 0; round++) {
      if (round === MAX_ROUNDS) throw conflict('Votes on this comment keep changing; try again.');
      const out = await writeVotes(this.deps.db, appId, conversationId, commentId, pending, this.deps.shown);
      if (out.target === undefined) return items.map(() => ({ row: undefined, own: NONE, added: false }));
      row = out.target;
      record(state, addedBy, out);
      const changed = new Set(out.changes.map((c) => c.userId));
      pending = pending.filter((v) => !changed.has(v.userId) && v.vote !== ([...(out.before.get(v.userId) ?? [])][0] ?? ''));
    }
    return items.map((v) => ({ row, own: state.get(v.userId) ?? NONE, added: addedBy.delete(v.userId + SEP + v.vote) }));
  }

  private async writeCommentReactions(key: string, items: WantedReaction[]): Promise<Reacted<CommentIn>[]> {
    const [appId = '', conversationId = '', commentId = ''] = key.split(SEP);
    const wanted = lastPerType(items);
    const added = new Date();
    // The id of the notification each reaction set gets if the statement adds it.
    const noticeIds = new Map(wanted.filter((w) => w.on).map((w) => [typeKey(w), newId()]));
    const noticed = { wanted, noticeIds: wanted.map((w) => noticeIds.get(typeKey(w)) ?? ''), added };
    const out = await writeCommentReactions(this.deps.db, appId, conversationId, commentId, noticed, this.deps.shown, this.deps.maxTypes);
    const answers = this.answers(items, out, (row) => row.comment.reactions);
    const author = out.target?.comment.userId;
    const written = new Set(out.notified);
    if (author === undefined || written.size === 0) return answers;
    return answers.map((a, i) => {
      const id = noticeIds.get(typeKey(items[i] as WantedReaction));
      return a.added && id !== undefined && written.has(id) ? { ...a, notice: { id, userId: author, type: 'reaction', added } } : a;
    });
  }

  private async writeConversationReactions(key: string, items: WantedReaction[]): Promise<Reacted<Conversation>[]> {
    const [appId = '', conversationId = ''] = key.split(SEP);
    const out = await writeConversationReactions(this.deps.db, appId, conversationId, lastPerType(items), this.deps.shown, this.deps.maxTypes);
    return this.answers(items, out, (row) => row.reactions);
  }

  /** Each reaction's outcome; a type the target could not take (it lists REACTION_TYPES_MAX others) is refused alone. */
  private answers<Row>(items: WantedReaction[], out: BatchOutcome<Row>, talliesOf: (row: Row) => { type: string }[]): Reacted<Row>[] {
    const row = out.target;
    if (row === undefined) return items.map(() => ({ row: undefined, own: NONE, added: false, refused: false }));
    const state = new Map<string, Set<string>>();
    const addedBy = new Set<string>();
    record(state, addedBy, out);
    const listed = new Set(talliesOf(row).map((t) => t.type));
    return items.map((r) => ({ row, own: state.get(r.userId) ?? NONE, added: addedBy.delete(typeKey(r)), refused: r.on && !listed.has(r.type) }));
  }
}

/** Each batch user's types after the outcome (from what the statement found before), and which (user, type) it added. */
function record<Row>(state: Map<string, Set<string>>, addedBy: Set<string>, out: BatchOutcome<Row>): void {
  for (const [user, types] of out.before) state.set(user, new Set(types));
  for (const c of out.changes) applyChange(state, addedBy, c);
}

function applyChange(state: Map<string, Set<string>>, addedBy: Set<string>, c: Change): void {
  let types = state.get(c.userId);
  if (types === undefined) {
    types = new Set();
    state.set(c.userId, types);
  }
  if (c.from !== null) types.delete(c.from);
  if (c.to !== null) {
    types.add(c.to);
    addedBy.add(c.userId + SEP + c.to);
  }
}

const typeKey = (r: WantedReaction) => r.userId + SEP + r.type;
const lastPerType = (items: WantedReaction[]) => lastOf(items, typeKey);

/** The last item per key, in the order their keys first came. */
function lastOf<T>(items: T[], keyOf: (item: T) => string): T[] {
  const last = new Map<string, T>();
  for (const item of items) last.set(keyOf(item), item);
  return [...last.values()];
}
