import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp } from '../helpers/api.js';
import { BUILT, spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { roomWithUser } from '../webhooks/chat.js';
import { startReceiver, verifySignature, type Receiver } from '../webhooks/receiver.js';

describe('the built server (dist/, what `npm start` and the Docker image run)', () => {
  let server: SpawnedServer;
  let receiver: Receiver;

  beforeAll(async () => {
    // What `npm start` does first: build when the sources are newer than dist/.
    execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: new URL('../..', import.meta.url).pathname, stdio: 'pipe' });
    server = await spawnServer({}, BUILT);
    receiver = await startReceiver(() => 200);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it('serves the API without TypeScript tooling', async () => {
    expect(server.process.spawnargs).not.toContain('tsx');
    const { api } = await newApp({}, server.url);
    expect((await api.post('user/users/u1', { displayname: 'Built' })).status).toBe(200);
    const read = await api.get('user/users/u1');
    expect(read.body.data).toMatchObject({ userid: 'u1', displayname: 'Built' });
  });

  // On Postgres (DATABASE_URL set) postpublish deliveries go through the worker thread, which
  // then loads its compiled entry module.
  it('delivers postpublish webhooks', async () => {
    const { api, webhooksecret } = await newApp({}, server.url);
    const hook = await api.post('webhook/hooks', { enabled: true, type: 'postpublish', events: ['chatspeech'], label: 'built', url: receiver.url });
    expect(hook.status).toBe(200);
    const { roomid, say } = await roomWithUser(api);
    expect((await say('from the build')).status).toBe(200);
    const [got] = await receiver.waitFor(1);
    expect(got?.body).toMatchObject({ type: 'chatspeech', containerid: roomid, data: { body: 'from the build' } });
    expect(verifySignature(webhooksecret, got as NonNullable<typeof got>)).toBe(true);
  });
});
