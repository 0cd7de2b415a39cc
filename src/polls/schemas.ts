import * as v from 'valibot';
import { choice, customField, flag, integer, paging, requiredText, stringList, text, timestamp } from '../http/fields.js';

export const POLL_STATUSES = ['unpublished', 'published', 'closed'] as const;
export type PollStatus = (typeof POLL_STATUSES)[number];

const when = () => v.optional(v.nullable(timestamp()));

/** How choices are ordered, as the SDKs send it (none, random, position, ...); the older boolean means position or none. */
const sortChoices = () =>
  v.optional(
    v.pipe(
      v.union([v.boolean(), v.string()], 'must be a sort order such as none, random or position'),
      v.transform((x) => (typeof x === 'boolean' ? String(x) : x.trim().toLowerCase())),
      v.check((s) => /^[a-z_]{1,50}$/.test(s), 'must be a sort order such as none, random or position'),
      v.transform((s) => (s === 'true' ? 'position' : s === 'false' ? 'none' : s)),
    ),
  );
const limit = () => v.optional(integer(0, 1_000_000));

/** The customer's own fields, on polls and on choices. */
const customInput = {
  customid: v.optional(v.nullable(text(250))),
  customtype: v.optional(text(250)),
  custompayload: v.optional(text(65536)),
  customfield1: customField(),
  customfield2: customField(),
  customtags: v.optional(stringList(100)),
};

const pollFields = {
  ownerid: v.optional(v.nullable(text(250))),
  subtitle: v.optional(text(1024)),
  description: v.optional(text(65536)),
  pictureurl: v.optional(text(2048)),
  ...customInput,
  allowmultiplechoicesperuser: v.optional(flag()),
  maxtotalresponsesperuser: limit(),
  maxresponsesperchoiceperuser: limit(),
  whenpollopens: when(),
  whenpollcloses: when(),
  whenpollexpires: when(),
  status: v.optional(choice(POLL_STATUSES, true)),
  displayresults: v.optional(flag()),
  sortchoices: sortChoices(),
  /** The JS SDK's name for sortchoices. */
  sortanswers: sortChoices(),
};

export const CreatePoll = v.object({ title: requiredText(1024), ...pollFields });
export const UpdatePoll = v.object({ title: v.optional(requiredText(1024)), ...pollFields });
export type PollInput = v.InferOutput<typeof UpdatePoll>;

export const ListPolls = v.object({ includeunpublished: v.optional(flag(), false), ...paging(50, 200) });

const choiceFields = {
  /** Any integer; negative (the SDKs send -1): after the last choice. */
  position: v.optional(integer(-1_000_000, 1_000_000)),
  title: requiredText(1024),
  subtitle: v.optional(text(1024)),
  imageurl: v.optional(text(2048)),
  videoid: v.optional(text(1024)),
  embedcode: v.optional(text(65536)),
  ...customInput,
};

const ChoiceInput = v.object(choiceFields);
export type ChoiceInput = v.InferOutput<typeof ChoiceInput>;

/** The add-choices body: one choice, or several as `{choices: [...]}`; the route validates it as OneChoice or ManyChoices. */
export const AddChoicesBody = v.looseObject({});
export const OneChoice = ChoiceInput;
export const ManyChoices = v.object({
  choices: v.pipe(v.array(ChoiceInput), v.minLength(1, 'must hold at least one choice'), v.maxLength(200, 'must have at most 200 items')),
});

export const ListChoices = v.object({ limit: v.optional(integer(1, 200), 200) });

export const Vote = v.object({ userid: requiredText(250), choiceid: requiredText(250) });

export const Paging = v.object(paging(50, 200));
export type PageRequest = v.InferOutput<typeof Paging>;

/** `responses/all`: one user's responses when `userid` is given, else every response, paged. */
export const AllResponses = v.object({ userid: v.optional(requiredText(250)), ...paging(50, 200) });

export const AddLead = v.object({
  userid: v.optional(text(250)),
  firstname: v.optional(text(250)),
  lastname: v.optional(text(250)),
  email: v.pipe(requiredText(320), v.email('must be an email address')),
  phone: v.optional(text(64)),
  custompayload: v.optional(text(65536)),
});
export type LeadInput = v.InferOutput<typeof AddLead>;
