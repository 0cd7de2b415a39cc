import type { Application } from '../../apps/types.js';
import { forbidden, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { effectActive, type Role } from '../../users/types.js';
import { acceptBody } from './body-rules.js';
import { findComment } from '../store/comments.js';
import { announce, publishedEvent, type CommentsDeps } from '../deps.js';
import type { CreateCommentInput } from '../schemas.js';
import type { Comment, CommentView, Conversation } from '../views.js';

export interface NewComment extends Omit<CreateCommentInput, 'role'> {
  /** Only passed through when the caller may set roles. */
  role: Role | undefined;
}

/** A closed conversation still takes comments from its owner and from moderators and admins. */
async function assertMayCommentWhenClosed(deps: CommentsDeps, app: Application, conversation: Conversation, input: NewComment): Promise<void> {
  if (conversation.ownerUserId === input.userid) return;
  // A role the (trusted) request sets now counts, as it is stored before the comment.
  const role = input.role ?? (await deps.users.get(app, input.userid))?.role ?? 'user';
  if (role === 'user') throw forbidden(`Conversation ${conversation.conversationId} is closed: only its owner and moderators may comment.`);
}

/** Creates a comment or a reply (parent from the path, else from `replyto`); `blocked` when the profanity filter refuses it. */
export async function createComment(deps: CommentsDeps, app: Application, conversationId: string, input: NewComment, pathParent: string | undefined): Promise<CommentView | 'blocked'> {
  const conversation = await deps.conversations.require(app, conversationId);
  if (!conversation.open) await assertMayCommentWhenClosed(deps, app, conversation, input);
  const parentId = pathParent ?? (input.replyto === undefined || input.replyto === '' ? undefined : input.replyto);
  const parent = parentId === undefined ? undefined : await findComment(deps.db, conversation.key, parentId);
  if (parentId !== undefined && parent === undefined) throw notFound(`Comment ${parentId} not found in conversation ${conversationId}; cannot reply to it.`);
  const accepted = acceptBody(conversation, input.body);
  const fields = { handle: input.handle, displayname: input.displayname, pictureurl: input.pictureurl, profileurl: input.profileurl, role: input.role, customtags: input.usercustomtags };
  // Without user fields there is nothing to update: a known (cached) user is used as is.
  const bare = Object.values(fields).every((v) => v === undefined);
  const user = (bare ? await deps.users.get(app, input.userid) : undefined) ?? (await deps.users.ensure(app, { userid: input.userid, ...fields }, { onHandleTaken: 'variant' }));
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
  const view = await deps.reader.renderOne(app, conversation, comment);
  const event = publishedEvent(app, conversation, comment, view, parent?.userId);
  await deps.hooks.beforePublish(event);
  await deps.writer.insert(comment);
  if (!pending) published(deps, app, conversation, comment, view, parent?.userId);
  else deps.cache.changed(app.id, [conversation.conversationId]);
  return view;
}

/** After a comment became visible (at once, or approved from the queue): webhooks and live push. */
export function published(deps: CommentsDeps, app: Application, conversation: Conversation, comment: Comment, view: CommentView, parentAuthor: string | undefined): void {
  deps.hooks.afterPublish(publishedEvent(app, conversation, comment, view, parentAuthor));
  announce(deps, app, conversation, comment.parentId === '' ? 'comment.created' : 'comment.replied', view);
}
