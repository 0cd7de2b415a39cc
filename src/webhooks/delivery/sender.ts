import { setMaxListeners } from 'node:events';
import { Agent, request } from 'undici';
import { literalPrivate, PrivateAddressError, publicOnlyLookup } from './private-addresses.js';
import { signatureHeaders } from './signing.js';
import type { Attempt } from '../types.js';

/** The receiver must answer within 3 seconds (api-v3.md, Webhook rules). */
export const RESPONSE_BUDGET_MS = 3000;

export interface Delivery {
  webhookId: string;
  url: string;
  messageId: string;
  eventType: string;
  body: string;
  attempt: number;
}

// undici rather than node:http: about 40% less CPU per delivery, measured with a loopback
// receiver. Kept-alive connections, up to 64 per receiver, as a busy hook needs.
const AGENT_OPTIONS = { connections: 64, keepAliveTimeout: 10_000 };
let dispatcher = new Agent(AGENT_OPTIONS);
let denyPrivate = false;

/**
 * WEBHOOK_DENY_PRIVATE, set once per thread at start: every connection's address is checked
 * when it is made (a name may resolve elsewhere than when the hook was saved).
 */
export function denyPrivateReceivers(): void {
  if (denyPrivate) return;
  denyPrivate = true;
  dispatcher = new Agent({ ...AGENT_OPTIONS, connect: { lookup: publicOnlyLookup } });
}

/** Aborts when the budget is spent; attempts started together share one (one timer, not one each). */
export function budget(): AbortSignal {
  const signal = AbortSignal.timeout(RESPONSE_BUDGET_MS);
  // Every attempt sharing it listens to it: no leak warning for a batch of hundreds.
  setMaxListeners(0, signal);
  return signal;
}

/**
 * One signed POST, which must be answered before `deadline` aborts (the whole exchange,
 * connection included). Never throws: a timeout or a refused connection is status 0 with the reason.
 */
export async function send(secret: string, d: Delivery, deadline: AbortSignal): Promise<Attempt> {
  const started = performance.now();
  const done = (statusCode: number, error: string): Attempt => ({
    webhookId: d.webhookId,
    messageId: d.messageId,
    eventType: d.eventType,
    attempt: d.attempt,
    statusCode,
    elapsedMs: Math.round(performance.now() - started),
    error,
  });
  try {
    if (denyPrivate && literalPrivate(d.url)) return done(0, new PrivateAddressError(new URL(d.url).hostname).message);
    const res = await request(d.url, {
      method: 'POST',
      dispatcher,
      signal: deadline,
      headers: { 'content-type': 'application/json', 'user-agent': 'engage-webhooks/1', ...signatureHeaders(secret, d.messageId, d.body) },
      body: d.body,
    });
    await res.body.dump();
    return done(res.statusCode, '');
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    return done(0, timedOut ? `no answer within ${RESPONSE_BUDGET_MS} ms` : errorMessage(err));
  }
}

const errorMessage = (err: unknown) => (err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err));
