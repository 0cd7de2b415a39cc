import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import { decodeCursor, listPayload, pageOf } from '../../http/cursor.js';
import type { UserService } from '../../users/service.js';
import { COMMENT_REACTIONS, COMMENT_VOTES, CONVERSATION_REACTIONS, pageUsers, type TallyRows } from '../store/tally-rows.js';
import { entryOf } from '../views.js';
import type { Conversations } from './conversations.js';
import type { Reader } from './reading.js';
import { isTimeKey } from './time-key.js';

export interface ReactorsDeps {
  db: Db;
  users: Pick<UserService, 'getMany'>;
  conversations: Conversations;
  reader: Pick<Reader, 'find'>;
}

export interface ReactorsQuery {
  type: string;
  cursor: string;
  limit: number;
}

/** Everyone who took a reaction or vote, newest first, paged: answers and pushes list only the latest few. */
export class Reactors {
  constructor(private readonly deps: ReactorsDeps) {}

  /** Users of one reaction (`reactions`) or vote side (`votes`) of a comment. */
  async ofComment(app: Application, conversationId: string, commentId: string, what: 'reactions' | 'votes', q: ReactorsQuery): Promise<unknown> {
    const { comment } = await this.deps.reader.find(app, conversationId, commentId);
    return this.page(app, what === 'votes' ? COMMENT_VOTES : COMMENT_REACTIONS, comment.id, q);
  }

  async ofConversation(app: Application, conversationId: string, q: ReactorsQuery): Promise<unknown> {
    const conversation = await this.deps.conversations.require(app, conversationId);
    return this.page(app, CONVERSATION_REACTIONS, conversation.key, q);
  }

  private async page(app: Application, rows: TallyRows, target: string, q: ReactorsQuery): Promise<unknown> {
    const after = q.cursor === '' ? undefined : decodeCursor(q.cursor, isTimeKey);
    const found = await pageUsers(this.deps.db, rows, target, q.type, after, q.limit + 1);
    const { items, next } = pageOf(found, q.limit, (r) => ({ a: r.added.toISOString(), i: r.userId }));
    const users = await this.deps.users.getMany(
      app,
      items.map((r) => r.userId),
    );
    return listPayload(
      'list.reactionusers',
      'users',
      items.map((r) => ({ ...entryOf(users.get(r.userId), r.userId), type: q.type, added: r.added.toISOString() })),
      next,
    );
  }
}
