import type { Shape } from '../realtime/compact/shapes.js';
import type { Tally } from '../db/schema/comments.js';
import type { User } from '../users/types.js';
import { userView } from '../users/views.js';
import type { Comment, Conversation } from './types.js';

/** What a logically deleted comment shows instead of its body. */
export const DELETED_BODY = '[deleted]';

export function conversationView(c: Conversation) {
  return {
    kind: 'comment.conversation',
    appid: c.appId,
    owneruserid: c.ownerUserId,
    conversationid: c.conversationId,
    property: c.property,
    moderation: c.moderation,
    maxreports: c.maxReports,
    enableprofanityfilter: c.enableProfanityFilter,
    profanityfiltermode: c.profanityFilterMode,
    title: c.title,
    maxcommentlen: c.maxCommentLen,
    commentcount: c.commentCount,
    open: c.open,
    added: c.added.toISOString(),
    whenmodified: c.whenModified.toISOString(),
    customtype: c.customType,
    customid: c.customId ?? '',
    custompayload: c.customPayload,
    customfield1: c.customField1,
    customfield2: c.customField2,
    customtags: c.customTags,
    reactions: c.reactions,
    likecount: c.likeCount,
  };
}

/** User ids a comment's rendering needs: its author and everyone in its reactions and votes. */
export function usersOf(comment: Comment): string[] {
  const ids = [comment.userId];
  for (const tally of comment.reactions) ids.push(...tally.users);
  for (const tally of comment.votes) ids.push(...tally.users);
  return ids;
}

/** How a user is listed in a reaction or vote. */
export function entryOf(user: User | undefined, id = user?.userId ?? '') {
  return { userid: id, handle: user?.handle ?? '', displayname: user?.displayName ?? '' };
}

function tallyView(tallies: Tally[], users: Map<string, User>) {
  return tallies.map((t) => ({ type: t.type, count: t.count, users: t.users.map((id) => entryOf(users.get(id), id)) }));
}

/** comment.comment in compact frames (docs/realtime.md). */
export const COMMENT_SHAPE: Shape = {
  identity: 'id',
  fields: [
    ['id', 'i', 'uuid'],
    ['appid', 'ap', 'app'],
    ['conversationid', 'c', 'topic'],
    ['commenttype', 'ct', 'eq', 'comment'],
    ['added', 'a', 'time'],
    ['modified', 'mo', 'same', 'added'],
    ['userid', 'ui', 'sub', 'user', 'userid'],
    ['user', 'U', 'obj', 'app.user'],
    ['body', 'b', 'eq', ''],
    ['originalbody', 'o', 'same', 'body'],
    ['hashtags', 'ht', 'hashtags', 'body'],
    ['mentions', 'mn', 'mentions', 'body'],
    ['customtype', 'cy', 'eq', ''],
    ['customid', 'ci', 'eq', ''],
    ['custompayload', 'cp', 'eq', ''],
    ['customfield1', 'c1', 'eq', ''],
    ['customfield2', 'c2', 'eq', ''],
    ['customtags', 'tg', 'eq', []],
    ['edited', 'ed', 'eq', false],
    ['censored', 'cs', 'eq', false],
    ['deleted', 'de', 'eq', false],
    ['active', 'ac', 'eq', true],
    ['parentid', 'pi', 'eq', null],
    ['hierarchy', 'hi', 'eq', []],
    ['reactions', 'rx', 'eq', []],
    ['votes', 'v', 'eq', []],
    ['likecount', 'lc', 'eq', 0],
    ['replycount', 'rc', 'eq', 0],
    ['votecount', 'vc', 'eq', 0],
    ['votescore', 'vs', 'eq', 0],
    ['moderation', 'm', 'eq', 'na'],
    ['reports', 'rp', 'eq', []],
  ],
};

/** The comment.comment object; `users` must hold every id `usersOf` names (one batched read). */
export function commentView(c: Comment, conversationId: string, users: Map<string, User>) {
  const author = users.get(c.userId);
  return {
    kind: 'comment.comment',
    id: c.id,
    appid: c.appId,
    conversationid: conversationId,
    commenttype: c.commentType,
    added: c.added.toISOString(),
    modified: c.modified.toISOString(),
    userid: c.userId,
    user: author === undefined ? null : userView(author),
    body: c.deleted ? DELETED_BODY : c.body,
    originalbody: c.deleted ? DELETED_BODY : c.originalBody,
    hashtags: c.deleted ? [] : c.hashtags,
    mentions: c.deleted ? [] : c.mentions,
    customtype: c.customType,
    customid: c.customId ?? '',
    custompayload: c.customPayload,
    customfield1: c.customField1,
    customfield2: c.customField2,
    customtags: c.customTags,
    edited: c.edited,
    censored: c.censored,
    deleted: c.deleted,
    active: c.active,
    parentid: c.parentId,
    hierarchy: c.hierarchy,
    reactions: tallyView(c.reactions, users),
    votes: tallyView(c.votes, users),
    likecount: c.likeCount,
    replycount: c.replyCount,
    votecount: c.voteCount,
    votescore: c.voteScore,
    moderation: c.moderation,
    reports: c.reports,
  };
}
export type CommentView = ReturnType<typeof commentView>;
