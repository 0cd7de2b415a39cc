import { newId } from '../../ids.js';
import { succeeded, type Attempt, type Settlement } from '../types.js';

/** The log entries and per-hook failure runs of a batch of attempts (see settle in store/deliveries.ts). */
export function attemptRecords(attempts: Attempt[]): Pick<Settlement, 'log' | 'runs'> {
  const runs = new Map<string, { reset: boolean; n: number }>();
  for (const a of attempts) {
    const run = runs.get(a.webhookId) ?? { reset: false, n: 0 };
    runs.set(a.webhookId, succeeded(a) ? { reset: true, n: 0 } : { reset: run.reset, n: run.n + 1 });
  }
  return {
    log: attempts.map((a) => ({
      id: newId(),
      webhookId: a.webhookId,
      messageId: a.messageId,
      eventType: a.eventType,
      statusCode: a.statusCode,
      elapsedMs: a.elapsedMs,
      completed: succeeded(a),
      attempt: a.attempt,
      error: a.error,
    })),
    runs: [...runs].map(([webhookId, run]) => ({ webhookId, ...run })),
  };
}
