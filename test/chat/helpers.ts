// Response bodies are arbitrary JSON; tests read them loosely and assert on the values.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { expect } from 'vitest';
import { uid, type Client } from '../helpers/api.js';

/** Creates a room (defaults unless overridden) and returns its id. */
export async function makeRoom(api: Client, body: Record<string, unknown> = {}): Promise<any> {
  // enter/exit are opt-in on create; these tests follow the feed with them on unless told otherwise.
  const res = await api.post('chat/rooms', { name: uid('room'), enableenterandexit: true, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** Joins a (new) user to the room and returns the join result. */
export async function join(api: Client, roomid: string, userid = uid('u'), extra: Record<string, unknown> = {}): Promise<any> {
  const res = await api.post(`chat/rooms/${roomid}/join`, { userid, displayname: `Name ${userid}`, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

export async function say(api: Client, roomid: string, userid: string, command: string, extra: Record<string, unknown> = {}): Promise<any> {
  const res = await api.post(`chat/rooms/${roomid}/command`, { userid, command, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** Polls `updates` from `cursor` until nothing new comes; returns every event seen and the last cursor. */
export async function drain(api: Client, roomid: string, cursor: string, query = ''): Promise<{ events: any[]; cursor: string }> {
  const events: any[] = [];
  for (;;) {
    const res = await api.get(`chat/rooms/${roomid}/updates?cursor=${cursor}${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    events.push(...res.body.data.events);
    if (res.body.data.cursor === cursor) return { events, cursor };
    cursor = res.body.data.cursor;
  }
}
