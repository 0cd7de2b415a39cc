import type { Db } from '../../db/client.js';
import type { ItemViewSource } from '../../events/item-views.js';
import { findCommentsWithConversation } from '../store/comments.js';
import type { Reader } from './reading.js';

export interface CommentItemDeps {
  db: Db;
  reader: Pick<Reader, 'renderAcross'>;
}

/** Comments by id as `GET …/comments/{commentid}` answers them: one read of the rows with their conversations' ids, one of their users. */
export function commentItemSource({ db, reader }: CommentItemDeps): ItemViewSource {
  return async (app, ids) => {
    const found = await findCommentsWithConversation(db, app.id, ids);
    const conversationOf = new Map(found.map((f) => [f.comment, f.conversationId]));
    const views = await reader.renderAcross(app, (c) => conversationOf.get(c) as string, [...conversationOf.keys()]);
    return new Map(views.map((v) => [v.id, v]));
  };
}
