import { expect } from 'vitest';
import { uid, type Client } from '../helpers/api.js';

/** A room with one joined user, and a way to say something in it. */
export async function roomWithUser(api: Client, customtags: string[] = []) {
  const room = await api.post('chat/rooms', { name: uid('room'), customtags });
  expect(room.status).toBe(200);
  const roomid = room.body.data.id as string;
  const userid = uid('u');
  expect((await api.post(`chat/rooms/${roomid}/join`, { userid, displayname: 'Speaker' })).status).toBe(200);
  return { roomid, userid, say: (command: string) => api.post(`chat/rooms/${roomid}/command`, { userid, command }) };
}
