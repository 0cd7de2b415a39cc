import { describe, expect, it } from 'vitest';
import { uid } from '../helpers/api.js';
import { SseReader } from '../realtime/sse-reader.js';
import { connect } from '../realtime/ws-client.js';
import { twoNodesForSuite } from './two-nodes.js';

/** A room deleted through node A ends its subscriptions on node B too: the end travels on the room's own topic, through Redis. */
describe('deleting a room on node A', () => {
  const nodes = twoNodesForSuite({ redis: true });

  it("ends node B's socket subscriptions and event streams of the room", async () => {
    const roomid = (await nodes.a.api.post('chat/rooms', { name: uid('doomed') })).body.data.id as string;
    const socket = await connect(nodes.b.base, nodes.a.appid, nodes.a.token);
    expect((await socket.subscribe(`room:${roomid}`)).type).toBe('subscribed');
    const stream = await SseReader.open(`${nodes.b.base}/api/v3/${nodes.a.appid}/sse?topic=room:${roomid}&token=${nodes.a.token}`);
    expect(stream.status).toBe(200);
    try {
      expect((await nodes.a.api.delete(`chat/rooms/${roomid}`)).status).toBe(200);
      expect(await socket.next((f) => f['type'] === 'unsubscribed')).toEqual({ type: 'unsubscribed', topic: `room:${roomid}`, reason: 'deleted' });
      await Promise.race([stream.ended(), new Promise((_, reject) => setTimeout(() => reject(new Error('the stream on node B is still open')), 5000))]);
      expect(stream.events.map((e) => e.event)).toEqual(['topic.ended']);
    } finally {
      socket.close();
      await stream.close();
    }
  });
});
