import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { Client, newApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { freePort } from '../helpers/free-port.js';
import { roomWithUser } from './chat.js';
import { eventually, startReceiver, verifySignature, type Receiver } from './receiver.js';
import { freshDataDir } from '../helpers/data-template.js';

const dataDir = freshDataDir();
let servers: SpawnedServer[] = [];
let receiver: Receiver | undefined;
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('keeps a pending delivery across a restart and delivers it once the receiver is up', async () => {
  const receiverPort = await freePort();
  const first = await spawnServer({ DATA_DIR: dataDir });
  servers.push(first);
  const { api, appid, token, webhooksecret } = await newApp({}, first.url);
  const created = await api.post('webhook/hooks', { label: 'down', url: `http://127.0.0.1:${receiverPort}/hook`, enabled: true, type: 'postpublish', events: ['chatspeech'] });
  const hookId = created.body.data.id as string;
  const { roomid, say } = await roomWithUser(api);
  expect((await say('survive the restart')).status).toBe(200);
  // The receiver is down: the first attempt fails (connection refused) and is logged.
  const log = await eventually(
    () => api.get(`webhook/hooks/${hookId}/logentries`),
    (r) => r.body.data.itemcount >= 1,
  );
  expect(log.body.data.logentries[0]).toMatchObject({ statuscode: 0, completed: false });
  await first.stop();
  servers = [];

  receiver = await startReceiver(() => 200, receiverPort);
  const second = await spawnServer({ DATA_DIR: dataDir });
  servers.push(second);
  const [got] = await receiver.waitFor(1, 20_000);
  expect(got?.body).toMatchObject({ type: 'chatspeech', containerid: roomid, data: { body: 'survive the restart' } });
  expect(verifySignature(webhooksecret, got as NonNullable<typeof got>)).toBe(true);
  const again = new Client(second.url, appid, token);
  const after = await eventually(
    () => again.get(`webhook/hooks/${hookId}/logentries`),
    (r) => r.body.data.logentries.some((e: { completed: boolean }) => e.completed),
  );
  expect(after.body.data.logentries[0]).toMatchObject({ statuscode: 200, completed: true });
});
