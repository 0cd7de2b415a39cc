// Response bodies are arbitrary JSON; tests read them loosely and assert on the values.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { dropDatabase, freshDatabase } from '../helpers/fresh-database.js';
import { parseSamples, total } from '../operability/prometheus-text.js';
import { newConversation, postComment } from '../comments/helpers.js';
import { join, makeRoom, say } from './helpers.js';

const TOKEN = 'crowd-reads-metrics-token-0123456789';
const CROWD = 100;
/**
 * Reads a crowd of CROWD may make where a read is shared only by the requests that began before
 * it started (on the Redis bus): one per read's duration while the crowd arrives, which a busy
 * machine spreads out (12 seen in CI with three test files at once); one per request would be 100.
 */
const CROWD_READS_SINCE = 20;

interface Mode {
  name: string;
  /** Settings over the suite's. */
  env: () => Promise<Record<string, string>>;
  /** One node on the memory bus: it counts every change itself. */
  memoryBus: boolean;
}

const suiteMode: Mode = {
  name: process.env['DATABASE_URL'] === undefined ? 'embedded' : process.env['REDIS_URL'] === undefined ? 'a single node on Postgres' : 'a node of a cluster (Postgres and Redis)',
  env: async () => ({}),
  memoryBus: process.env['REDIS_URL'] === undefined,
};
/** On a cluster's suite, the same reads as a single node on Postgres (no Redis) hears its commits, on a database of its own. */
const singleNodeMode: Mode = {
  name: 'a single node on Postgres',
  env: async () => ({ DATABASE_URL: (await freshDatabase(process.env['DATABASE_URL'], 'crowd_single')) as string, REDIS_URL: '' }),
  memoryBus: true,
};
const modes = process.env['DATABASE_URL'] !== undefined && process.env['REDIS_URL'] !== undefined ? [suiteMode, singleNodeMode] : [suiteMode];

/**
 * The reads a crowd makes with the same parameters (updates without a cursor, room details by id
 * and custom id, rooms list pages, poll standings, a conversation's first comment page) are shared, and every change acknowledged before a read is in it.
 */
describe.each(modes)('crowd reads, $name', ({ env, memoryBus }) => {
  let server: SpawnedServer;
  let t: TestApp;
  let ownDatabase: string | undefined;

  const reads = async (cache: string) => {
    const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    const samples = parseSamples(text);
    return total(samples, 'engage_shared_answers_total', { cache, result: 'miss' });
  };
  const crowd = async (path: string) => {
    const answers = await Promise.all(Array.from({ length: CROWD }, () => t.api.get(path)));
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    return answers.map((a) => a.body.data);
  };

  beforeAll(async () => {
    const settings = await env();
    ownDatabase = settings['DATABASE_URL'];
    server = await spawnServer({ METRICS_TOKEN: TOKEN, RATE_LIMITS: 'off', ...settings });
    t = await newApp({}, server.url);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await dropDatabase(ownDatabase);
  });

  it('updates without a cursor: a crowd shares one page, which shows an edit, a new name and a new event at once', async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false, enableprofanityfilter: false });
    const host = (await join(t.api, room.id, uid('host'), { displayname: 'Commentator' })).user.userid;
    const said = await say(t.api, room.id, host, 'kick off');
    const before = await reads('latest_page');
    for (const page of await crowd(`chat/rooms/${room.id}/updates`)) expect(page.events.map((e: any) => e.body)).toEqual(['kick off']);
    expect((await reads('latest_page')) - before).toBeLessThanOrEqual(2);

    expect((await t.api.put(`chat/rooms/${room.id}/events/${said.speech.id}`, { userid: host, body: 'kick off!' })).status).toBe(200);
    expect((await t.api.get(`chat/rooms/${room.id}/updates`)).body.data.events.map((e: any) => e.body)).toEqual(['kick off!']);
    expect((await t.api.post(`user/users/${host}`, { displayname: 'Head Commentator' })).status).toBe(200);
    expect((await t.api.get(`chat/rooms/${room.id}/updates`)).body.data.events.map((e: any) => e.user.displayname)).toEqual(['Head Commentator']);
    await say(t.api, room.id, host, 'goal');
    const page = (await t.api.get(`chat/rooms/${room.id}/updates?limit=1`)).body.data;
    expect(page).toMatchObject({ kind: 'list.chatevents', more: true, itemcount: 1, room: { id: room.id } });
    expect(page.events.map((e: any) => e.body)).toEqual(['goal']);
  });

  it("updates without a cursor: a shadow-banned fan sees their own events in the shared page, nobody else does, and a fan's own reaction is marked", async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false, enableprofanityfilter: false });
    const [fan, other] = [uid('fan'), uid('other')];
    await join(t.api, room.id, fan);
    await join(t.api, room.id, other);
    const first = await say(t.api, room.id, other, 'one');
    await t.api.get(`chat/rooms/${room.id}/updates`);
    expect((await t.api.post(`chat/rooms/${room.id}/shadowban`, { userid: fan, applyeffect: true })).status).toBe(200);
    await say(t.api, room.id, fan, 'hidden');
    await say(t.api, room.id, other, 'two');
    const bodies = async (query: string) => (await t.api.get(`chat/rooms/${room.id}/updates?${query}`)).body.data.events.map((e: any) => e.body);
    expect(await bodies('')).toEqual(['one', 'two']);
    expect(await bodies(`userid=${other}`)).toEqual(['one', 'two']);
    expect(await bodies(`userid=${fan}`)).toEqual(['one', 'hidden', 'two']);
    // The newest two as the fan sees them: their own event counts.
    const mine = (await t.api.get(`chat/rooms/${room.id}/updates?userid=${fan}&limit=2`)).body.data;
    expect(mine.events.map((e: any) => e.body)).toEqual(['hidden', 'two']);
    expect(mine.more).toBe(true);

    expect((await t.api.post(`chat/rooms/${room.id}/events/${first.speech.id}/react`, { userid: other, reaction: 'like', reacted: true })).status).toBe(200);
    const liked = (await t.api.get(`chat/rooms/${room.id}/updates?userid=${other}`)).body.data.events[0];
    expect(liked.reactions).toEqual([expect.objectContaining({ type: 'like', count: 1 })]);
  });

  it("updates from a cursor: a crowd polling from one cursor shares the events' bytes; two shadow-banned fans each see their own events and not the other's", async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false, enableprofanityfilter: false });
    const [host, x, y] = [uid('host'), uid('x'), uid('y')];
    for (const user of [host, x, y]) await join(t.api, room.id, user);
    const cursor = (await t.api.get(`chat/rooms/${room.id}/updates`)).body.data.cursor as string;
    await say(t.api, room.id, host, 'one');
    await say(t.api, room.id, host, 'two');
    const from = `chat/rooms/${room.id}/updates?cursor=${encodeURIComponent(cursor)}`;
    const before = await reads('feed_page');
    for (const page of await crowd(from)) expect(page.events.map((e: any) => e.body)).toEqual(['one', 'two']);
    expect((await reads('feed_page')) - before).toBeLessThanOrEqual(2);

    for (const fan of [x, y]) expect((await t.api.post(`chat/rooms/${room.id}/shadowban`, { userid: fan, applyeffect: true })).status).toBe(200);
    const start = (await t.api.get(`chat/rooms/${room.id}/updates`)).body.data.cursor as string;
    await say(t.api, room.id, host, 'three');
    await say(t.api, room.id, x, 'by x');
    await say(t.api, room.id, y, 'by y');
    await say(t.api, room.id, host, 'four');
    const bodies = async (query: string) => (await t.api.get(`chat/rooms/${room.id}/updates?cursor=${encodeURIComponent(start)}${query}`)).body.data.events.map((e: any) => e.body);
    // Each sees as many events from the same first to the same last: only who reads tells them apart.
    expect(await bodies(`&userid=${x}`)).toEqual(['three', 'by x', 'four']);
    expect(await bodies(`&userid=${y}`)).toEqual(['three', 'by y', 'four']);
    expect(await bodies('')).toEqual(['three', 'four']);
    expect(await bodies(`&userid=${host}`)).toEqual(['three', 'four']);
  });

  it('room details by id and by custom id: a crowd shares its reads, and a room update or moderation change is in the next read', async () => {
    const customid = uid('custom');
    const room = await makeRoom(t.api, { enableenterandexit: false, customid });
    const before = await reads('room_details');
    for (const details of await crowd(`chat/rooms/${room.id}`)) expect(details).toMatchObject({ id: room.id, name: room.name, shadowbannedusers: [] });
    // Made once for the version of the room the crowd saw.
    expect((await reads('room_details')) - before).toBeLessThanOrEqual(2);
    for (const details of await crowd(`chat/roomsbycustomid/${customid}`)) expect(details).toMatchObject({ id: room.id, customid });

    expect((await t.api.post(`chat/rooms/${room.id}`, { name: 'Renamed' })).status).toBe(200);
    expect((await t.api.get(`chat/rooms/${room.id}`)).body.data.name).toBe('Renamed');
    expect((await t.api.get(`chat/roomsbycustomid/${customid}`)).body.data.name).toBe('Renamed');
    const fan = uid('fan');
    await join(t.api, room.id, fan);
    expect((await t.api.get(`chat/rooms/${room.id}`)).body.data.inroom).toBe(1);
    expect((await t.api.post(`chat/rooms/${room.id}/shadowban`, { userid: fan, applyeffect: true })).status).toBe(200);
    expect((await t.api.get(`chat/rooms/${room.id}`)).body.data.shadowbannedusers).toEqual([fan]);
    expect((await t.api.post(`chat/rooms/${room.id}/shadowban`, { userid: fan, applyeffect: false })).status).toBe(200);
    expect((await t.api.get(`chat/rooms/${room.id}`)).body.data.shadowbannedusers).toEqual([]);
    expect((await t.api.post(`chat/rooms/${room.id}`, { customid: `${customid}x` })).status).toBe(200);
    expect((await t.api.get(`chat/roomsbycustomid/${customid}`)).status).toBe(404);
  });

  it('room details: reads one after another share one answer until a change, which each kind of change ends (a post, a report, an effect that lapses, the room deleted)', async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false, enableprofanityfilter: false });
    const details = async () => {
      const res = await t.api.get(`chat/rooms/${room.id}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data;
    };
    await details();
    const [made, checked] = [await reads('room_details'), await reads('room_versions')];
    for (let i = 0; i < 10; i++) expect((await details()).id).toBe(room.id);
    expect((await reads('room_details')) - made).toBe(0);
    // A single node hears every commit: no read even of the version. On a cluster other nodes write
    // too: the version is read once for the requests that began before it.
    expect((await reads('room_versions')) - checked).toBe(memoryBus ? 0 : 10);

    const [fan, reporter] = [uid('fan'), uid('reporter')];
    await join(t.api, room.id, fan);
    await join(t.api, room.id, reporter);
    expect((await details()).inroom).toBe(2);
    await say(t.api, room.id, fan, 'first');
    expect((await details()).lastmessagetime).not.toBeNull();
    expect((await t.api.post(`chat/rooms/${room.id}/users/${fan}/report`, { userid: reporter, reporttype: 'abuse' })).status).toBe(200);
    expect((await details()).reportedusers).toEqual([expect.objectContaining({ userid: fan, reportedbyuserid: reporter })]);
    expect((await t.api.post(`chat/rooms/${room.id}/mute`, { userid: fan, applyeffect: true, expireseconds: 1 })).status).toBe(200);
    expect((await details()).mutedusers).toEqual([fan]);
    // Nothing is written when the mute lapses: the answer itself ends with it.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await details()).mutedusers).toEqual([]);
    expect((await t.api.delete(`chat/rooms/${room.id}`)).status).toBe(200);
    expect((await t.api.get(`chat/rooms/${room.id}`)).status).toBe(404);
  });

  it('rooms list pages: a crowd shares its reads, and a new or renamed room is in the next read', async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false });
    const before = await reads('rooms_list');
    for (const list of await crowd('chat/rooms?limit=50')) expect(list.rooms.map((r: any) => r.id)).toContain(room.id);
    expect((await reads('rooms_list')) - before).toBeLessThan(CROWD / 2);
    expect((await t.api.post(`chat/rooms/${room.id}`, { name: 'Lobby renamed' })).status).toBe(200);
    const listed = (await t.api.get('chat/rooms?limit=50')).body.data.rooms.find((r: any) => r.id === room.id);
    expect(listed.name).toBe('Lobby renamed');
    await join(t.api, room.id);
    expect((await t.api.get('chat/rooms?limit=50')).body.data.rooms.find((r: any) => r.id === room.id).inroom).toBe(1);
    const added = await makeRoom(t.api, { enableenterandexit: false });
    expect((await t.api.get('chat/rooms?limit=50')).body.data.rooms.map((r: any) => r.id)).toContain(added.id);
  });

  it("several rooms' counters (batch details): a crowd shares its reads, and a join, an exit and a post are in the next read", async () => {
    const [a, b] = [await makeRoom(t.api, { enableenterandexit: false }), await makeRoom(t.api, { enableenterandexit: false, enableprofanityfilter: false })];
    const path = `chat/rooms/batch/details?roomid=${a.id}&roomid=${b.id}&entity=numparticipants&entity=lastmessagetime`;
    const counts = async () => {
      const res = await t.api.get(path);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.kind).toBe('chat.room.list.extendeddetails');
      return Object.fromEntries(res.body.data.details.map((d: any) => [d.roomid, d]));
    };
    const before = await reads('rooms_list');
    for (const answer of await crowd(path)) expect(answer.details.map((d: any) => d.inroom)).toEqual([0, 0]);
    expect((await reads('rooms_list')) - before).toBeLessThan(CROWD / 2);
    const fan = uid('fan');
    await join(t.api, a.id, fan);
    expect((await counts())[a.id].inroom).toBe(1);
    await join(t.api, b.id, fan);
    await say(t.api, b.id, fan, 'hello');
    const after = await counts();
    expect([after[a.id].numparticipants, after[b.id].numparticipants]).toEqual([1, 1]);
    expect(after[b.id].mostrecentmessagetime).not.toBeNull();
    expect((await t.api.post(`chat/rooms/${a.id}/exit`, { userid: fan })).status).toBe(200);
    expect((await counts())[a.id].inroom).toBe(0);
  });

  it('poll standings: a crowd shares its reads, and a vote, a reset, a choice added or deleted and the poll deleted are in the next read', async () => {
    const pollid = (await t.api.post('poll/poll/create', { title: 'Man of the match' })).body.data.id as string;
    const choices = (await t.api.post(`poll/poll/${pollid}/choice`, { choices: [{ title: 'Keeper' }, { title: 'Striker' }] })).body.data.map((c: any) => c.id) as string[];
    const vote = async (userid: string, choiceid: string) => expect((await t.api.post(`poll/poll/${pollid}/response`, { userid, choiceid })).status).toBe(200);
    const counts = async () => {
      const res = await t.api.get(`poll/poll/${pollid}/standings`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.choices.map((c: any) => [c.title, c.count]);
    };
    await vote(uid('fan'), choices[0] as string);
    const before = await reads('poll_standings');
    for (const standings of await crowd(`poll/poll/${pollid}/standings`)) {
      expect(standings).toMatchObject({ kind: 'poll.standings', pollid, totalresponses: 1 });
      expect(standings.choices.map((c: any) => [c.title, c.count, c.percentage])).toEqual([
        ['Keeper', 1, 100],
        ['Striker', 0, 0],
      ]);
    }
    // One node on the memory bus counts every change itself: the crowd, and reads one after another,
    // share the answer until the next change. With Redis, changes made on other nodes are not counted
    // here: a read is shared by the requests that began before it started (one read per read's time).
    expect((await reads('poll_standings')) - before).toBeLessThanOrEqual(memoryBus ? 2 : CROWD_READS_SINCE);
    const settled = await reads('poll_standings');
    for (let i = 0; i < 10; i++)
      expect(await counts()).toEqual([
        ['Keeper', 1],
        ['Striker', 0],
      ]);
    expect((await reads('poll_standings')) - settled).toBe(memoryBus ? 0 : 10);

    await vote(uid('fan'), choices[1] as string);
    expect(await counts()).toEqual([
      ['Keeper', 1],
      ['Striker', 1],
    ]);
    const more = (await t.api.post(`poll/poll/${pollid}/choice`, { choices: [{ title: 'Coach' }] })).body.data.find((c: any) => c.title === 'Coach').id as string;
    expect(await counts()).toEqual([
      ['Keeper', 1],
      ['Striker', 1],
      ['Coach', 0],
    ]);
    await vote(uid('fan'), more);
    expect(await counts()).toEqual([
      ['Keeper', 1],
      ['Striker', 1],
      ['Coach', 1],
    ]);
    expect((await t.api.delete(`poll/poll/${pollid}/choice/${choices[0]}`)).status).toBe(200);
    expect(await counts()).toEqual([
      ['Striker', 1],
      ['Coach', 1],
    ]);
    expect((await t.api.put(`poll/poll/${pollid}/reset`, {})).status).toBe(200);
    expect(await counts()).toEqual([
      ['Striker', 0],
      ['Coach', 0],
    ]);
    expect((await t.api.delete(`poll/poll/${pollid}`)).status).toBe(200);
    expect((await t.api.get(`poll/poll/${pollid}/standings`)).status).toBe(404);
  });

  it("a conversation's first comment page: a crowd shares its read, reads one after another share it until a change, and a new comment or an edit is in the next read", async () => {
    const conversation = await newConversation(t.api);
    const path = `comment/conversations/${conversation.conversationid}/comments?sort=newest`;
    const first = await postComment(t.api, conversation.conversationid, { body: 'What a match' });
    const bodies = async () => {
      const res = await t.api.get(path);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.comments.map((c: any) => c.body);
    };
    // One node hears every change before it is answered; with Redis another node's may still be on
    // its way, so a read is shared by the requests that began before it started.
    const before = await reads('comment_page');
    for (const page of await crowd(path)) expect(page.comments.map((c: any) => c.body)).toEqual(['What a match']);
    expect((await reads('comment_page')) - before).toBeLessThanOrEqual(memoryBus ? 2 : CROWD_READS_SINCE);
    const settled = await reads('comment_page');
    for (let i = 0; i < 10; i++) expect(await bodies()).toEqual(['What a match']);
    expect((await reads('comment_page')) - settled).toBe(memoryBus ? 0 : 10);

    await postComment(t.api, conversation.conversationid, { body: 'Indeed' });
    expect(await bodies()).toEqual(['Indeed', 'What a match']);
    expect((await t.api.put(`comment/conversations/${conversation.conversationid}/comments/${first.id}`, { userid: 'author', body: 'What a game' })).status).toBe(200);
    expect(await bodies()).toEqual(['Indeed', 'What a game']);
  });
});
