import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp } from '../helpers/api.js';
import { join, makeRoom, say } from './helpers.js';

interface Delivery {
  type: string;
  entity: string;
  containerid: string;
  data: { eventtype: string; userid: string | null };
}

/** Chat events reach postpublish webhooks under their documented names, with the room's tags. */
describe('chat events and webhooks', () => {
  let receiver: Server;
  let url = '';
  const received: Delivery[] = [];
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const delivery = JSON.parse(body) as Delivery & { data: { body?: string } };
        // The prepublish test's receiver refuses messages that say "forbidden".
        if (req.url === '/pre') return res.writeHead(delivery.data.body === 'forbidden' ? 409 : 200).end();
        received.push(delivery);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  it('fires chatenter, chatspeech, chataction, chatreply, chatquote, chatreaction, chatcustom, chatroomclosed, chatroomopened, chatpurge, chatexit', async () => {
    const { api } = await newApp();
    const names = ['chatenter', 'chatspeech', 'chataction', 'chatreply', 'chatquote', 'chatreaction', 'chatcustom', 'chatroomclosed', 'chatroomopened', 'chatpurge', 'chatexit'];
    const hook = await api.post('webhook/hooks', { label: 'all', url: `${url}/hook`, enabled: true, type: 'postpublish', events: names, requiredcustomtags: ['vip'] });
    expect(hook.status).toBe(200);
    const untagged = await makeRoom(api);
    const room = await makeRoom(api, { customtags: 'vip,sports' });
    const mod = (await join(api, room.id)).user.userid as string;
    await api.post(`user/users/${mod}/role`, { role: 'moderator' });
    await join(api, untagged.id, mod);
    await say(api, untagged.id, mod, 'not delivered: the room lacks the required tag');
    const first = (await say(api, room.id, mod, 'hello')).speech;
    await say(api, room.id, mod, '/wave');
    await api.post(`chat/rooms/${room.id}/events/${first.id}/reply`, { userid: mod, body: 'r' });
    await api.post(`chat/rooms/${room.id}/events/${first.id}/quote`, { userid: mod, body: 'q' });
    await api.post(`chat/rooms/${room.id}/events/${first.id}/react`, { userid: mod, reaction: 'like', reacted: true });
    await say(api, room.id, mod, 'c', { eventtype: 'custom' });
    await api.post(`chat/rooms/${room.id}`, { roomisopen: false });
    await api.post(`chat/rooms/${room.id}`, { roomisopen: true });
    await say(api, room.id, mod, `*purge ${mod}`);
    await api.post(`chat/rooms/${room.id}/exit`, { userid: mod });
    const deadline = Date.now() + 10_000;
    while (received.length < names.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(received.map((d) => d.type).sort()).toEqual([...names].sort());
    expect(received.every((d) => d.entity === 'chat' && d.containerid === room.id)).toBe(true);
    expect(received.find((d) => d.type === 'chatspeech')?.data.eventtype).toBe('speech');
  });

  it('a prepublish webhook that refuses blocks the message: 403, nothing stored', async () => {
    const { api } = await newApp();
    expect((await api.post('webhook/hooks', { label: 'pre', url: `${url}/pre`, enabled: true, type: 'prepublish', events: ['chatspeech'] })).status).toBe(200);
    const room = await makeRoom(api, { enableenterandexit: false });
    const userid = (await join(api, room.id)).user.userid as string;
    await say(api, room.id, userid, 'fine');
    const blocked = await api.post(`chat/rooms/${room.id}/command`, { userid, command: 'forbidden' });
    expect(blocked.status).toBe(403);
    const history = await api.get(`chat/rooms/${room.id}/listeventshistory`);
    expect(history.body.data.events.map((e: { body: string }) => e.body)).toEqual(['fine']);
  });
});
