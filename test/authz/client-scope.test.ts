import { beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, Client, manage, newApp, uid, type TestApp } from '../helpers/api.js';
import { bearer, expectEnvelope, userToken } from '../foundation/util.js';
import { connect } from '../realtime/ws-client.js';

/**
 * A client token (safe to ship in a browser or an app) reads public content alone; every write
 * and every user-scoped read needs a user token and acts only as that user; app administration
 * needs an admin's user token.
 */
describe('a client-scoped API token', () => {
  let app: TestApp;
  let client: Client;
  let clientToken: string;
  let roomid: string;
  let conversationid: string;
  let pollid: string;
  let choiceid: string;
  const alice = uid('alice');
  const bob = uid('bob');
  const as = async (userid: string, role = 'user') => client.withHeaders(bearer(await userToken(app.jwtsecret, { userid, role })));

  beforeAll(async () => {
    app = await newApp();
    clientToken = (await manage('createtoken', { applicationid: app.appid, name: 'browser', scope: 'client' })).body.data.token;
    client = new Client(baseUrl(), app.appid, clientToken);
    roomid = (await app.api.post('chat/rooms', { name: 'public room' })).body.data.id;
    for (const u of [alice, bob]) expectEnvelope(await app.api.post(`chat/rooms/${roomid}/join`, { userid: u, displayname: u }), 200);
    expectEnvelope(await app.api.post(`chat/rooms/${roomid}/command`, { userid: bob, command: 'hello from bob' }), 200);
    conversationid = uid('conv');
    expectEnvelope(await app.api.post('comment/conversations', { conversationid, property: 'site', moderation: 'post' }), 200);
    const poll = await app.api.post('poll/poll/create', { title: 'Q' });
    pollid = poll.body.data.id;
    choiceid = (await app.api.post(`poll/poll/${pollid}/choice`, { title: 'yes' })).body.data[0].id;
  });

  it('reads public content without a user token', async () => {
    for (const path of [
      'chat/rooms',
      `chat/rooms/${roomid}`,
      `chat/rooms/${roomid}/updates`,
      `chat/rooms/${roomid}/listpreviousevents`,
      `chat/rooms/${roomid}/participants`,
      `comment/conversations/${conversationid}`,
      `comment/conversations/${conversationid}/comments`,
      `poll/poll/${pollid}`,
      `poll/poll/${pollid}/standings`,
      `telemetry/contexts/${uid('ctx')}`,
      `user/users/${bob}`,
    ]) {
      expect((await client.get(path)).status, path).toBe(200);
    }
    expect((await client.post('chat/searchevents', { roomid })).status).toBe(200);
  });

  it("lets a user's own token send the role the hosted SDK always sends (createOrUpdateUser) when it changes nothing, and refuses any real change of role", async () => {
    const carol = uid('carol');
    const asCarol = await as(carol);
    const created = await asCarol.post(`user/users/${carol}`, { userid: carol, handle: carol.slice(-20), role: 'user' });
    expectEnvelope(created, 200);
    expect(created.body.data.role).toBe('user');
    expectEnvelope(await asCarol.post(`user/users/${carol}`, { userid: carol, handle: carol.slice(-20), displayname: 'Carol', role: 'user' }), 200);
    expectEnvelope(await asCarol.post(`user/users/${carol}`, { userid: carol, role: 'admin' }), 403);
    expectEnvelope(await asCarol.post(`user/users/${carol}`, { userid: carol, role: 'moderator' }), 403);
    const dave = uid('dave');
    expectEnvelope(await (await as(dave)).post(`user/users/${dave}`, { userid: dave, role: 'moderator' }), 403);
    expect((await app.api.get(`user/users/${dave}`)).status).toBe(404);
    expect((await app.api.get(`user/users/${carol}`)).body.data).toMatchObject({ role: 'user', displayname: 'Carol' });
    // A moderator repeating their own role is accepted too; it stays what it was.
    expectEnvelope(await app.api.post(`user/users/${carol}/role`, { role: 'moderator' }), 200);
    const asModerator = await as(carol, 'moderator');
    expectEnvelope(await asModerator.post(`user/users/${carol}`, { userid: carol, role: 'moderator' }), 200);
    expectEnvelope(await asModerator.post(`user/users/${carol}`, { userid: carol, role: 'user' }), 403);
    expect((await app.api.get(`user/users/${carol}`)).body.data.role).toBe('moderator');
  });

  it('refuses every write without a user token', async () => {
    const refused = [
      await client.post('chat/rooms', { name: 'spam' }),
      await client.post(`chat/rooms/${roomid}/command`, { userid: bob, command: 'as bob' }),
      await client.post(`chat/rooms/${roomid}/join`, { userid: bob }),
      await client.post(`comment/conversations/${conversationid}/comments`, { userid: bob, body: 'as bob' }),
      await client.post(`poll/poll/${pollid}/response`, { userid: bob, choiceid }),
      await client.post(`user/users/${bob}`, { displayname: 'Mallory' }),
      await client.post(`telemetry/contexts/${uid('ctx')}/presence/here/heartbeat`, { userid: bob }),
    ];
    for (const res of refused) expectEnvelope(res, 403);
  });

  it("writes as the user token's user only", async () => {
    const asAlice = await as(alice);
    expectEnvelope(await asAlice.post(`chat/rooms/${roomid}/command`, { userid: alice, command: 'hi from alice' }), 200);
    expectEnvelope(await asAlice.post(`chat/rooms/${roomid}/command`, { userid: bob, command: 'pretending' }), 403);
    expectEnvelope(await asAlice.post(`comment/conversations/${conversationid}/comments`, { userid: alice, body: 'mine' }), 200);
    expectEnvelope(await asAlice.post(`poll/poll/${pollid}/response`, { userid: alice, choiceid }), 200);
    expectEnvelope(await asAlice.post(`poll/poll/${pollid}/response`, { userid: bob, choiceid }), 403);
  });

  it("needs the user's own token for user-scoped reads", async () => {
    for (const path of [`user/users/${alice}/notification/listnotifications`, `chat/user/${alice}/subscriptions`, `poll/poll/${pollid}/responses/user/${alice}`]) {
      expectEnvelope(await client.get(path), 403);
      expectEnvelope(await (await as(bob)).get(path), 403);
      expectEnvelope(await (await as(alice)).get(path), 200);
    }
    expectEnvelope(await client.get('user/users'), 403);
  });

  it("does not let an anonymous reader see another user's shadow-banned messages", async () => {
    const shadow = uid('shadow');
    expectEnvelope(await app.api.post(`chat/rooms/${roomid}/join`, { userid: shadow, displayname: shadow }), 200);
    expectEnvelope(await app.api.post(`chat/rooms/${roomid}/shadowban`, { userid: shadow, applyeffect: true }), 200);
    expectEnvelope(await app.api.post(`chat/rooms/${roomid}/command`, { userid: shadow, command: 'only I see this' }), 200);
    const bodies = (res: { body: { data: { events: { body: string }[] } } }) => res.body.data.events.map((e) => e.body);
    expect(bodies(await app.api.get(`chat/rooms/${roomid}/updates?userid=${shadow}`))).toContain('only I see this');
    expect(bodies(await client.get(`chat/rooms/${roomid}/updates?userid=${shadow}`))).not.toContain('only I see this');
    expect(bodies(await (await as(shadow)).get(`chat/rooms/${roomid}/updates`))).toContain('only I see this');
    expect(bodies(await client.get(`chat/rooms/${roomid}/messagesbyuser/${shadow}`))).not.toContain('only I see this');
    expect(bodies(await (await as(shadow)).get(`chat/rooms/${roomid}/messagesbyuser/${shadow}`))).toContain('only I see this');
  });

  it("needs a moderator's user token for moderation", async () => {
    expectEnvelope(await client.get('chat/moderation/queues/events'), 403);
    expectEnvelope(await (await as(alice)).get('chat/moderation/queues/events'), 403);
    expectEnvelope(await (await as(uid('mod'), 'moderator')).get('chat/moderation/queues/events'), 200);
    expectEnvelope(await (await as(alice)).post(`chat/rooms/${roomid}/mute`, { userid: bob, applyeffect: true }), 403);
    expectEnvelope(await (await as(uid('mod'), 'moderator')).post(`chat/rooms/${roomid}/mute`, { userid: bob, applyeffect: false }), 200);
    // Unpublished polls are drafts: listing them is moderation.
    expectEnvelope(await client.get('poll/poll?includeunpublished=true'), 403);
    expectEnvelope(await (await as(alice)).get('poll/poll?includeunpublished=true'), 403);
    expectEnvelope(await (await as(uid('mod'), 'moderator')).get('poll/poll?includeunpublished=true'), 200);
    expectEnvelope(await client.get('poll/poll'), 200);
  });

  it("needs an admin's user token for app administration", async () => {
    const moderator = await as(uid('mod'), 'moderator');
    const admin = await as(uid('admin'), 'admin');
    const hook = { label: 'x', url: 'http://127.0.0.1:9/hook', enabled: false, type: 'postpublish', events: ['chatspeech'] };
    for (const caller of [client, moderator]) {
      expectEnvelope(await caller.get('webhook/hooks'), 403);
      expectEnvelope(await caller.post('webhook/hooks', hook), 403);
      expectEnvelope(await caller.post(`user/users/${bob}/role`, { role: 'admin' }), 403);
      expectEnvelope(await caller.post(`user/users/${bob}/ban`, { applyeffect: true }), 403);
      expectEnvelope(await caller.post(`chat/rooms/${roomid}/reset`, {}), 403);
      expectEnvelope(await caller.delete(`chat/rooms/${roomid}/events`), 403);
      expectEnvelope(await caller.delete(`chat/rooms/${roomid}`), 403);
    }
    expectEnvelope(await admin.get('webhook/hooks'), 200);
    expectEnvelope(await admin.post(`user/users/${bob}/ban`, { applyeffect: false }), 200);
    const doomed = (await app.api.post('chat/rooms', { name: 'doomed' })).body.data.id;
    expectEnvelope(await admin.delete(`chat/rooms/${doomed}`), 200);
  });

  it('on WebSocket: public topics without a user token; the user topic and heartbeats need one', async () => {
    const anonymous = await connect(baseUrl(), app.appid, clientToken);
    expect(await anonymous.subscribe(`room:${roomid}`)).toMatchObject({ type: 'subscribed' });
    expect(await anonymous.subscribe(`conversation:${conversationid}`)).toMatchObject({ type: 'subscribed' });
    expect(await anonymous.subscribe(`poll:${pollid}`)).toMatchObject({ type: 'subscribed' });
    expect(await anonymous.subscribe(`context:${uid('ctx')}`)).toMatchObject({ type: 'subscribed' });
    expect(await anonymous.subscribe(`user:${alice}`)).toMatchObject({ type: 'error', code: 'forbidden' });
    const from = anonymous.frames.length;
    anonymous.send({ type: 'heartbeat', contextid: uid('ctx'), key: 'here', userid: alice });
    expect(await anonymous.next((f) => f.type === 'error', 5000, from)).toMatchObject({ code: 'forbidden' });
    anonymous.close();

    const signedIn = await connect(baseUrl(), app.appid, clientToken, await userToken(app.jwtsecret, { userid: alice }));
    expect(await signedIn.subscribe(`user:${alice}`)).toMatchObject({ type: 'subscribed' });
    expect(await signedIn.subscribe(`user:${bob}`)).toMatchObject({ type: 'error', code: 'forbidden' });
    signedIn.close();
  });

  it('a server token keeps its full power without a user token', async () => {
    expectEnvelope(await app.api.post(`chat/rooms/${roomid}/command`, { userid: bob, command: 'backend says' }), 200);
    expectEnvelope(await app.api.get('webhook/hooks'), 200);
    expectEnvelope(await app.api.get(`user/users/${alice}/notification/listnotifications`), 200);
  });
});
