import { beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, newApp, uid, type TestApp } from '../helpers/api.js';
import { userToken } from '../foundation/util.js';
import { connect } from './ws-client.js';

describe('presence over websocket', () => {
  let a: TestApp;
  beforeAll(async () => {
    a = await newApp();
  });

  it('sends the current snapshot on subscribe, then pushes presence as it changes', async () => {
    const contextid = uid('ctx');
    await a.api.post(`telemetry/contexts/${contextid}/presence/viewers/heartbeat`, { userid: 'u1' });
    const client = await connect(baseUrl(), a.appid, a.token);
    await client.subscribe(`context:${contextid}`);
    const first = await client.next((f) => f.type === 'event');
    expect(first).toMatchObject({ topic: `context:${contextid}`, event: 'telemetry.snapshot', data: { kind: 'telemetry.snapshot', contextid } });
    expect(first.data.signals).toEqual([expect.objectContaining({ key: 'viewers', kind: 'presence', active: 1 })]);

    await a.api.post(`telemetry/contexts/${contextid}/presence/viewers/heartbeat`, { userid: 'u2' });
    const second = await client.next((f) => f.type === 'event' && f.data.signals[0]?.active === 2);
    expect(second.data.signals[0]).toMatchObject({ key: 'viewers', active: 2, total: 2 });
    client.close();
  });

  it('counts heartbeat frames sent over the socket, as the user of the user token', async () => {
    const contextid = uid('ctx');
    const jwt = await userToken(a.jwtsecret, { userid: 'alice' });
    const client = await connect(baseUrl(), a.appid, a.token, jwt);
    client.send({ type: 'heartbeat', contextid, key: 'viewers' });
    client.send({ type: 'heartbeat', contextid, key: 'viewers', userid: 'alice' });
    client.send({ type: 'heartbeat', contextid, key: 'viewers', userid: 'mallory' });
    expect(await client.next((f) => f.type === 'error')).toMatchObject({ code: 'forbidden' });
    await client.settle();
    const snapshot = await a.api.get(`telemetry/contexts/${contextid}`);
    expect(snapshot.body.data.signals).toEqual([expect.objectContaining({ key: 'viewers', active: 1, total: 2 })]);

    const backend = await connect(baseUrl(), a.appid, a.token);
    backend.send({ type: 'heartbeat', contextid, key: 'viewers' });
    expect(await backend.next((f) => f.type === 'error')).toMatchObject({ code: 'bad_request', message: 'userid is required without a user token.' });
    backend.send({ type: 'heartbeat', contextid, key: 'viewers', userid: 'bob' });
    await backend.settle();
    expect((await a.api.get(`telemetry/contexts/${contextid}`)).body.data.signals[0].active).toBe(2);
    client.close();
    backend.close();
  });
});
