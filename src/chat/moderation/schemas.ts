import * as v from 'valibot';
import { choice, flag, integer, paging, requiredText, text } from '../../http/fields.js';
import { REPORT_TYPES } from '../../users/schemas.js';

/** Reporting a message or a user: the reporter is required (api-surface.md, Settled contradictions). */
export const Report = v.object({ userid: requiredText(250), reporttype: choice(REPORT_TYPES) });

export const Decision = v.object({ approve: flag() });

export const Queue = v.object({ roomid: v.optional(text(250)), ...paging(50, 200) });

export const Bounce = v.object({ userid: requiredText(250), bounce: flag(), announcement: v.optional(text(2048)) });

export const RoomEffect = v.object({ userid: requiredText(250), applyeffect: flag(), expireseconds: v.optional(integer(0, 2_147_483_647)) });

export const Paging = v.object(paging(100, 200));

export const Purge = v.object({ userid: requiredText(250), byuserid: requiredText(250) });
