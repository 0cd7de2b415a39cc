import type { LogEntryWithPayload, Webhook } from './types.js';

export function webhookView(w: Webhook) {
  return {
    kind: 'webhook.webhook',
    id: w.id,
    appid: w.appId,
    label: w.label,
    url: w.url,
    enabled: w.enabled,
    type: w.type,
    events: w.events,
    requiredcustomtags: w.requiredCustomTags,
    entities: w.entities,
    consecutivefailures: w.consecutiveFailures,
    added: w.added.toISOString(),
    whenmodified: w.whenModified.toISOString(),
  };
}

export function logEntryView(e: LogEntryWithPayload) {
  return {
    kind: 'webhook.logentry',
    id: e.id,
    webhookid: e.webhookId,
    messageid: e.messageId,
    eventtype: e.eventType,
    statuscode: e.statusCode,
    elapsed: e.elapsedMs,
    completed: e.completed,
    // The SDKs' names for the two above.
    ellapsedtimems: e.elapsedMs,
    completedrequest: e.completed,
    attempt: e.attempt,
    error: e.error,
    payload: e.payload === null ? null : (JSON.parse(e.payload) as unknown),
    added: e.added.toISOString(),
  };
}
