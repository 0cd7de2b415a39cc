import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, manage, newApp, request, uid, type TestApp } from '../helpers/api.js';
import { MANAGE_TOKEN, spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { userToken } from '../foundation/util.js';
import { expectRateLimited, sleep } from './helpers.js';

/** The suite speaks from one address; behind TRUST_PROXY=1 each test is its own client through X-Forwarded-For. */
const from = (address: string) => ({ 'x-forwarded-for': address });
let addresses = 0;
const newAddress = () => `203.0.113.${++addresses}`;

describe('failed authentication per client address', () => {
  let server: SpawnedServer;
  let a: TestApp;
  beforeAll(async () => {
    server = await spawnServer({ TRUST_PROXY: '1', RATE_LIMIT_AUTH_FAILURES: '3/1m', RATE_LIMIT_AUTH_LOCKOUT: '2s' });
    a = await newApp({}, server.url);
  });
  afterAll(() => server.stop());

  const manageAs = (address: string, token: string) => request('POST', `${server.url}/api/v3/manage/createapplication`, { name: 'limits' }, { 'x-manage-token': token, ...from(address) });

  it('locks an address out after too many wrong manage tokens; even the right token waits out the lockout', async () => {
    const address = newAddress();
    for (let i = 0; i < 3; i++) expect((await manageAs(address, `wrong-${i}-0123456789abcdef`)).status).toBe(403);
    expectRateLimited(await manageAs(address, 'wrong-3-0123456789abcdef'), 3);
    expectRateLimited(await manageAs(address, MANAGE_TOKEN), 3);
    // Another address is not affected.
    expect((await manageAs(newAddress(), MANAGE_TOKEN)).status).toBe(200);
    await sleep(2100);
    expect((await manageAs(address, MANAGE_TOKEN)).status).toBe(200);
  });

  it('counts unknown API tokens and bad user tokens alike, and refuses the valid token during the lockout', async () => {
    const address = newAddress();
    const wrong = new Client(server.url, a.appid, 'not-a-token', from(address));
    const badJwt = a.api.withHeaders({ ...from(address), authorization: `Bearer ${await userToken('not-the-secret', { userid: 'u' })}` });
    expect((await wrong.get('chat/rooms')).status).toBe(403);
    expect((await wrong.get('chat/rooms')).status).toBe(403);
    expect((await badJwt.get('chat/rooms')).status).toBe(403);
    expectRateLimited(await wrong.get('chat/rooms'), 3);
    expectRateLimited(await a.api.withHeaders(from(address)).get('chat/rooms'), 3);
    await sleep(2100);
    expect((await a.api.withHeaders(from(address)).get('chat/rooms')).status).toBe(200);
  });

  it('does not count requests that carry no credentials', async () => {
    const address = newAddress();
    for (let i = 0; i < 5; i++) expect((await new Client(server.url, a.appid, '', from(address)).get('chat/rooms')).status).toBe(403);
    expect((await a.api.withHeaders(from(address)).get('chat/rooms')).status).toBe(200);
  });

  it('accepts a token created right after an unknown token was refused', async () => {
    const address = newAddress();
    expect((await new Client(server.url, a.appid, 'unknown-token-xyz', from(address)).get('chat/rooms')).status).toBe(403);
    const created = await manage('createtoken', { applicationid: a.appid, name: uid('t') }, server.url);
    expect((await new Client(server.url, a.appid, created.body.data.token, from(address)).get('chat/rooms')).status).toBe(200);
  });
});

describe('the client address without TRUST_PROXY', () => {
  let server: SpawnedServer;
  beforeAll(async () => {
    server = await spawnServer({ RATE_LIMIT_AUTH_FAILURES: '2/1m', RATE_LIMIT_AUTH_LOCKOUT: '2s' });
  });
  afterAll(() => server.stop());

  it('is the socket peer: a client cannot escape its lockout by writing X-Forwarded-For', async () => {
    const attempt = (i: number) =>
      request('POST', `${server.url}/api/v3/manage/createapplication`, { name: 'limits' }, { 'x-manage-token': 'wrong-0123456789abcdef', 'x-forwarded-for': `198.51.100.${i}` });
    expect((await attempt(1)).status).toBe(403);
    expect((await attempt(2)).status).toBe(403);
    expectRateLimited(await attempt(3), 2);
    expectRateLimited(await attempt(4), 2);
  });
});
