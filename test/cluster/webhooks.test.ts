import { describe, expect, it } from 'vitest';
import { uid, type Client } from '../helpers/api.js';
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
});
