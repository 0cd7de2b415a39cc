import * as v from 'valibot';
import { choice, customField, flag, integer, paging, requiredText, stringList, text } from '../http/fields.js';
import { userFields } from '../users/schemas.js';
import { COMMAND_EVENT_TYPES } from './types.js';

const userId = () => requiredText(250);

/** Create and update take the same body; on update every field is optional. */
const roomFields = {
  description: v.optional(text(10_000)),
  pictureurl: v.optional(text(2048)),
  moderation: v.optional(choice(['pre', 'post'] as const)),
  enableactions: v.optional(flag()),
  enableenterandexit: v.optional(flag()),
  enableprofanityfilter: v.optional(flag()),
  enableautoexpiresessions: v.optional(flag()),
  delaymessageseconds: v.optional(integer(0, 86_400)),
  roomisopen: v.optional(flag()),
  maxreports: v.optional(integer(0, 1_000_000)),
  // null (as a room read back carries it, which the SDKs send to update): none.
  customid: v.optional(v.nullable(text(250))),
  customtype: v.optional(text(250)),
  custompayload: v.optional(text(65_536)),
  customfield1: customField(),
  customfield2: customField(),
  customtags: v.optional(stringList(100)),
  private: v.optional(flag()),
  ownerid: v.optional(v.nullable(text(250))),
};

export const CreateRoom = v.object({ name: requiredText(250), ...roomFields });
export const UpdateRoom = v.object({ name: v.optional(requiredText(250)), ...roomFields });
export type RoomBody = v.InferOutput<typeof UpdateRoom>;

export const ListRooms = v.object({
  ...paging(200, 200),
  filterbyname: v.optional(text(250), ''),
  filterbyid: v.optional(text(250), ''),
  filterbycustomid: v.optional(text(250), ''),
});

const ENTITIES = new Set(['room', 'numparticipants', 'lastmessagetime']);

export const BatchDetails = v.object({
  roomid: v.optional(stringList(100), []),
  customid: v.optional(stringList(100), []),
  entity: v.optional(
    v.pipe(
      stringList(3),
      v.check((xs) => xs.every((x) => ENTITIES.has(x.toLowerCase())), 'must be room, numparticipants or lastmessagetime'),
      v.transform((xs) => xs.map((x) => x.toLowerCase())),
    ),
    ['room'],
  ),
});

export const Join = v.object({
  userid: userId(),
  ...userFields,
  customtags: v.optional(stringList(100)),
  limit: v.optional(integer(1, 500), 50),
});

export const UserOnly = v.object({ userid: userId() });
export const Reset = v.object({ removeusereffects: v.optional(flag(), false) });
export const Permission = v.object({ allow: flag() });
export const Paging = v.object(paging(50, 200));

const messageFields = {
  customtype: v.optional(text(250)),
  customid: v.optional(text(250)),
  custompayload: v.optional(text(65_536)),
  customfield1: customField(),
  customfield2: customField(),
  customtags: v.optional(stringList(100)),
};

export const Command = v.object({
  command: requiredText(10_000),
  userid: userId(),
  eventtype: v.optional(choice(COMMAND_EVENT_TYPES), 'speech'),
  replyto: v.optional(text(250)),
  ...messageFields,
});

export const Message = v.object({ userid: userId(), body: requiredText(10_000), ...messageFields });

const reactionType = () =>
  v.pipe(
    requiredText(200),
    v.check((r) => r === 'like' || /^emoji:.+$/u.test(r), 'must be like or emoji:{emoji}'),
  );

export const React = v.object({ userid: userId(), reaction: reactionType(), reacted: flag() });

/** The paged list of who reacted to an event: one reaction type (like by default). */
export const Reactors = v.object({ ...paging(50, 200), reaction: v.optional(reactionType(), 'like') });

/** Reading one event: `userid` (when the caller may act as them) sees their own reactions listed. */
export const ViewerOnly = v.object({ userid: v.optional(text(250)) });

export const Edit = v.object({ userid: userId(), body: requiredText(10_000) });

export const SetDeleted = v.object({
  userid: userId(),
  deleted: flag(),
  permanentifnoreplies: v.optional(flag(), false),
});

export const DeleteEvent = v.object({ userid: v.optional(text(250)) });

/** updates and the scroll-back lists; userid names the reader, who sees their own shadow-banned events. */
export const FeedPaging = v.object({ ...paging(100, 500), userid: v.optional(text(250)) });
/** `updates`; `positions` adds each event's feed position (seq, cursor) beside `events`, for clients that order or resume by it. */
export const Updates = v.object({ ...FeedPaging.entries, positions: v.optional(flag(), false) });
export const History = v.object(paging(100, 2000));
export const ByType = v.object({ ...paging(100, 500), eventtype: requiredText(50) });
export const ByTimestamp = v.object({ limitolder: v.optional(integer(0, 500), 20), limitnewer: v.optional(integer(0, 500), 20), userid: v.optional(text(250)) });

export const Search = v.object({
  fromuserid: v.optional(text(250)),
  fromhandle: v.optional(text(64)),
  roomid: v.optional(text(250)),
  body: v.optional(text(1000)),
  types: v.optional(stringList(20)),
  direction: v.optional(choice(['forward', 'backward'] as const, true), 'backward'),
  ...paging(50, 200),
});
export type SearchBody = v.InferOutput<typeof Search>;
