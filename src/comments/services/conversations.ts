import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import { ReadBatcher, readByScope } from '../../db/read-batcher.js';
import type { Logger } from '../../logger.js';
import { violatedUniqueIndex } from '../../db/errors.js';
import { badRequest, conflict, notFound } from '../../errors.js';
import { decodeCursor, listPayload, pageOf } from '../../http/cursor.js';
import { newId } from '../../ids.js';
import type { Bus } from '../../realtime/bus.js';
import { endLive } from '../../realtime/live.js';
import type { UserService } from '../../users/service.js';
import type { UpsertConversationInput } from '../schemas.js';
import { deleteAllInConversation } from '../store/comments.js';
import * as store from '../store/conversations.js';
import type { Conversation, ConversationPatch, ListAfter } from '../types.js';
import { conversationView } from '../views.js';
import type { PageCache } from './page-cache.js';
import { withOwn } from './tally-change.js';
import type { TallyWriter } from './tally-writer.js';
import { isTimeKey } from './time-key.js';

export interface ConversationsDeps {
  db: Db;
  log: Logger;
  bus: Bus;
  cache: PageCache;
  users: Pick<UserService, 'require'>;
  tallies: TallyWriter;
}

const isListAfter = (x: unknown): x is ListAfter => typeof x === 'object' && x !== null && isTimeKey({ a: (x as ListAfter).added, i: (x as ListAfter).key });
const listAfterOf = (c: Conversation): ListAfter => ({ added: c.added.toISOString(), key: c.key });

/** Custom fields that, once they held a value, cannot be set back to empty (api-v3.md, Conversation). */
const STICKY = [
  ['customtype', 'customType'],
  ['customid', 'customId'],
  ['custompayload', 'customPayload'],
  ['customfield1', 'customField1'],
  ['customfield2', 'customField2'],
] as const;

/** An id within an app. */
interface AppKey {
  appId: string;
  id: string;
}
const appKey = (k: AppKey) => `${k.appId}\u0000${k.id}`;

/** Conversations: create-or-update, rename, find, list, react, reset, delete. */
export class Conversations {
  private readonly announced = new WeakSet<Conversation>();
  /** Conversations by id and by custom id, each read with the others asked for at the same moment (readers opening articles). */
  private readonly byId: ReadBatcher<AppKey, Conversation>;
  private readonly byCustomId: ReadBatcher<AppKey, Conversation>;

  constructor(private readonly deps: ConversationsDeps) {
    const batcher = (name: string, find: typeof store.findConversationsById, keyOf: (c: Conversation) => string | null) =>
      new ReadBatcher<AppKey, Conversation>({
        read: (keys) =>
          readByScope(
            keys,
            (k) => k.appId,
            (appId, ofApp) =>
              find(
                deps.db,
                appId,
                ofApp.map((k) => k.id),
              ),
          ),
        keyOf: appKey,
        keyOfValue: (c) => appKey({ appId: c.appId, id: keyOf(c) ?? '' }),
        log: deps.log,
        name,
      });
    this.byId = batcher('conversations_by_id', store.findConversationsById, (c) => c.conversationId);
    this.byCustomId = batcher('conversations_by_custom_id', store.findConversationsByCustomId, (c) => c.customId);
  }

  async require(app: Application, conversationId: string): Promise<Conversation> {
    const found = await this.byId.get({ appId: app.id, id: conversationId });
    if (found === undefined) throw notFound(`Conversation ${conversationId} not found.`);
    return found;
  }

  async requireByCustomId(app: Application, customId: string): Promise<Conversation> {
    const found = await this.byCustomId.get({ appId: app.id, id: customId });
    if (found === undefined) throw notFound(`No conversation has the customid ${customId}.`);
    return found;
  }

  /**
   * Creates the conversation, or updates it (renaming it when replaceconversationid is given);
   * `mayUpdate` throws when the caller may not change the existing one.
   */
  async upsert(app: Application, input: UpsertConversationInput, mayUpdate: (existing: Conversation) => void): Promise<{ conversation: Conversation; created: boolean }> {
    try {
      return await this.write(app, input, mayUpdate);
    } catch (err) {
      const index = violatedUniqueIndex(err);
      if (index === 'comment_conversations_customid_idx') throw conflict(`The customid ${input.customid ?? ''} is already used by another conversation.`, { customid: 'is already in use' });
      if (index === 'comment_conversations_id_idx') throw conflict(`A conversation ${input.replaceconversationid ?? ''} already exists.`, { replaceconversationid: 'is already in use' });
      throw err;
    }
  }

  private async write(app: Application, input: UpsertConversationInput, mayUpdate: (existing: Conversation) => void): Promise<{ conversation: Conversation; created: boolean }> {
    const renaming = input.replaceconversationid !== undefined && input.replaceconversationid !== input.conversationid;
    for (;;) {
      const existing = await store.findConversation(this.deps.db, app.id, input.conversationid);
      if (existing === undefined && renaming) throw notFound(`Conversation ${input.conversationid} not found; it cannot be renamed.`);
      if (existing === undefined) {
        const now = new Date();
        const created = await store.insertConversation(this.deps.db, {
          key: newId(),
          appId: app.id,
          conversationId: input.conversationid,
          added: now,
          whenModified: now,
          ...patchOf(input, undefined),
        });
        if (created === undefined) continue; // a concurrent request created it: update instead
        this.deps.cache.changed(app.id, [created.conversationId]);
        return { conversation: created, created: true };
      }
      mayUpdate(existing);
      const patch = patchOf(input, existing);
      if (renaming) patch.conversationId = input.replaceconversationid;
      const updated = await store.updateConversation(this.deps.db, existing.key, { ...patch, whenModified: new Date() });
      if (updated === undefined) continue; // deleted meanwhile: create it
      this.deps.cache.changed(app.id, [existing.conversationId, updated.conversationId]);
      return { conversation: updated, created: false };
    }
  }

  /** One page of the application's conversations (of one property when given), newest first. */
  async list(app: Application, property: string | undefined, cursor: string, limit: number): Promise<unknown> {
    const after = cursor === '' ? undefined : decodeCursor(cursor, isListAfter);
    const rows = await store.listConversations(this.deps.db, app.id, property, after, limit + 1);
    const { items, next } = pageOf(rows, limit, listAfterOf);
    return listPayload('list.commentconversations', 'conversations', items.map(conversationView), next);
  }

  async findMany(app: Application, ids: string[], customIds: string[]): Promise<Conversation[]> {
    return store.findConversations(this.deps.db, app.id, ids, customIds);
  }

  /**
   * Adds or removes a user's reaction to the conversation itself (group-committed, see
   * TallyWriter); 404 when the user does not exist. The conversation as the user sees it: their
   * own reactions listed even when they are not among the latest.
   */
  async react(app: Application, conversationId: string, userId: string, reaction: string, reacted: boolean): Promise<Conversation> {
    await this.deps.users.require(app, userId);
    const { row, own } = await this.deps.tallies.reactToConversation(app.id, conversationId, { userId, type: reaction, on: reacted });
    if (row === undefined) throw notFound(`Conversation ${conversationId} not found.`);
    this.changedOnce(app, row);
    return { ...row, reactions: withOwn(row.reactions, own, userId, (u) => u === userId) };
  }

  /** A batch's requests share its row: its cached pages are dropped once. */
  private changedOnce(app: Application, row: Conversation): void {
    if (this.announced.has(row)) return;
    this.announced.add(row);
    this.deps.cache.changed(app.id, [row.conversationId]);
  }

  /** Removes every comment and reply; the conversation stays. Returns how many comments went. */
  async reset(app: Application, conversation: Conversation): Promise<number> {
    const deletedComments = await this.deps.db.transaction(async (tx) => {
      const removed = await deleteAllInConversation(tx, conversation.key);
      // Relative, not 0: a comment committed while the delete ran survives it and stays counted.
      await store.adjustCommentCount(tx, conversation.key, -removed);
      return removed;
    });
    this.deps.cache.changed(app.id, [conversation.conversationId]);
    return deletedComments;
  }

  /** Deletes the conversation with all its comments; returns how many comments went. */
  async remove(app: Application, conversation: Conversation): Promise<number> {
    const deletedComments = await this.deps.db.transaction(async (tx) => {
      const removed = await deleteAllInConversation(tx, conversation.key);
      await store.deleteConversation(tx, conversation.key);
      return removed;
    });
    this.deps.cache.changed(app.id, [conversation.conversationId]);
    endLive(this.deps.bus, app.id, 'conversation', conversation.conversationId, 'deleted');
    return deletedComments;
  }
}

/** The stored fields a request sets: required ones always, optional ones when given. */
function patchOf(input: UpsertConversationInput, existing: Conversation | undefined): ConversationPatch & { property: string; moderation: string } {
  for (const [field, column] of STICKY) {
    const held = existing?.[column] ?? '';
    if (input[field] === '' && held !== '') throw badRequest(`${field} held a value and cannot be set back to empty.`, { [field]: 'cannot be set back to empty once it held a value' });
  }
  const patch: ConversationPatch & { property: string; moderation: string } = { property: input.property, moderation: input.moderation };
  if (input.owneruserid !== undefined) patch.ownerUserId = input.owneruserid === '' ? null : input.owneruserid;
  if (input.maxreports !== undefined) patch.maxReports = input.maxreports;
  if (input.title !== undefined) patch.title = input.title;
  if (input.maxcommentlen !== undefined) patch.maxCommentLen = input.maxcommentlen;
  if (input.open !== undefined) patch.open = input.open;
  if (input.enableprofanityfilter !== undefined) patch.enableProfanityFilter = input.enableprofanityfilter;
  if (input.profanityfiltermode !== undefined) patch.profanityFilterMode = input.profanityfiltermode;
  if (input.added !== undefined) patch.added = input.added;
  if (input.customtype !== undefined) patch.customType = input.customtype;
  if (input.customid !== undefined) patch.customId = input.customid === '' ? null : input.customid;
  if (input.custompayload !== undefined) patch.customPayload = input.custompayload;
  if (input.customfield1 !== undefined) patch.customField1 = input.customfield1;
  if (input.customfield2 !== undefined) patch.customField2 = input.customfield2;
  if (input.customtags !== undefined) patch.customTags = input.customtags;
  return patch;
}
