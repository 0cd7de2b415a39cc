import { describe, expect, it } from 'vitest';
import { baseUrl, newApp } from '../helpers/api.js';
import { connect } from '../realtime/ws-client.js';
import { join, makeRoom, say } from './helpers.js';

describe('the room feed over WebSocket', () => {
  it("pushes each event with its seq and updates cursor, and never a shadow-banned user's events", async () => {
    const t = await newApp();
    const room = await makeRoom(t.api, { enableenterandexit: false });
    const alice = (await join(t.api, room.id)).user.userid as string;
    const bob = (await join(t.api, room.id)).user.userid as string;
    await t.api.post(`user/users/${bob}/shadowban`, { applyeffect: true });
    const client = await connect(baseUrl(), t.appid, t.token);
    await client.subscribe(`room:${room.id}`);
    await say(t.api, room.id, bob, 'hidden');
    const visible = (await say(t.api, room.id, alice, 'visible')).speech;
    const frame = await client.next((f) => f.type === 'event' && f.data.id === visible.id);
    const after = await t.api.get(`chat/rooms/${room.id}/updates?cursor=${frame.cursor}`);
    expect(after.body.data.events).toEqual([]);
    await client.settle();
    expect(client.frames.filter((f) => f.type === 'event').map((f) => f.data.body)).toEqual(['visible']);
    client.close();
  });
});
