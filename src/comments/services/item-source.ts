import type { Db } from '../../db/client.js';
import type { ItemViewSource } from '../../events/item-views.js';
import { findCommentsInApp } from '../store/comments.js';
import { findConversationsByKeys } from '../store/conversations.js';
import type { Reader } from './reading.js';

export interface CommentItemDeps {
  db: Db;
  reader: Pick<Reader, 'renderAcross'>;
}

/** Comments by id as `GET …/comments/{commentid}` answers them: one read of the rows, one of their conversations, one of their users. */
export function commentItemSource({ db, reader }: CommentItemDeps): ItemViewSource {
  return async (app, ids) => {
    const found = await findCommentsInApp(db, app.id, ids);
    const conversations = new Map((await findConversationsByKeys(db, [...new Set(found.map((c) => c.conversationKey))])).map((c) => [c.key, c.conversationId]));
    // A comment whose conversation is gone is gone with it (the conversation's delete removes its comments).
    const shown = found.filter((c) => conversations.has(c.conversationKey));
    return new Map((await reader.renderAcross(app, (c) => conversations.get(c.conversationKey) as string, shown)).map((v) => [v.id, v]));
  };
}
