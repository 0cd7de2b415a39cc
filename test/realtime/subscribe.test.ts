import { beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, newApp, uid, type TestApp } from '../helpers/api.js';
import { userToken } from '../foundation/util.js';
import { connect } from './ws-client.js';

describe('websocket subscriptions', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    [a, b] = await Promise.all([newApp(), newApp()]);
  });

  it('answers bad frames with an error frame and keeps the socket open', async () => {
    const client = await connect(baseUrl(), a.appid, a.token);
    client.send('{not json');
    expect(await client.next((f) => f.type === 'error')).toMatchObject({ code: 'bad_frame', message: 'Frames must be JSON objects.' });
    client.send({ type: 'shout' });
    expect((await client.collect((f) => f.type === 'error', 2))[1]).toMatchObject({ code: 'bad_frame' });
    client.send({ type: 'subscribe' });
    expect((await client.collect((f) => f.type === 'error', 3))[2]?.message).toMatch(/^topic /);
    client.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    expect((await client.collect((f) => f.type === 'error', 4))[3]?.message).toBe('Frames must be text (JSON).');
    expect(await client.subscribe('channel:x')).toMatchObject({ type: 'error', code: 'bad_topic' });
    expect(await client.subscribe('room:')).toMatchObject({ type: 'error', code: 'bad_topic' });
    expect(await client.subscribe(`context:${'x'.repeat(251)}`)).toMatchObject({ type: 'error', code: 'bad_topic' });
    await client.settle();
    client.close();
  });

  it('confirms subscribe and unsubscribe, refuses doubles and unknown unsubscribes', async () => {
    const client = await connect(baseUrl(), a.appid, a.token);
    expect(await client.subscribe('context:c1')).toEqual({ type: 'subscribed', topic: 'context:c1' });
    expect(await client.subscribe('context:c1')).toMatchObject({ type: 'error', code: 'already_subscribed' });
    client.send({ type: 'unsubscribe', topic: 'context:c1' });
    expect(await client.next((f) => f.type === 'unsubscribed')).toEqual({ type: 'unsubscribed', topic: 'context:c1' });
    client.send({ type: 'unsubscribe', topic: 'context:c1' });
    expect(await client.next((f) => f.code === 'not_subscribed')).toMatchObject({ type: 'error', topic: 'context:c1' });
    expect(await client.subscribe('context:c1')).toEqual({ type: 'subscribed', topic: 'context:c1' });
    client.close();
  });

  it('lets user:X be subscribed by X, by moderators, and by a backend token without user token only', async () => {
    const userid = uid('u');
    const own = await connect(baseUrl(), a.appid, a.token, await userToken(a.jwtsecret, { userid }));
    expect(await own.subscribe(`user:${userid}`)).toMatchObject({ type: 'subscribed' });
    expect(await own.subscribe('user:someone-else')).toMatchObject({ type: 'error', code: 'forbidden' });
    const moderator = await connect(baseUrl(), a.appid, a.token, await userToken(a.jwtsecret, { userid: 'mod', role: 'moderator' }));
    expect(await moderator.subscribe(`user:${userid}`)).toMatchObject({ type: 'subscribed' });
    const backend = await connect(baseUrl(), a.appid, a.token);
    expect(await backend.subscribe(`user:${userid}`)).toMatchObject({ type: 'subscribed' });
    for (const c of [own, moderator, backend]) c.close();
  });

  it('refuses subscriptions beyond the per-socket cap (WS_MAX_SUBSCRIPTIONS, default 100)', async () => {
    const client = await connect(baseUrl(), a.appid, a.token);
    for (let i = 0; i < 100; i++) client.send({ type: 'subscribe', topic: `context:cap${i}` });
    await client.collect((f) => f.type === 'subscribed', 100);
    expect(await client.subscribe('context:one-too-many')).toMatchObject({ type: 'error', code: 'too_many_subscriptions' });
    client.send({ type: 'unsubscribe', topic: 'context:cap0' });
    expect(await client.subscribe('context:one-too-many')).toMatchObject({ type: 'subscribed' });
    client.close();
  });

  it('keeps applications apart: the same topic name in another app delivers nothing', async () => {
    const contextid = uid('ctx');
    const inA = await connect(baseUrl(), a.appid, a.token);
    const inB = await connect(baseUrl(), b.appid, b.token);
    await inA.subscribe(`context:${contextid}`);
    await inB.subscribe(`context:${contextid}`);
    const res = await b.api.post(`telemetry/contexts/${contextid}/presence/viewers/heartbeat`, { userid: 'u1' });
    expect(res.status).toBe(200);
    const pushed = await inB.next((f) => f.type === 'event' && f.data.signals.length === 1);
    expect(pushed.data.signals[0]).toMatchObject({ key: 'viewers', active: 1 });
    await new Promise((r) => setTimeout(r, 700));
    expect(inA.frames.filter((f) => f.type === 'event').every((f) => f.data.signals.length === 0)).toBe(true);
    inA.close();
    inB.close();
  });

  it('answers ping with pong', async () => {
    const client = await connect(baseUrl(), a.appid, a.token);
    client.send({ type: 'ping' });
    expect(await client.next((f) => f.type === 'pong')).toEqual({ type: 'pong' });
    client.close();
  });
});
