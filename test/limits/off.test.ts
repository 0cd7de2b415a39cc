import { describe, expect, it } from 'vitest';
import { ownServerForSuite } from '../helpers/own-server.js';
import { request, uid } from '../helpers/api.js';
import { join, makeRoom } from '../chat/helpers.js';
import { connect } from '../realtime/ws-client.js';

describe('RATE_LIMITS=off', () => {
  const own = ownServerForSuite({ RATE_LIMITS: 'off', RATE_LIMIT_CHAT: '1/1m', RATE_LIMIT_AUTH_FAILURES: '1/1m', RATE_LIMIT_WS_FRAMES: '1/1m' });

  it('turns every limit off at once: writes, failed authentication, WebSocket frames', async () => {
    const room = await makeRoom(own.app.api);
    const user = uid('u');
    await join(own.app.api, room.id, user);
    const posts = await Promise.all(Array.from({ length: 20 }, (_, i) => own.app.api.post(`chat/rooms/${room.id}/command`, { userid: user, command: `m${i}` })));
    expect(posts.map((r) => r.status)).toEqual(Array(20).fill(200));
    for (let i = 0; i < 5; i++)
      expect((await request('POST', `${own.server.url}/api/v3/manage/createapplication`, { name: 'limits' }, { 'x-manage-token': 'wrong-0123456789abcdef' })).status).toBe(403);
    const client = await connect(own.server.url, own.app.appid, own.app.token);
    for (let i = 0; i < 10; i++) await client.settle();
    expect(client.frames.filter((f) => f['type'] === 'error')).toEqual([]);
    client.close();
  });
});
