import * as v from 'valibot';
import { flag, paging, stringList } from '../http/fields.js';

export const NOTIFICATION_TYPES = ['reply', 'quote', 'mention', 'reaction'] as const;

export const ListNotifications = v.object({
  filternotificationtypes: v.optional(
    v.pipe(
      stringList(4),
      v.check((types) => types.every((t) => (NOTIFICATION_TYPES as readonly string[]).includes(t.toLowerCase())), `must only hold ${NOTIFICATION_TYPES.join(', ')}`),
      v.transform((types) => types.map((t) => t.toLowerCase())),
    ),
    [],
  ),
  includeread: v.optional(flag(), false),
  ...paging(50, 200),
});

export const SetRead = v.object({ read: v.optional(flag(), true) });
export const MarkAllRead = v.object({ delete: v.optional(flag(), false) });
