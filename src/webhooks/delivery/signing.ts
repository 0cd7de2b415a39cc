import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks headers: `webhook-signature` is `v1,` + base64 HMAC-SHA256 of
 * `{id}.{timestamp}.{body}`, keyed with the base64-decoded part of the app secret after `whsec_`.
 * Secrets made before 0.1 are base64url: Node's base64 decoder reads both alphabets, so those
 * keep signing with the bytes they were made from.
 */
export function signatureHeaders(secret: string, messageId: string, body: string, nowMs = Date.now()): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const signature = createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': messageId, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
