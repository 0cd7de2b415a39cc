import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, type TestApp } from '../helpers/api.js';
import { dropDatabase, freshDatabase, onDatabase } from '../helpers/fresh-database.js';
import { spawnServer } from '../helpers/spawn.js';
import { roomWithUser } from './chat.js';
import { eventually, startReceiver, verifySignature, type Receiver } from './receiver.js';

let app: TestApp;
const receivers: Receiver[] = [];

beforeAll(async () => {
  app = await newApp();
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(behaviour: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(behaviour);
  receivers.push(r);
  return r;
}

async function createHook(api: TestApp['api'], fields: Record<string, unknown>) {
  const res = await api.post('webhook/hooks', { enabled: true, type: 'postpublish', events: ['chatspeech'], ...fields });
  expect(res.status).toBe(200);
  return res.body.data.id as string;
}

const logOf = (api: TestApp['api'], id: string) =>
  api
    .get(`webhook/hooks/${id}/logentries`)
    .then((r) => r.body.data.logentries as { statuscode: number; completed: boolean; eventtype: string; elapsed: number; attempt: number; payload: { id: string } | null }[]);

describe('postpublish delivery', () => {
  it('delivers a signed event to a receiver answering 200 and logs it', async () => {
    const { api, webhooksecret } = await newApp();
    const ok = await receiver(() => 200);
    const id = await createHook(api, { label: 'ok', url: ok.url });
    const { roomid, say } = await roomWithUser(api);
    const said = await say('hello hooks');
    expect(said.status).toBe(200);

    const [got] = await ok.waitFor(1);
    expect(got?.body).toMatchObject({ type: 'chatspeech', entity: 'chat', containerid: roomid });
    expect(got?.body.data).toMatchObject({ body: 'hello hooks' });
    expect(got?.headers['webhook-id']).toBe(got?.body.id);
    expect(webhooksecret).toMatch(/^whsec_/);
    expect(verifySignature(webhooksecret, got as NonNullable<typeof got>)).toBe(true);
    expect(verifySignature(`whsec_${Buffer.from('wrong key').toString('base64')}`, got as NonNullable<typeof got>)).toBe(false);

    const log = await eventually(
      () => logOf(api, id),
      (l) => l.length === 1,
    );
    expect(log[0]).toMatchObject({ eventtype: 'chatspeech', statuscode: 200, completed: true });
    expect(log[0]?.payload?.id).toBe(got?.body.id);
  });

  it('deletes a hook with its log; another app cannot touch it', async () => {
    const { api } = await newApp();
    const ok = await receiver(() => 200);
    const id = await createHook(api, { label: 'gone', url: ok.url });
    const { say } = await roomWithUser(api);
    await say('logged');
    await eventually(
      () => logOf(api, id),
      (l) => l.length === 1,
    );
    const { api: other } = await newApp();
    expect((await other.delete(`webhook/hooks/${id}`)).status).toBe(404);
    expect(await logOf(api, id)).toHaveLength(1);
    expect((await api.delete(`webhook/hooks/${id}`)).status).toBe(200);
    const again = await createHook(api, { label: 'gone', url: ok.url });
    expect(again).not.toBe(id);
    expect(await logOf(api, again)).toEqual([]);
  });

  it('retries after a 500 with the same message id, and logs both attempts', async () => {
    const flaky = await receiver((n) => (n === 0 ? 500 : 200));
    const id = await createHook(app.api, { label: 'flaky', url: flaky.url });
    const { say } = await roomWithUser(app.api);
    await say('try again');
    const [first, second] = await flaky.waitFor(2);
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    expect(verifySignature(app.webhooksecret, second as NonNullable<typeof second>)).toBe(true);
    const log = await eventually(
      () => logOf(app.api, id),
      (l) => l.length === 2,
    );
    expect(log.map((e) => [e.statuscode, e.completed])).toEqual([
      [200, true],
      [500, false],
    ]);
    const hooks = await app.api.get('webhook/hooks');
    expect(hooks.body.data.webhooks.find((w: { id: string }) => w.id === id).consecutivefailures).toBe(0);
  });

  it('counts a receiver silent past 3 s as failed and retries it; the publishing request does not wait', async () => {
    const slow = await receiver((n) => (n === 0 ? 'hang' : 200));
    const id = await createHook(app.api, { label: 'slow', url: slow.url });
    const { say } = await roomWithUser(app.api);
    const started = Date.now();
    expect((await say('not waiting')).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
    await slow.waitFor(2, 20_000);
    const log = await eventually(
      () => logOf(app.api, id),
      (l) => l.length === 2,
      20_000,
    );
    expect(log[1]).toMatchObject({ statuscode: 0, completed: false });
    expect(log[1]?.elapsed).toBeGreaterThanOrEqual(2900);
    expect(log[0]).toMatchObject({ statuscode: 200, completed: true });
  });

  it('fires only for rooms with every required custom tag, and only for the listed entities', async () => {
    const { api } = await newApp();
    const tagged = await receiver(() => 200);
    const commentsOnly = await receiver(() => 200);
    await createHook(api, { label: 'tags', url: tagged.url, requiredcustomtags: ['vip', 'live'] });
    await createHook(api, { label: 'comments', url: commentsOnly.url, entities: ['comment'] });
    const plain = await roomWithUser(api, ['vip']);
    const vip = await roomWithUser(api, ['vip', 'live', 'extra']);
    await plain.say('not for the hook');
    await vip.say('for the hook');
    const [got] = await tagged.waitFor(1);
    expect(got?.body.containerid).toBe(vip.roomid);
    await new Promise((r) => setTimeout(r, 1500));
    expect(tagged.received).toHaveLength(1);
    expect(commentsOnly.received).toHaveLength(0);
  });

  it('disables a hook after WEBHOOK_FAILURE_LIMIT failures in a row, and sends it nothing after', async () => {
    const server = await spawnServer({ WEBHOOK_FAILURE_LIMIT: '2' });
    try {
      const { api } = await newApp({}, server.url);
      const failing = await receiver(() => 500);
      const id = await createHook(api, { label: 'failing', url: failing.url });
      const { say } = await roomWithUser(api);
      await say('one');
      await say('two');
      const hook = await eventually(
        () => api.get('webhook/hooks').then((r) => r.body.data.webhooks[0] as { id: string; enabled: boolean; consecutivefailures: number }),
        (h) => !h.enabled,
      );
      expect(hook.id).toBe(id);
      expect(hook.consecutivefailures).toBeGreaterThanOrEqual(2);
      // The node that disabled it tells every node to drop its cached hooks; give that notice a moment.
      await new Promise((r) => setTimeout(r, 200));
      const seen = failing.received.length;
      expect((await say('three')).status).toBe(200);
      // Longer than the first retry's backoff (at most 1 s): neither 'three' nor a retry arrives.
      await new Promise((r) => setTimeout(r, 2500));
      expect(failing.received).toHaveLength(seen);
    } finally {
      await server.stop();
    }
  });

  it('forgets deliveries older than WEBHOOK_LOG_RETENTION, but keeps a message until it is delivered', async () => {
    // The retention forgets deliveries of every application of its database: on Postgres, one of its own.
    const database = await freshDatabase(process.env['DATABASE_URL'], `retention_${process.pid}`);
    const server = await spawnServer({ WEBHOOK_LOG_RETENTION: '2s', ...onDatabase(database) });
    try {
      const { api, webhooksecret } = await newApp({}, server.url);
      const ok = await receiver(() => 200);
      // Three failures: the fourth attempt comes 3.5 to 7 s after the first, after the retention.
      const late = await receiver((n) => (n < 3 ? 500 : 200));
      const okId = await createHook(api, { label: 'ok', url: ok.url });
      const lateId = await createHook(api, { label: 'late', url: late.url });
      const { say } = await roomWithUser(api);
      await say('short-lived');
      const [entry] = await eventually(
        () => logOf(api, okId),
        (l) => l.length === 1,
      );
      expect(entry?.payload).not.toBeNull();

      const attempts = await late.waitFor(4, 20_000);
      const [first, , , fourth] = attempts;
      expect(fourth?.raw).toBe(first?.raw);
      expect(verifySignature(webhooksecret, fourth as NonNullable<typeof fourth>)).toBe(true);
      // Once delivered, the old message goes at the next pass; the fourth attempt's entry stays
      // until it is itself older than the retention, without its payload meanwhile.
      const orphaned = await eventually(
        () => logOf(api, lateId),
        (l) => l.length === 1 && l[0]?.payload === null,
      );
      expect(orphaned[0]).toMatchObject({ attempt: 4, statuscode: 200, completed: true });
      await eventually(
        () => logOf(api, lateId),
        (l) => l.length === 0,
      );
      expect(await logOf(api, okId)).toEqual([]);
    } finally {
      await server.stop();
      await dropDatabase(database);
    }
  });
});
