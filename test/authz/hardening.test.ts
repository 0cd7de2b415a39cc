import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, Client, manage, newApp, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { roomWithUser } from '../webhooks/chat.js';
import { eventually, startReceiver, type Receiver } from '../webhooks/receiver.js';
import { open, wsUrl } from '../realtime/ws-client.js';
import { freshDataDir } from '../helpers/data-template.js';

const ALLOWED = 'https://app.example.com';
const OTHER = 'https://evil.example.net';
const hook = (url: string, label = 'h') => ({ label, url, enabled: true, type: 'postpublish', events: ['chatspeech'] });

/**
 * A server with WEBHOOK_DENY_PRIVATE=true and a CORS_ORIGINS allow-list. Its application was
 * made, with a hook to a loopback receiver, by the same database's previous server without the
 * option: that hook stands for a name whose address changed after it was saved.
 */
describe('WEBHOOK_DENY_PRIVATE and CORS_ORIGINS', () => {
  const dataDir = freshDataDir();
  let server: SpawnedServer | undefined;
  let app: TestApp;
  let receiver: Receiver;
  let loopbackHook: string;

  beforeAll(async () => {
    receiver = await startReceiver(() => 200);
    const before = await spawnServer({ DATA_DIR: dataDir });
    try {
      app = await newApp({}, before.url);
      const saved = await app.api.post('webhook/hooks', hook(receiver.url, 'loopback'));
      expect(saved.status).toBe(200);
      loopbackHook = saved.body.data.id;
    } finally {
      await before.stop();
    }
    server = await spawnServer({ DATA_DIR: dataDir, WEBHOOK_DENY_PRIVATE: 'true', CORS_ORIGINS: `${ALLOWED}, https://admin.example.com` });
    app = { ...app, api: new Client(server.url, app.appid, app.token) };
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses webhook URLs on loopback or private addresses with 400 naming url, at create and update', async () => {
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://localhost:9/hook',
      'http://[::1]:9/hook',
      'http://10.1.2.3/hook',
      'http://192.168.0.10/hook',
      'http://169.254.169.254/latest',
      'http://[::ffff:127.0.0.1]/hook',
    ]) {
      const res = await app.api.post('webhook/hooks', hook(url, 'private'));
      expect(res.status, url).toBe(400);
      expect(Object.keys(res.body.errors), url).toEqual(['url']);
    }
    const updated = await app.api.put(`webhook/hooks/${loopbackHook}`, hook('http://127.0.0.1:1/other', 'loopback'));
    expect(updated.status).toBe(400);
    expect(Object.keys(updated.body.errors)).toEqual(['url']);
    // A public address is accepted (saving it connects to nothing).
    expect((await app.api.post('webhook/hooks', { ...hook('http://93.184.216.34/hook', 'public'), enabled: false })).status).toBe(200);
  });

  it('refuses to deliver to a saved hook whose address is private, and logs why', async () => {
    const { say } = await roomWithUser(app.api);
    expect((await say('not for loopback')).status).toBe(200);
    const log = await eventually(
      () => app.api.get(`webhook/hooks/${loopbackHook}/logentries`).then((r) => r.body.data.logentries as { statuscode: number; error: string }[]),
      (entries) => entries.length > 0,
    );
    expect(log[0]).toMatchObject({ statuscode: 0 });
    expect(log[0]?.error).toMatch(/private/);
    expect(receiver.received).toHaveLength(0);
  });

  it('names an allowed origin in CORS headers, and no other', async () => {
    const server_ = server as SpawnedServer;
    const allowed = await fetch(`${server_.url}/api/v3/${app.appid}/chat/rooms`, { headers: { origin: ALLOWED, 'x-api-token': app.token } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(allowed.headers.get('vary')).toMatch(/origin/i);
    const other = await fetch(`${server_.url}/api/v3/${app.appid}/chat/rooms`, { headers: { origin: OTHER, 'x-api-token': app.token } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();

    const preflight = await fetch(`${server_.url}/api/v3/${app.appid}/chat/rooms`, { method: 'OPTIONS', headers: { origin: ALLOWED, 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
    const refused = await fetch(`${server_.url}/api/v3/${app.appid}/chat/rooms`, { method: 'OPTIONS', headers: { origin: OTHER, 'access-control-request-method': 'POST' } });
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("checks a client token's WebSocket Origin against the list; server tokens and non-browser clients are not judged by it", async () => {
    const server_ = server as SpawnedServer;
    const client = (await manage('createtoken', { applicationid: app.appid, name: 'web', scope: 'client' }, server_.url)).body.data.token as string;
    const url = wsUrl(server_.url, app.appid);
    const ready = async (token: string, headers: Record<string, string>) => {
      const ws = await open(url, { 'x-api-token': token, ...headers });
      const outcome = await Promise.race([ws.next((f) => f['type'] === 'ready').then(() => 'ready'), ws.closed.then((c) => c.code)]);
      ws.close();
      return outcome;
    };
    expect(await ready(client, { origin: OTHER })).toBe(4003);
    expect(await ready(client, { origin: ALLOWED })).toBe('ready');
    expect(await ready(client, {})).toBe('ready');
    expect(await ready(app.token, { origin: OTHER })).toBe('ready');
  });
});

describe('CORS by default', () => {
  it('allows any origin (CORS_ORIGINS=*)', async () => {
    const { appid, token } = await newApp();
    const res = await fetch(`${baseUrl()}/api/v3/${appid}/chat/rooms`, { headers: { origin: OTHER, 'x-api-token': token } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const preflight = await fetch(`${baseUrl()}/api/v3/${appid}/chat/rooms`, { method: 'OPTIONS', headers: { origin: OTHER } });
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  });
});
