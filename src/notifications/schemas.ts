import * as v from 'valibot';
import { flag, paging, stringList } from '../http/fields.js';
import { isKnownNotificationName, notificationKinds } from './filter.js';

export const ListNotifications = v.object({
  /** Absent: every kind. */
  filternotificationtypes: v.optional(
    v.pipe(
      stringList(100),
      v.check((names) => names.every(isKnownNotificationName), 'must only hold notification types (reply, quote, mention, reaction, chatreply, commentreply, ...) or chat event types'),
      v.transform(notificationKinds),
    ),
  ),
  includeread: v.optional(flag(), false),
  ...paging(50, 200),
});

export const SetRead = v.object({ read: v.optional(flag(), true) });
export const MarkAllRead = v.object({ delete: v.optional(flag(), false) });
