// Response bodies are arbitrary JSON; tests read them loosely and assert on the values.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { describe, expect, it } from 'vitest';
import type { Client } from '../helpers/api.js';
import { ownServerForSuite } from '../helpers/own-server.js';
import { drain, join, makeRoom, say } from './helpers.js';

/**
 * Reaction types are free text (`emoji:…`), so REACTION_TYPES_MAX bounds how many distinct ones a
 * chat event lists besides `like`: past it a new type is refused with 400 naming `reaction`, while
 * listed types (even emptied) and likes stay open to everyone.
 */
const MAX = 3;
const own = ownServerForSuite({ REACTION_TYPES_MAX: String(MAX), RATE_LIMITS: 'off' });
const FANS = Array.from({ length: 12 }, (_, i) => `typer${i}`);

const react = (api: Client, roomid: string, eventid: string, userid: string, reaction: string, reacted = true) =>
  api.post(`chat/rooms/${roomid}/events/${eventid}/react`, { userid, reaction, reacted });

async function message(api: Client): Promise<{ roomid: string; eventid: string }> {
  const room = await makeRoom(api, { enableenterandexit: false });
  for (const fan of FANS) await join(api, room.id, fan);
  const said = await say(api, room.id, 'typer0', 'react to this');
  return { roomid: room.id, eventid: said.speech.id };
}

const types = (event: any) => event.reactions.map((r: any) => [r.type, r.count]);

describe('REACTION_TYPES_MAX on chat events', () => {
  it('refuses one type more than the event lists (400 naming reaction); listed types, even emptied, and likes stay open', async () => {
    const { api } = own.app;
    const { roomid, eventid } = await message(api);
    for (let i = 0; i < MAX; i++) expect((await react(api, roomid, eventid, 'typer1', `emoji:${i}`)).status).toBe(200);
    const refused = await react(api, roomid, eventid, 'typer2', 'emoji:new');
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body.errors)).toEqual(['reaction']);
    expect((await react(api, roomid, eventid, 'typer1', 'emoji:0', false)).status).toBe(200);
    expect((await react(api, roomid, eventid, 'typer3', 'emoji:new')).status).toBe(400);
    expect((await react(api, roomid, eventid, 'typer3', 'emoji:0')).status).toBe(200);
    expect((await react(api, roomid, eventid, 'typer4', 'like')).status).toBe(200);
    const got = (await api.get(`chat/rooms/${roomid}/events/${eventid}`)).body.data;
    expect(types(got)).toEqual([
      ['emoji:0', 1],
      ['emoji:1', 1],
      ['emoji:2', 1],
      ['like', 1],
    ]);
  });

  it('of 12 new types sent at once to one event, takes exactly 3 and refuses the rest; nothing refused is written or pushed to the feed', async () => {
    const { api } = own.app;
    const { roomid, eventid } = await message(api);
    const start = (await api.get(`chat/rooms/${roomid}/updates`)).body.data.cursor as string;
    const answers = await Promise.all(FANS.map((fan, i) => react(api, roomid, eventid, fan, `emoji:${i}`)));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(MAX);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect(a.status).toBe(400);
      expect(Object.keys(a.body.errors)).toEqual(['reaction']);
    }
    const got = (await api.get(`chat/rooms/${roomid}/events/${eventid}`)).body.data;
    expect(got.reactions).toHaveLength(MAX);
    for (const r of got.reactions) expect(r.count).toBe(1);
    const { events } = await drain(api, roomid, start);
    expect(events.filter((e: any) => e.eventtype === 'reaction')).toHaveLength(MAX);
  });
});
