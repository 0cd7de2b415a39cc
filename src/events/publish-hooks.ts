import { ItemViews } from './item-views.js';
import { JournalSources } from './journal-sources.js';

/**
 * What the webhooks area sees of every published chat event and comment. Areas call
 * `beforePublish` before storing (a prepublish hook may refuse by throwing a DomainError) and
 * `afterPublish` once the event is committed; both are cheap when an app has no hooks.
 */
export interface PublishedEvent {
  appId: string;
  /** Webhook event name: chatspeech, chatreply, commentpublished, ... */
  eventType: string;
  /** Custom tags of the room or conversation, for requiredCustomTags. */
  containerTags: string[];
  /** `chat` or `comment`, for a webhook's `entities` filter. */
  entity: string;
  /** The room or conversation id. */
  containerId: string;
  /** The room's or conversation's customid, when it has one. */
  containerCustomId: string | null;
  /** The object as REST returns it (chat.event, comment.comment). */
  payload: unknown;
  /** Users to notify: the author of what was replied to, quoted or reacted to; mentioned handles. */
  notify: NotifyTarget[];
  /** Notifications already written with the event, in its own statement (a chat or comment reaction's): pushed, not written again. */
  notified?: WrittenNotification[];
  /** The user who caused the event. */
  actorUserId: string;
  /** Its key in webhook_journal, as the journal's trigger writes it (chat event id, comment id, `{comment id}:{user id}:{reaction}`). */
  journalKey: string;
}

export interface NotifyTarget {
  userid?: string;
  /** A mentioned `@handle`, without the @; resolved to a user by the notifications area. */
  handle?: string;
  type: 'reply' | 'quote' | 'mention' | 'reaction';
}

export interface WrittenNotification {
  id: string;
  /** The user notified. */
  userId: string;
  type: NotifyTarget['type'];
  added: Date;
}

export interface PublishHook {
  beforePublish(event: PublishedEvent): Promise<void>;
  afterPublish(event: PublishedEvent): void;
}

export class PublishHooks implements PublishHook {
  private readonly hooks: PublishHook[] = [];
  /** Where webhooks rebuild the events a crash left owed. */
  readonly journal = new JournalSources();
  /** Where notifications read the items published events were about, as they are now. */
  readonly items = new ItemViews();

  add(hook: PublishHook): void {
    this.hooks.push(hook);
  }

  async beforePublish(event: PublishedEvent): Promise<void> {
    for (const hook of this.hooks) await hook.beforePublish(event);
  }

  afterPublish(event: PublishedEvent): void {
    for (const hook of this.hooks) hook.afterPublish(event);
  }
}
