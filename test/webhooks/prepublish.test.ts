import { afterAll, describe, expect, it } from 'vitest';
import { newApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { roomWithUser } from './chat.js';
import { startReceiver, verifySignature, type Receiver } from './receiver.js';

const BLOCKED = 'The event was blocked by a prepublish webhook.';
const receivers: Receiver[] = [];
const servers: SpawnedServer[] = [];
afterAll(async () => {
  await Promise.all([...receivers.map((r) => r.close()), ...servers.map((s) => s.stop())]);
});

async function receiver(behaviour: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(behaviour);
  receivers.push(r);
  return r;
}

const prepublish = (label: string, url: string) => ({ label, url, enabled: true, type: 'prepublish', events: ['speech'] });

async function recentBodies(api: Awaited<ReturnType<typeof newApp>>['api'], roomid: string): Promise<string[]> {
  const updates = await api.get(`chat/rooms/${roomid}/updates`);
  return updates.body.data.events.map((e: { body: string }) => e.body);
}

describe('prepublish', () => {
  it('lets the event through when every hook answers 200, and signs the call', async () => {
    const { api, webhooksecret } = await newApp();
    const yes = await receiver(() => 200);
    const alsoYes = await receiver(() => 200);
    await api.post('webhook/hooks', prepublish('a', yes.url));
    await api.post('webhook/hooks', prepublish('b', alsoYes.url));
    const { roomid, say } = await roomWithUser(api);
    const said = await say('approved');
    expect(said.status).toBe(200);
    expect(yes.received).toHaveLength(1);
    expect(alsoYes.received).toHaveLength(1);
    expect(yes.received[0]?.body).toMatchObject({ type: 'chatspeech', data: { body: 'approved' } });
    expect(verifySignature(webhooksecret, yes.received[0] as NonNullable<(typeof yes.received)[0]>)).toBe(true);
    expect(await recentBodies(api, roomid)).toContain('approved');
  });

  it('blocks the event when any hook answers other than 200: nothing is stored', async () => {
    const { api } = await newApp();
    const yes = await receiver(() => 200);
    const no = await receiver(() => 201);
    await api.post('webhook/hooks', prepublish('yes', yes.url));
    const refusing = await api.post('webhook/hooks', prepublish('no', no.url));
    const { roomid, say } = await roomWithUser(api);
    const said = await say('refused');
    expect(said.status).toBe(403);
    expect(said.body.message).toBe(BLOCKED);
    expect(await recentBodies(api, roomid)).not.toContain('refused');
    const log = await api.get(`webhook/hooks/${refusing.body.data.id}/logentries`);
    expect(log.body.data.logentries[0]).toMatchObject({ statuscode: 201, completed: true, eventtype: 'chatspeech' });
  });

  it('blocks the event when a hook stays silent past 3 s', async () => {
    const { api } = await newApp();
    const silent = await receiver(() => 'hang');
    await api.post('webhook/hooks', prepublish('silent', silent.url));
    const { roomid, say } = await roomWithUser(api);
    const started = Date.now();
    const said = await say('too slow');
    const elapsed = Date.now() - started;
    expect(said.status).toBe(403);
    expect(said.body.message).toBe(BLOCKED);
    expect(elapsed).toBeGreaterThanOrEqual(2900);
    expect(elapsed).toBeLessThan(5000);
    expect(await recentBodies(api, roomid)).not.toContain('too slow');
  });

  it('disables a hook after WEBHOOK_FAILURE_LIMIT failures in a row', async () => {
    const server = await spawnServer({ WEBHOOK_FAILURE_LIMIT: '2' });
    servers.push(server);
    const { api } = await newApp({}, server.url);
    const failing = await receiver(() => 500);
    const created = await api.post('webhook/hooks', prepublish('failing', failing.url));
    const { roomid, say } = await roomWithUser(api);
    expect((await say('one')).status).toBe(403);
    expect((await say('two')).status).toBe(403);
    const hooks = await api.get('webhook/hooks');
    expect(hooks.body.data.webhooks[0]).toMatchObject({ id: created.body.data.id, enabled: false, consecutivefailures: 2 });
    expect((await say('three')).status).toBe(200);
    expect(failing.received).toHaveLength(2);
    const bodies = await recentBodies(api, roomid);
    expect(bodies).toContain('three');
    expect(bodies).not.toContain('one');
  });
});
