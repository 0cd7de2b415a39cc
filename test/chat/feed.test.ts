import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type TestApp } from '../helpers/api.js';
import { drain, join, makeRoom, say } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await newApp();
});

describe('updates: the polling feed', () => {
  it('without a cursor returns the most recent displayable events, oldest first, and more when older exist', async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false });
    const { user } = await join(t.api, room.id);
    for (let i = 1; i <= 5; i++) await say(t.api, room.id, user.userid, `m${i}`);
    const res = await t.api.get(`chat/rooms/${room.id}/updates?limit=3`);
    expect(res.status).toBe(200);
    expect(res.body.data.kind).toBe('list.chatevents');
    expect(res.body.data.events.map((e: { body: string }) => e.body)).toEqual(['m3', 'm4', 'm5']);
    expect(res.body.data.more).toBe(true);
    expect(res.body.data.itemcount).toBe(3);
    expect(typeof res.body.data.cursor).toBe('string');
    const all = await t.api.get(`chat/rooms/${room.id}/updates?limit=10`);
    expect(all.body.data.more).toBe(false);
  });

  it('with a cursor returns every newer event once, non-displayable ones too, and the same cursor when nothing is new', async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false });
    const { user, eventscursor } = await join(t.api, room.id);
    expect(eventscursor.events).toEqual([]);
    const first = await say(t.api, room.id, user.userid, 'hello');
    const react = await t.api.post(`chat/rooms/${room.id}/events/${first.speech.id}/react`, { userid: user.userid, reaction: 'like', reacted: true });
    expect(react.status).toBe(200);
    const seen = await drain(t.api, room.id, eventscursor.cursor);
    expect(seen.events.map((e) => e.eventtype)).toEqual(['speech', 'reaction']);
    expect(seen.events[1].replyto.id).toBe(first.speech.id);
    expect(seen.events[1].replyto.likecount).toBe(1);
    const again = await t.api.get(`chat/rooms/${room.id}/updates?cursor=${seen.cursor}`);
    expect(again.body.data.events).toEqual([]);
    expect(again.body.data.cursor).toBe(seen.cursor);
  });

  it('pages a long backlog with limit and more, without gaps or repeats', async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false });
    const { user, eventscursor } = await join(t.api, room.id);
    for (let i = 0; i < 12; i++) await say(t.api, room.id, user.userid, `n${i}`);
    let cursor = eventscursor.cursor;
    const bodies: string[] = [];
    for (;;) {
      const res = await t.api.get(`chat/rooms/${room.id}/updates?cursor=${cursor}&limit=5`);
      bodies.push(...res.body.data.events.map((e: { body: string }) => e.body));
      if (!res.body.data.more) break;
      expect(res.body.data.itemcount).toBe(5);
      cursor = res.body.data.cursor;
    }
    expect(bodies).toEqual(Array.from({ length: 12 }, (_, i) => `n${i}`));
  });

  it('serves a cursor older than the in-memory window from the database, then continues from memory', async () => {
    // No profanity filter: some numbers read as profanity ("bulk ***") and the bodies must stay distinct.
    const room = await makeRoom(t.api, { enableenterandexit: false, enableprofanityfilter: false });
    const { eventscursor } = await join(t.api, room.id);
    // 50 posters, 22 messages each: within the per-user chat limit (RATE_LIMIT_CHAT).
    const posters = await Promise.all(Array.from({ length: 50 }, () => join(t.api, room.id)));
    // More events than the memory window (1000) holds, posted before the room is first polled: the
    // first page comes from the database, the later ones from memory.
    const total = 1100;
    for (let i = 0; i < total; i += 50) {
      await Promise.all(posters.map((p, k) => say(t.api, room.id, p.user.userid, `bulk ${i + k}`)));
    }
    const seen = await drain(t.api, room.id, eventscursor.cursor, '&limit=500');
    expect(seen.events).toHaveLength(total);
    expect(new Set(seen.events.map((e) => e.body))).toEqual(new Set(Array.from({ length: total }, (_, i) => `bulk ${i}`)));
    // The feed's order is commit order (seq), which concurrent posts may take in another order
    // than they were created in: the reference is the seq-ordered listing, paged back to the start.
    const stored: string[] = [];
    for (let cursor = ''; ; ) {
      const page = await t.api.get(`chat/rooms/${room.id}/listpreviousevents?limit=500${cursor === '' ? '' : `&cursor=${cursor}`}`);
      stored.unshift(...page.body.data.events.map((e: { id: string }) => e.id));
      if (!page.body.data.more) break;
      cursor = page.body.data.cursor;
    }
    expect(seen.events.map((e) => e.id)).toEqual(stored);
  }, 60_000);

  it('with positions=true gives each event its feed seq and cursor beside events; without it, no positions', async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false });
    const { user, eventscursor } = await join(t.api, room.id);
    for (let i = 1; i <= 4; i++) await say(t.api, room.id, user.userid, `p${i}`);
    const page = (await t.api.get(`chat/rooms/${room.id}/updates?positions=true&limit=3&cursor=${eventscursor.cursor}`)).body.data;
    expect(page.events.map((e: { body: string }) => e.body)).toEqual(['p1', 'p2', 'p3']);
    const positions = page.positions as { seq: number; cursor: string }[];
    expect(positions.map((p) => p.seq - (positions[0]?.seq as number))).toEqual([0, 1, 2]);
    expect(positions[2]?.cursor).toBe(page.cursor);
    // Each event's cursor continues right after it.
    const after = (await t.api.get(`chat/rooms/${room.id}/updates?cursor=${positions[0]?.cursor}`)).body.data;
    expect(after.events.map((e: { body: string }) => e.body)).toEqual(['p2', 'p3', 'p4']);
    expect(after.positions).toBeUndefined();
    expect((await t.api.get(`chat/rooms/${room.id}/updates?positions=maybe&cursor=${eventscursor.cursor}`)).status).toBe(400);
  });

  it('refuses a cursor it did not issue with 400 naming the field', async () => {
    const room = await makeRoom(t.api);
    const res = await t.api.get(`chat/rooms/${room.id}/updates?cursor=garbage`);
    expect(res.status).toBe(400);
    expect(res.body.errors.cursor).toBeTruthy();
  });

  it('404s for an unknown room', async () => {
    const res = await t.api.get(`chat/rooms/nope${uid()}/updates`);
    expect(res.status).toBe(404);
  });

  it('has each message in updates as soon as its POST returned, while 40 clients post at once', async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false, enableprofanityfilter: false });
    const posters = await Promise.all(Array.from({ length: 40 }, () => join(t.api, room.id)));
    const missing: string[] = [];
    await Promise.all(
      posters.map(async (p, i) => {
        for (let k = 0; k < 15; k++) {
          const before = (await t.api.get(`chat/rooms/${room.id}/updates?limit=1`)).body.data.cursor as string;
          const sent = await say(t.api, room.id, p.user.userid, `now ${i}-${k}`);
          const seen = await drain(t.api, room.id, before);
          if (!seen.events.some((e) => e.id === sent.speech.id)) missing.push(`now ${i}-${k}`);
        }
      }),
    );
    expect(missing).toEqual([]);
  }, 60_000);

  it('every poller sees every event exactly once, in order, with 20 concurrent posters', async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false });
    // 25 messages each: within the per-user chat limit (RATE_LIMIT_CHAT).
    const posters = await Promise.all(Array.from({ length: 20 }, () => join(t.api, room.id)));
    const start = posters[0].eventscursor.cursor;
    let posting = true;
    const poll = async () => {
      const seen: { id: string; body: string }[] = [];
      let cursor = start;
      while (posting || seen.length < 500) {
        // Read before the request: an empty answer ends the poll only if it was asked after the last post committed.
        const done = !posting;
        const res = await t.api.get(`chat/rooms/${room.id}/updates?cursor=${cursor}&limit=100`);
        expect(res.status).toBe(200);
        seen.push(...res.body.data.events);
        cursor = res.body.data.cursor;
        if (done && res.body.data.events.length === 0) break;
      }
      return seen;
    };
    const pollers = [poll(), poll(), poll()];
    await Promise.all(
      posters.map(async (p, i) => {
        for (let k = 0; k < 25; k++) await say(t.api, room.id, p.user.userid, `p${i}-${k}`);
      }),
    );
    posting = false;
    const results = await Promise.all(pollers);
    const history = await t.api.get(`chat/rooms/${room.id}/listeventshistory?limit=2000`);
    const stored = history.body.data.events.map((e: { id: string }) => e.id);
    for (const seen of results) {
      expect(seen).toHaveLength(500);
      expect(new Set(seen.map((e) => e.id)).size).toBe(500);
      // Per poster, messages arrive in the order they were posted.
      for (let i = 0; i < 20; i++) {
        const mine = seen.filter((e) => e.body.startsWith(`p${i}-`)).map((e) => e.body);
        expect(mine).toEqual(Array.from({ length: 25 }, (_, k) => `p${i}-${k}`));
      }
      // All pollers agree on one total order.
      expect(seen.map((e) => e.id)).toEqual(results[0]?.map((e) => e.id));
    }
    expect(new Set(stored)).toEqual(new Set(results[0]?.map((e) => e.id)));
  }, 60_000);

  it("shows a shadow-banned user's events to that user alone", async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false });
    const alice = await join(t.api, room.id);
    const bob = await join(t.api, room.id);
    expect((await t.api.post(`user/users/${bob.user.userid}/shadowban`, { applyeffect: true })).status).toBe(200);
    const sent = await say(t.api, room.id, bob.user.userid, 'hidden');
    expect(sent.speech.shadowban).toBe(true);
    await say(t.api, room.id, alice.user.userid, 'visible');
    const others = await drain(t.api, room.id, alice.eventscursor.cursor);
    expect(others.events.map((e) => e.body)).toEqual(['visible']);
    const own = await drain(t.api, room.id, alice.eventscursor.cursor, `&userid=${bob.user.userid}`);
    expect(own.events.map((e) => e.body)).toEqual(['hidden', 'visible']);
    const latest = await t.api.get(`chat/rooms/${room.id}/updates`);
    expect(latest.body.data.events.map((e: { body: string }) => e.body)).toEqual(['visible']);
  });

  it('holds pre-moderated messages out of the feed', async () => {
    const room = await makeRoom(t.api, { moderation: 'pre', enableenterandexit: false });
    const { user, eventscursor } = await join(t.api, room.id);
    const sent = await say(t.api, room.id, user.userid, 'wait for me');
    expect(sent.speech.moderation).toBe('pending');
    expect((await drain(t.api, room.id, eventscursor.cursor)).events).toEqual([]);
    expect((await t.api.get(`chat/rooms/${room.id}/updates`)).body.data.events).toEqual([]);
  });

  it('delays messages by delaymessageseconds before they enter the feed', async () => {
    const room = await makeRoom(t.api, { delaymessageseconds: 1, enableenterandexit: false });
    const { user, eventscursor } = await join(t.api, room.id);
    const posted = Date.now();
    await say(t.api, room.id, user.userid, 'slow');
    expect((await drain(t.api, room.id, eventscursor.cursor)).events).toEqual([]);
    let seen: { body: string }[] = [];
    while (seen.length === 0 && Date.now() - posted < 5000) {
      await new Promise((r) => setTimeout(r, 100));
      seen = (await drain(t.api, room.id, eventscursor.cursor)).events;
    }
    expect(seen.map((e) => e.body)).toEqual(['slow']);
    expect(Date.now() - posted).toBeGreaterThanOrEqual(1000);
  });
});
