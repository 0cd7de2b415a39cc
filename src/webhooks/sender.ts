import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { signatureHeaders } from './signing.js';
import type { Attempt } from './types.js';

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

// Kept-alive connections: a busy hook reuses a few sockets instead of opening one per event.
const agents = { http: new HttpAgent({ keepAlive: true, maxSockets: 64 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 64 }) };

/** One signed POST; never throws: a timeout or a refused connection is status 0 with the reason. */
export function send(secret: string, d: Delivery): Promise<Attempt> {
  const started = performance.now();
  const done = (statusCode: number, error: string): Attempt => ({
    webhookId: d.webhookId,
    messageId: d.messageId,
    eventType: d.eventType,
    body: d.body,
    attempt: d.attempt,
    statusCode,
    elapsedMs: Math.round(performance.now() - started),
    error,
  });
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(d.url);
    } catch {
      resolve(done(0, 'the webhook url is not valid'));
      return;
    }
    const secure = url.protocol === 'https:';
    const req = (secure ? httpsRequest : httpRequest)(url, {
      method: 'POST',
      agent: secure ? agents.https : agents.http,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(d.body),
        'user-agent': 'engage-webhooks/1',
        ...signatureHeaders(secret, d.messageId, d.body),
      },
    });
    // The whole exchange, connection included, must fit in the budget.
    const timer = setTimeout(() => {
      req.destroy();
      resolve(done(0, `no answer within ${RESPONSE_BUDGET_MS} ms`));
    }, RESPONSE_BUDGET_MS);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => {
        clearTimeout(timer);
        resolve(done(res.statusCode ?? 0, ''));
      });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      resolve(done(0, err.message));
    });
    req.end(d.body);
  });
}
