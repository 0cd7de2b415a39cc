// Response bodies are arbitrary JSON; tests read them loosely and assert on the values, so `any` is the honest type here.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { expect } from 'vitest';
import { newApp, uid, type Client, type TestApp } from '../helpers/api.js';

/** A room with some joined users, built only through the public API. */
export interface RoomFixture {
  app: TestApp;
  api: Client;
  roomid: string;
  join(userid: string, role?: 'user' | 'moderator' | 'admin'): Promise<void>;
  say(userid: string, command: string): Promise<any>;
  /** Events after `cursor` in the polling feed, and the next cursor. */
  updates(cursor?: string): Promise<{ events: any[]; cursor: string }>;
  room(): Promise<any>;
}

export async function roomFixture(room: Record<string, unknown> = {}, settings: Record<string, unknown> = {}, app?: TestApp): Promise<RoomFixture> {
  const theApp = app ?? (await newApp(settings));
  const { api } = theApp;
  const created = await api.post('chat/rooms', { name: uid('room'), enableenterandexit: false, ...room });
  expect(created.status).toBe(200);
  const roomid: string = created.body.data.id;
  return {
    app: theApp,
    api,
    roomid,
    async join(userid, role = 'user') {
      const joined = await api.post(`chat/rooms/${roomid}/join`, { userid, displayname: `Name ${userid}` });
      expect(joined.status).toBe(200);
      if (role !== 'user') expect((await api.post(`user/users/${userid}/role`, { role })).status).toBe(200);
    },
    async say(userid, command) {
      const sent = await api.post(`chat/rooms/${roomid}/command`, { userid, command });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      return sent.body.data.speech;
    },
    async updates(cursor) {
      const res = await api.get(`chat/rooms/${roomid}/updates${cursor === undefined ? '' : `?cursor=${encodeURIComponent(cursor)}`}`);
      expect(res.status).toBe(200);
      return { events: res.body.data.events, cursor: res.body.data.cursor };
    },
    async room() {
      const res = await api.get(`chat/rooms/${roomid}`);
      expect(res.status).toBe(200);
      return res.body.data;
    },
  };
}

export const ids = (events: any[]): string[] => events.map((e) => e.id);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
