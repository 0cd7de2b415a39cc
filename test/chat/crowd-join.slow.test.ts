// Response bodies are arbitrary JSON; tests read them loosely and assert on the values.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ownServerForSuite } from '../helpers/own-server.js';
import { drain, join, makeRoom, say } from './helpers.js';

/**
 * A crowd of new fans joining while the room is busy: a batch of joins shares one events page,
 * bounded by the feed's head as the batch's own statement saw it, and keeps the room in memory
 * with the counters that statement returned. Rate limits off: the crowd is one client.
 */
const own = ownServerForSuite({ RATE_LIMITS: 'off' });
const fans = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('a crowd of new fans joining a busy room', () => {
  it('gives each fan every message acknowledged before their join was sent, and a cursor that continues with no gap and no repeat', async () => {
    const { api } = own.app;
    const room = await makeRoom(api, { enableenterandexit: false });
    const host = (await join(api, room.id)).user.userid as string;
    const acked: { id: string; at: number }[] = [];
    let posting = true;
    const poster = (async () => {
      for (let i = 0; i < 80 && (posting || i < 10); i++) {
        const speech = (await say(api, room.id, host, `chant ${i}`)).speech;
        acked.push({ id: speech.id, at: performance.now() });
      }
    })();
    const joins = await Promise.all(
      fans('wave', 150).map(async (userid, i) => {
        await sleep((i % 50) * 20);
        const sentAt = performance.now();
        const res = await api.post(`chat/rooms/${room.id}/join`, { userid, displayname: `Fan ${userid}`, limit: 100 });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return { sentAt, page: res.body.data.eventscursor };
      }),
    );
    posting = false;
    await poster;
    const everything = acked.map((a) => a.id);
    expect(everything.length).toBeGreaterThan(5);
    let sawLater = 0;
    for (const { sentAt, page } of joins) {
      const shown = page.events.map((e: any) => e.id);
      for (const a of acked) if (a.at < sentAt) expect(shown).toContain(a.id);
      const rest = await drain(api, room.id, page.cursor);
      const later = rest.events.filter((e: any) => e.eventtype === 'speech').map((e: any) => e.id);
      if (later.length > 0) sawLater += 1;
      expect([...shown, ...later]).toEqual(everything);
    }
    // The crowd joined while messages came: some pages ended before the last message.
    expect(sawLater).toBeGreaterThan(0);
  }, 60_000);

  it('shows the exact inroom in updates right after a crowd joined and after part of it left', async () => {
    const { api } = own.app;
    const room = await makeRoom(api, { enableenterandexit: false });
    // The room is read (and held in memory) before the crowd comes.
    expect((await api.get(`chat/rooms/${room.id}/updates`)).body.data.room.inroom).toBe(0);
    const crowd = fans('count', 120);
    const answers = await Promise.all(crowd.map((userid) => api.post(`chat/rooms/${room.id}/join`, { userid })));
    for (const res of answers) expect(res.status).toBe(200);
    // Each answer's count includes its own fan and never exceeds the crowd.
    const counts = answers.map((res) => res.body.data.room.inroom as number);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...counts)).toBe(120);
    expect((await api.get(`chat/rooms/${room.id}/updates`)).body.data.room.inroom).toBe(120);
    await Promise.all(crowd.slice(0, 20).map((userid) => api.post(`chat/rooms/${room.id}/exit`, { userid })));
    expect((await api.get(`chat/rooms/${room.id}/updates`)).body.data.room.inroom).toBe(100);
    // A rejoin of someone still in the room moves nothing.
    expect((await api.post(`chat/rooms/${room.id}/join`, { userid: 'count50' })).body.data.room.inroom).toBe(100);
    expect((await api.get(`chat/rooms/${room.id}/updates`)).body.data.room.inroom).toBe(100);
  });

  it('answers each new fan with the user exactly as stored, as a search (read from the database, not a cache) returns it', async () => {
    const { api } = own.app;
    const room = await makeRoom(api, { enableenterandexit: false });
    const crowd = fans(`stored${Date.now() % 100000}x`, 24);
    const answers = await Promise.all(
      crowd.map((userid, i) =>
        api.post(`chat/rooms/${room.id}/join`, {
          userid,
          displayname: `Fan ${i} "ü"`,
          pictureurl: `https://img.example/${i}.png`,
          profileurl: `https://example.com/${i}`,
          customtags: [`tag${i}`, 'fan'],
        }),
      ),
    );
    for (const res of answers) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const found = await api.post('user/search', { userid: res.body.data.user.userid });
      expect(found.status).toBe(200);
      expect([res.body.data.user]).toEqual(found.body.data.users.filter((u: any) => u.userid === res.body.data.user.userid));
      expect(res.body.data.user.customtags).toHaveLength(2);
    }
  });

  it('gives new fans asking for the same handle at once that handle once and free variants to the others, each fan created and joined once', async () => {
    const { api } = own.app;
    const room = await makeRoom(api, { enableenterandexit: false });
    const handle = `chant${Date.now() % 100000}`;
    const crowd = fans(`same${Date.now() % 100000}x`, 30);
    const answers = await Promise.all(crowd.map((userid) => api.post(`chat/rooms/${room.id}/join`, { userid, handle })));
    for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(200);
    const handles = answers.map((res) => res.body.data.user.handle as string);
    expect(new Set(handles).size).toBe(30);
    expect(handles.filter((h) => h === handle)).toHaveLength(1);
    for (const h of handles) expect(h).toMatch(new RegExp(`^${handle}\\d{0,2}$`));
    expect(answers.map((res) => res.body.data.user.userid).sort()).toEqual([...crowd].sort());
    expect((await api.get(`chat/rooms/${room.id}`)).body.data.inroom).toBe(30);
  });
});
