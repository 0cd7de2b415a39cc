import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import { forbidden, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { UserService } from '../../users/service.js';
import { effectActive, type Role } from '../../users/types.js';
import type { CreateCommentInput } from '../schemas.js';
import { findComment } from '../store/comments.js';
import type { Comment, Conversation } from '../types.js';
import type { CommentView } from '../views.js';
import { acceptBody } from './body-rules.js';
import type { CommentWriter } from './comment-writer.js';
import type { Conversations } from './conversations.js';
import type { PageCache } from './page-cache.js';
import type { Publishing } from './publishing.js';
import type { Reader } from './reading.js';

export interface NewComment extends Omit<CreateCommentInput, 'role'> {
  /** Only passed through when the caller may set roles. */
  role: Role | undefined;
}

export interface PostingDeps {
  db: Db;
  users: Pick<UserService, 'get' | 'ensure'>;
  cache: PageCache;
  conversations: Conversations;
  reader: Reader;
  writer: CommentWriter;
  publishing: Publishing;
}

/** New comments and replies. */
export class Posting {
  constructor(private readonly deps: PostingDeps) {}

  /** Creates a comment or a reply (parent from the path, else from `replyto`); `blocked` when the profanity filter refuses it. */
  async create(app: Application, conversationId: string, input: NewComment, pathParent: string | undefined): Promise<CommentView | 'blocked'> {
    const conversation = await this.deps.conversations.require(app, conversationId);
    if (!conversation.open) await this.assertMayCommentWhenClosed(app, conversation, input);
    const parentId = pathParent ?? (input.replyto === undefined || input.replyto === '' ? undefined : input.replyto);
    const parent = parentId === undefined ? undefined : await findComment(this.deps.db, conversation.key, parentId);
    if (parentId !== undefined && parent === undefined) throw notFound(`Comment ${parentId} not found in conversation ${conversationId}; cannot reply to it.`);
    const accepted = acceptBody(conversation, input.body);
    const fields = { handle: input.handle, displayname: input.displayname, pictureurl: input.pictureurl, profileurl: input.profileurl, role: input.role, customtags: input.usercustomtags };
    // Without user fields there is nothing to update: a known (cached) user is used as is.
    const bare = Object.values(fields).every((v) => v === undefined);
    const user = (bare ? await this.deps.users.get(app, input.userid) : undefined) ?? (await this.deps.users.ensure(app, { userid: input.userid, ...fields }, { onHandleTaken: 'variant' }));
    if (effectActive(user.banned, user.bannedUntil)) throw forbidden(`User ${user.userId} is banned from commenting.`);
    if (accepted === 'blocked') return 'blocked';

    const now = new Date();
    const pending = conversation.moderation === 'pre';
    const hierarchy = parent === undefined ? [] : [...parent.hierarchy, parent.id];
    const comment: Comment = {
      id: newId(),
      appId: app.id,
      conversationKey: conversation.key,
      parentId: parent?.id ?? '',
      rootId: hierarchy[0] ?? '',
      hierarchy,
      userId: user.userId,
      commentType: input.commenttype ?? 'comment',
      body: accepted.body,
      originalBody: accepted.body,
      hashtags: accepted.hashtags,
      mentions: accepted.mentions,
      customType: input.customtype ?? '',
      customId: input.customid === undefined || input.customid === '' ? null : input.customid,
      customPayload: input.custompayload ?? '',
      customField1: input.customfield1 ?? '',
      customField2: input.customfield2 ?? '',
      customTags: input.customtags ?? [],
      edited: false,
      censored: accepted.censored,
      deleted: false,
      active: !pending,
      moderation: pending ? 'pending' : 'na',
      likeCount: 0,
      replyCount: 0,
      voteCount: 0,
      voteScore: 0,
      reactions: [],
      votes: [],
      reports: [],
      added: input.added ?? now,
      modified: now,
    };
    const view = await this.deps.reader.renderOne(app, conversation, comment);
    await this.deps.publishing.beforePublish(app, conversation, comment, view, parent?.userId);
    await this.deps.writer.insert(comment);
    if (!pending) this.deps.publishing.published(app, conversation, comment, view, parent?.userId);
    else this.deps.cache.changed(app.id, [conversation.conversationId]);
    return view;
  }

  /** A closed conversation still takes comments from its owner and from moderators and admins. */
  private async assertMayCommentWhenClosed(app: Application, conversation: Conversation, input: NewComment): Promise<void> {
    if (conversation.ownerUserId === input.userid) return;
    // A role the (trusted) request sets now counts, as it is stored before the comment.
    const role = input.role ?? (await this.deps.users.get(app, input.userid))?.role ?? 'user';
    if (role === 'user') throw forbidden(`Conversation ${conversation.conversationId} is closed: only its owner and moderators may comment.`);
  }
}
