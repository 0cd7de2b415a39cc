import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, newApp, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { roomWithUser } from '../webhooks/chat.js';
import { eventually } from '../webhooks/receiver.js';
import { freshDataDir } from '../helpers/data-template.js';

const hook = (url: string, label: string) => ({ label, url, enabled: true, type: 'postpublish', events: ['chatspeech'] });

/** IPv6 spellings of loopback, private, link-local and unique-local receivers, with what each one is. */
const PRIVATE_V6: [string, string][] = [
  ['http://[::127.0.0.1]:9/hook', 'IPv4-compatible loopback'],
  ['http://[::7f00:1]:9/hook', 'IPv4-compatible loopback, hex'],
  ['http://[::ffff:10.1.2.3]/hook', 'IPv4-mapped private'],
  ['http://[::ffff:0:7f00:1]/hook', 'IPv4-translated loopback'],
  ['http://[2002:7f00:1::]/hook', '6to4 of 127.0.0.1'],
  ['http://[2002:c0a8:0001::1]/hook', '6to4 of 192.168.0.1'],
  ['http://[64:ff9b::7f00:1]/hook', 'NAT64 of 127.0.0.1'],
  ['http://[64:ff9b::a9fe:a9fe]/latest', 'NAT64 of 169.254.169.254'],
  ['http://[64:ff9b:1::a00:1]/hook', 'NAT64 local-use prefix'],
  ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook', 'Teredo of 127.0.0.1'],
  ['http://[fd12:3456::1]/hook', 'unique-local'],
  ['http://[fe80::1]/hook', 'link-local'],
  ['http://[::]/hook', 'unspecified'],
];

/**
 * WEBHOOK_DENY_PRIVATE=true: every IPv6 form of a private address is refused like its IPv4
 * form, when the hook is saved and when a delivery connects. The delivery side uses hooks
 * saved by the same database's previous server without the option.
 */
describe('webhook receivers on IPv6 forms of private addresses', () => {
  const dataDir = freshDataDir();
  let server: SpawnedServer | undefined;
  let app: TestApp;
  const saved: string[] = [];

  beforeAll(async () => {
    const before = await spawnServer({ DATA_DIR: dataDir });
    try {
      app = await newApp({}, before.url);
      for (const [url, what] of PRIVATE_V6.slice(0, 4)) {
        const res = await app.api.post('webhook/hooks', hook(url, what));
        expect(res.status, what).toBe(200);
        saved.push(res.body.data.id as string);
      }
    } finally {
      await before.stop();
    }
    server = await spawnServer({ DATA_DIR: dataDir, WEBHOOK_DENY_PRIVATE: 'true' });
    app = { ...app, api: new Client(server.url, app.appid, app.token) };
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses each when saved (create and update), with 400 naming url', async () => {
    for (const [url, what] of PRIVATE_V6) {
      const res = await app.api.post('webhook/hooks', hook(url, 'new'));
      expect(res.status, what).toBe(400);
      expect(Object.keys(res.body.errors), what).toEqual(['url']);
    }
    const updated = await app.api.put(`webhook/hooks/${saved[0]}`, hook('http://[2002:a00:1::]/hook', PRIVATE_V6[0]?.[1] as string));
    expect(updated.status).toBe(400);
    expect(Object.keys(updated.body.errors)).toEqual(['url']);
    // Public addresses in the same forms are accepted (saving connects to nothing).
    for (const url of ['http://[2606:4700::1111]/hook', 'http://[2002:5db8:d822::]/hook', 'http://[64:ff9b::5db8:d822]/hook']) {
      expect((await app.api.post('webhook/hooks', { ...hook(url, url), enabled: false })).status, url).toBe(200);
    }
  });

  it('refuses to deliver to each when connecting, and logs why', async () => {
    const { say } = await roomWithUser(app.api);
    expect((await say('not for a private receiver')).status).toBe(200);
    for (const id of saved) {
      const log = await eventually(
        () => app.api.get(`webhook/hooks/${id}/logentries`).then((r) => r.body.data.logentries as { statuscode: number; error: string }[]),
        (entries) => entries.length > 0,
      );
      expect(log[0]?.statuscode).toBe(0);
      expect(log[0]?.error, id).toMatch(/private/);
    }
  });
});
