import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type TestApp } from '../helpers/api.js';

let t: TestApp;
let roomid: string;
beforeAll(async () => {
  t = await newApp();
  roomid = (await t.api.post('chat/rooms', { name: uid('room') })).body.data.id;
  await t.api.post(`chat/rooms/${roomid}/join`, { userid: 'eq1', handle: 'eq1' });
  await t.api.post(`chat/rooms/${roomid}/command`, { userid: 'eq1', command: 'hello' });
});

describe('query values given empty', () => {
  it('are the same as absent, on every kind of endpoint (api-surface.md, settled from the SDKs)', async () => {
    const pairs: [string, string][] = [
      ['chat/rooms', 'chat/rooms?cursor=&limit=&filterByName='],
      [`chat/rooms/${roomid}/updates`, `chat/rooms/${roomid}/updates?cursor=&limit=`],
      [`chat/rooms/${roomid}/listpreviousevents`, `chat/rooms/${roomid}/listpreviousevents?cursor=&limit=`],
      [`chat/rooms/${roomid}/participants`, `chat/rooms/${roomid}/participants?cursor=&limit=`],
      ['chat/moderation/queues/events', 'chat/moderation/queues/events?roomId=&cursor=&limit='],
      ['user/users/', 'user/users/?cursor=&limit='],
      ['user/users/eq1/notification/listnotifications', 'user/users/eq1/notification/listnotifications?filterNotificationTypes=&limit=&includeread=&cursor='],
      ['poll/poll', 'poll/poll?IncludeUnpublished=&cursor=&limit='],
      ['webhook/hooks', 'webhook/hooks?cursor=&limit='],
    ];
    for (const [absent, empty] of pairs) {
      const plain = await t.api.get(absent);
      const given = await t.api.get(empty);
      expect(given.status, empty).toBe(200);
      expect(given.body.data, empty).toEqual(plain.body.data);
    }
    expect((await t.api.get(`chat/rooms/${roomid}/updates?cursor=`)).body.data.events.map((e: { body: string }) => e.body)).toEqual(['hello']);
  });
});
