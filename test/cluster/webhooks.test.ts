import { describe, expect, it } from 'vitest';
import { Client, newApp, uid } from '../helpers/api.js';
import { startReceiver } from '../webhooks/receiver.js';
import { twoNodesForSuite } from './two-nodes.js';

/**
 * Two nodes publishing into one room with a postpublish hook: each event is stored by the node
 * that published it and settled there; neither the other node's outbox poll nor either node's
 * journal sweep sends it again.
 */
describe('webhooks from two nodes', () => {
  const nodes = twoNodesForSuite({ redis: false });

  it('delivers every event once, also past the journal sweep’s grace', async () => {
    const receiver = await startReceiver(() => 200);
    try {
      const hook = { label: 'both', url: receiver.url, enabled: true, type: 'postpublish', events: ['chatspeech'] };
      expect((await nodes.a.api.post('webhook/hooks', hook)).status).toBe(200);
      const roomid = (await nodes.a.api.post('chat/rooms', { name: uid('room'), enableenterandexit: false })).body.data.id as string;
      const users = Array.from({ length: 10 }, (_, i) => `both${i}`);
      for (const u of users) expect((await nodes.a.api.post(`chat/rooms/${roomid}/join`, { userid: u })).status).toBe(200);
      const acked: string[] = [];
      await Promise.all(
        users.map(async (userid, i) => {
          const api: Client = i % 2 === 0 ? nodes.a.api : nodes.b;
          for (let k = 0; k < 15; k++) {
            const res = await api.post(`chat/rooms/${roomid}/command`, { userid, command: `from both ${i}-${k}` });
            expect(res.status).toBe(200);
            acked.push(res.body.data.speech.id as string);
          }
        }),
      );
      await receiver.waitFor(acked.length, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 14_000));
      const delivered = receiver.received.map((r) => r.body.data.id as string);
      expect(delivered.sort()).toEqual([...acked].sort());
    } finally {
      await receiver.close();
    }
  }, 90_000);

  it.each([
    ['no hook yet', false],
    ['only a hook for other events', true],
  ])(
    'delivers every message posted to one node after a hook created on the other was answered, while messages were being posted (the app had %s)',
    async (_, hookedBefore) => {
      const receiver = await startReceiver(() => 200);
      try {
        // An app of its own: node b caches its hooks from its first posts, before the new one.
        const a = await newApp({}, nodes.servers[0].url);
        const b = new Client(nodes.servers[1].url, a.appid, a.token);
        if (hookedBefore) expect((await a.api.post('webhook/hooks', { label: 'exits', url: receiver.url, enabled: true, type: 'postpublish', events: ['chatexit'] })).status).toBe(200);
        const roomid = (await a.api.post('chat/rooms', { name: uid('room'), enableenterandexit: false })).body.data.id as string;
        const users = Array.from({ length: 6 }, (_, i) => uid(`flow${i}`));
        for (const u of users) expect((await b.post(`chat/rooms/${roomid}/join`, { userid: u })).status).toBe(200);
        let hookAnsweredAt = Infinity;
        let stopAt = Infinity;
        const owed: string[] = [];
        let before = 0;
        const loops = Promise.all(
          users.map(async (userid) => {
            // Within the per-user chat budget (30 in 10 s): a post every 400 ms.
            for (let k = 0; Date.now() < stopAt; k++) {
              const sentAt = Date.now();
              const res = await b.post(`chat/rooms/${roomid}/command`, { userid, command: `flowing ${k}` });
              expect(res.status).toBe(200);
              if (sentAt > hookAnsweredAt) owed.push(res.body.data.speech.id as string);
              else before += 1;
              await new Promise((resolve) => setTimeout(resolve, 400));
            }
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const hook = { label: 'flowing', url: receiver.url, enabled: true, type: 'postpublish', events: ['chatspeech'] };
        expect((await a.api.post('webhook/hooks', hook)).status).toBe(200);
        hookAnsweredAt = Date.now();
        stopAt = hookAnsweredAt + 3000;
        await loops;
        expect(before).toBeGreaterThan(0);
        expect(owed.length).toBeGreaterThan(20);
        // Node b may still hold the app's hooks as none for a moment: then the journal sweep delivers (within ~12 s).
        const deadline = Date.now() + 30_000;
        const missing = () => {
          const delivered = new Set(receiver.received.map((r) => r.body.data.id as string));
          return owed.filter((id) => !delivered.has(id));
        };
        while (missing().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
        expect(missing(), `of ${owed.length} messages posted after the hook was created`).toEqual([]);
      } finally {
        await receiver.close();
      }
    },
    90_000,
  );
});
