import * as v from 'valibot';
import { choice, flag, integer, paging, requiredText, stringList, text } from '../http/fields.js';
import { ROLES } from './types.js';

export const REPORT_TYPES = ['abuse', 'spam', 'selfharm', 'hate', 'violence', 'harassment', 'nudity', 'illegal', 'false', 'other'] as const;

/** User fields other bodies carry too (join, comment). */
export const userFields = {
  handle: v.optional(text(64)),
  displayname: v.optional(text(200)),
  pictureurl: v.optional(text(2048)),
  profileurl: v.optional(text(2048)),
  role: v.optional(choice(ROLES, true)),
};

export const UpsertUser = v.object({
  ...userFields,
  customtags: v.optional(stringList(100)),
});

export const SetRole = v.object({ role: choice(ROLES, true) });

export const Effect = v.object({
  applyeffect: flag(),
  expireseconds: v.optional(integer(0, 2_147_483_647)),
});

export const GlobalPurge = v.object({ byuserid: requiredText(250) });

export const ReportUser = v.object({ userid: requiredText(250), reporttype: choice(REPORT_TYPES) });

export const Search = v.object({
  handle: v.optional(text(64)),
  name: v.optional(text(200)),
  userid: v.optional(text(250)),
  ...paging(50, 200),
});

export const Paging = v.object(paging(50, 200));
