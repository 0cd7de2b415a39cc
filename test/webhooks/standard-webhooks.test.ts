import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { baseUrl, Client, manage, newApp } from '../helpers/api.js';
import { roomWithUser } from './chat.js';
import { startReceiver, type Receiver, type Received } from './receiver.js';

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

/** One chat message delivered to a fresh receiver through a fresh hook of the app. */
async function deliverOne(api: Client): Promise<Received> {
  const receiver = await startReceiver(() => 200);
  receivers.push(receiver);
  const hook = await api.post('webhook/hooks', { label: 'std', url: receiver.url, enabled: true, type: 'postpublish', events: ['chatspeech'] });
  expect(hook.status).toBe(200);
  const { say } = await roomWithUser(api);
  expect((await say('signed for the official library')).status).toBe(200);
  const [got] = await receiver.waitFor(1);
  return got as Received;
}

const headersOf = (r: Received) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

describe('webhook secrets and signatures follow Standard Webhooks (the standardwebhooks library)', () => {
  it('new secrets are whsec_ + standard base64, which the library accepts', async () => {
    // Base64url secrets held `-` or `_` about two times in three: ten in a row would not all pass.
    for (let i = 0; i < 10; i++) {
      const { webhooksecret } = await newApp();
      expect(webhooksecret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
      expect(() => new Webhook(webhooksecret)).not.toThrow();
    }
  });

  it('a delivery verifies with the library and the app secret, and not with another key', async () => {
    const { api, webhooksecret } = await newApp();
    const got = await deliverOne(api);
    expect(new Webhook(webhooksecret).verify(got.raw, headersOf(got))).toMatchObject({ type: 'chatspeech' });
    const other = (await newApp()).webhooksecret;
    expect(() => new Webhook(other).verify(got.raw, headersOf(got))).toThrow();
  });
});

const databaseUrl = process.env['DATABASE_URL'];
// An application made before the change keeps its base64url secret: only the database can make one.
if (databaseUrl !== undefined && databaseUrl !== '')
  describe('an old base64url secret', () => {
    it('still signs with the bytes it was made from', async () => {
      const created = await manage('createapplication', { name: 'old secret' });
      const appid = created.body.data.appid as string;
      const key = Buffer.from('\xfb\xff\xbe\xfb\xef\xff old key with - and _ \xff\xfe', 'latin1');
      const oldSecret = `whsec_${key.toString('base64url')}`;
      expect(oldSecret).toMatch(/[-_]/);
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query('update applications set webhook_secret = $1 where id = $2', [oldSecret, appid]);
      } finally {
        await client.end();
      }
      // The token is made after the update, so the server first reads the app with its old secret.
      const token = (await manage('createtoken', { applicationid: appid, name: 'old' })).body.data.token as string;
      const got = await deliverOne(new Client(baseUrl(), appid, token));
      expect(new Webhook(`whsec_${key.toString('base64')}`).verify(got.raw, headersOf(got))).toMatchObject({ type: 'chatspeech' });
    });
  });
