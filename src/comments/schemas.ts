import * as v from 'valibot';
import { bytesText, choice, flag, integer, paging, requiredText, stringList, text, timestamp } from '../http/fields.js';
import { NUL_REFUSED } from '../http/storable.js';
import { REPORT_TYPES, userFields } from '../users/schemas.js';

/** Postgres text cannot hold NUL characters: they are refused as bad input instead of failing the write. */
const NUL = '\u0000';
const noNul = <S extends v.GenericSchema<unknown, string>>(schema: S) =>
  v.pipe(
    schema,
    v.check((s: string) => !s.includes(NUL), NUL_REFUSED),
  );
const txt = (max: number) => noNul(text(max));
const reqTxt = (max: number) => noNul(requiredText(max));
const ids = (max: number) =>
  v.pipe(
    stringList(max),
    v.check((xs) => xs.every((x) => !x.includes(NUL)), NUL_REFUSED),
  );
const tags = () =>
  v.pipe(
    stringList(100),
    v.check((xs) => xs.every((x) => !x.includes(NUL) && x.length <= 250), 'must be tags of at most 250 characters without NUL'),
  );

export const MAX_COMMENT_LEN = 10_485_760;
export const SORTS = ['oldest', 'newest', 'likes', 'votescore', 'mostreplies'] as const;
export type Sort = (typeof SORTS)[number];
export const DIRECTIONS = ['forward', 'backward'] as const;
export const PROFANITY_MODES = ['mask', 'block'] as const;

/** RFC 3986 path characters without percent-encoding, minus `&`: safe in a URL segment as is. */
const URL_FRIENDLY = /^[A-Za-z0-9\-._~!$'()*+,;=:@]+$/;
const conversationId = () =>
  v.pipe(
    reqTxt(250),
    v.check((s) => URL_FRIENDLY.test(s) && s !== '.' && s !== '..', "must be URL-friendly: letters, digits and - . _ ~ ! $ ' ( ) * + , ; = : @ only"),
  );

/** The custom fields conversations and comments share. */
const customFields = {
  customtype: v.optional(txt(250)),
  customid: v.optional(txt(250)),
  custompayload: v.optional(txt(65536)),
  customfield1: v.optional(noNul(bytesText(1024))),
  customfield2: v.optional(noNul(bytesText(1024))),
  customtags: v.optional(tags()),
};

export const UpsertConversation = v.object({
  conversationid: conversationId(),
  property: reqTxt(250),
  moderation: choice(['pre', 'post']),
  replaceconversationid: v.optional(conversationId()),
  owneruserid: v.optional(txt(250)),
  maxreports: v.optional(integer(0, 1_000_000)),
  title: v.optional(txt(1024)),
  maxcommentlen: v.optional(integer(1, MAX_COMMENT_LEN)),
  open: v.optional(flag()),
  enableprofanityfilter: v.optional(flag()),
  profanityfiltermode: v.optional(choice(PROFANITY_MODES)),
  added: v.optional(timestamp()),
  ...customFields,
});
export type UpsertConversationInput = v.InferOutput<typeof UpsertConversation>;

export const ListConversations = v.object({ propertyid: v.optional(txt(250)), ...paging(50, 200) });
export const FindByCustomId = v.object({ customid: reqTxt(250) });
const ENTITIES = ['reactions', 'likecount', 'commentcount'];
export const ConversationDetails = v.object({
  ids: v.optional(ids(200), []),
  cid: v.optional(ids(200), []),
  entities: v.optional(
    v.pipe(
      stringList(3),
      v.check((xs) => xs.every((x) => ENTITIES.includes(x.toLowerCase())), 'must be among reactions, likecount, commentcount'),
    ),
    [],
  ),
});

const REACTION = /^(like|emoji:.+)$/u;
const reaction = () =>
  v.pipe(
    reqTxt(64),
    v.check((s) => REACTION.test(s), 'must be like or emoji:{emoji}'),
  );
export const React = v.object({
  userid: reqTxt(250),
  reaction: reaction(),
  reacted: flag(),
});

/** The full list of one reaction's users, paged (answers list only the latest). */
export const ReactionUsers = v.object({ reaction: v.optional(reaction(), 'like'), ...paging(50, 200) });
export const VoteUsers = v.object({ vote: v.optional(choice(['up', 'down']), 'up'), ...paging(50, 200) });

/** commenttype is int32 in the typed schema; 0 (its only listed value) is `comment`. */
const commentType = () =>
  v.pipe(
    txt(64),
    v.transform((s) => (s === '' || /^\d+$/.test(s) ? 'comment' : s)),
  );

export const CreateComment = v.object({
  userid: reqTxt(250),
  body: reqTxt(MAX_COMMENT_LEN),
  replyto: v.optional(txt(250)),
  added: v.optional(timestamp()),
  commenttype: v.optional(commentType()),
  ...customFields,
  handle: v.optional(noNul(userFields.handle.wrapped)),
  displayname: v.optional(noNul(userFields.displayname.wrapped)),
  pictureurl: v.optional(noNul(userFields.pictureurl.wrapped)),
  profileurl: v.optional(noNul(userFields.profileurl.wrapped)),
  role: userFields.role,
  usercustomtags: v.optional(tags()),
});
export type CreateCommentInput = v.InferOutput<typeof CreateComment>;

export const ListComments = v.object({
  ...paging(200, 200),
  sort: v.optional(choice(SORTS), 'oldest'),
  direction: v.optional(choice(DIRECTIONS, true), 'forward'),
  includechildren: v.optional(flag(), false),
  includeinactive: v.optional(flag(), false),
  filterpostedbyuserid: v.optional(txt(250), ''),
});
export type ListCommentsQuery = v.InferOutput<typeof ListComments>;

export const ListReplies = v.object({
  ...paging(200, 200),
  sort: v.optional(choice(SORTS), 'oldest'),
  direction: v.optional(choice(DIRECTIONS, true), 'forward'),
  includeinactive: v.optional(flag(), false),
});

export const RepliesBatch = v.object({
  parentids: ids(200),
  childlimit: v.optional(integer(1, 200), 10),
  includeinactive: v.optional(flag(), false),
});

export const EditComment = v.object({ userid: reqTxt(250), body: reqTxt(MAX_COMMENT_LEN) });

export const SetDeleted = v.object({
  userid: reqTxt(250),
  deleted: flag(),
  permanentifnoreplies: v.optional(flag(), false),
});

export const DeleteComment = v.object({ userid: v.optional(txt(250)) });

export const Vote = v.object({ userid: reqTxt(250), vote: choice(['up', 'down', 'none', '']) });
export type VoteValue = v.InferOutput<typeof Vote>['vote'];

export const ReportComment = v.object({ userid: reqTxt(250), reporttype: choice(REPORT_TYPES) });

export const ModerationQueue = v.object({ conversationid: v.optional(txt(250), ''), ...paging(50, 200) });
export const Decision = v.object({ approve: flag() });
