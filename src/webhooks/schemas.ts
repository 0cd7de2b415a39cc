import * as v from 'valibot';
import { choice, flag, paging, requiredText, stringList } from '../http/fields.js';
import { eventName, WEBHOOK_ENTITIES, WEBHOOK_EVENTS, WEBHOOK_TYPES } from './events.js';

const httpUrl = v.pipe(
  requiredText(2048),
  v.check((s) => {
    try {
      return ['http:', 'https:'].includes(new URL(s).protocol);
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// URL'),
);

const events = v.pipe(
  stringList(50),
  v.check((names) => names.every((n) => eventName(n) !== undefined), `must only hold ${WEBHOOK_EVENTS.join(', ')} (or the names without chat)`),
  v.transform((names) => [...new Set(names.map((n) => eventName(n) as string))]),
);

const entities = v.pipe(
  stringList(2),
  v.check((names) => names.every((n) => (WEBHOOK_ENTITIES as readonly string[]).includes(n.toLowerCase())), `must only hold ${WEBHOOK_ENTITIES.join(', ')}`),
  v.transform((names) => [...new Set(names.map((n) => n.toLowerCase()))]),
);

/** Create, replace and update take the same body; label, url, enabled, type and events are required. */
export const WebhookBody = v.object({
  label: requiredText(250),
  url: httpUrl,
  enabled: flag(),
  type: choice(WEBHOOK_TYPES, true),
  events,
  requiredcustomtags: v.optional(stringList(50), []),
  entities: v.optional(entities, []),
});
export type WebhookInput = v.InferOutput<typeof WebhookBody>;

export const Paging = v.object(paging(50, 200));
export type PageRequest = v.InferOutput<typeof Paging>;
