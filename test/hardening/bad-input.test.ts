import { beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, newApp, uid, type Client, type TestApp } from '../helpers/api.js';
import { connect } from '../realtime/ws-client.js';

/**
 * Input Postgres cannot store (NUL, lone surrogates), JSON too deep to walk and cursors whose
 * content a query cannot use: every one is the caller's fault, so a 400 naming the field.
 */
let app: TestApp;
let api: Client;
let roomid: string;
beforeAll(async () => {
  app = await newApp();
  api = app.api;
  const room = await api.post('chat/rooms', { name: uid('room') });
  roomid = room.body.data.id;
});

/** A JSON text holding the given raw string value: JSON.stringify escapes a lone surrogate as \udXXX. */
const bodyWith = (fields: Record<string, unknown>) => JSON.stringify(fields);

async function expectRefused(method: string, path: string, body: string | undefined, field: string) {
  const res = await api.send(method, path, body);
  expect(res.status, `${method} ${path} ${body}: ${JSON.stringify(res.body)}`).toBe(400);
  expect(res.body.kind).toBe('api.result');
  expect(Object.keys(res.body.errors), `${method} ${path}: ${JSON.stringify(res.body.errors)}`).toContain(field);
}

describe('strings Postgres cannot hold are refused with 400 naming the field', () => {
  for (const [what, bad] of [
    ['NUL', 'a\u0000b'],
    ['a lone surrogate', 'a\ud800b'],
  ] as const) {
    it(`${what} in body strings, on every kind of route`, async () => {
      const cases: [string, string, Record<string, unknown>, string][] = [
        ['POST', 'chat/rooms', { name: bad }, 'name'],
        ['POST', `chat/rooms/${roomid}`, { description: bad }, 'description'],
        ['POST', `chat/rooms/${roomid}/join`, { userid: uid('u'), displayname: bad }, 'displayname'],
        ['POST', `chat/rooms/${roomid}/command`, { userid: uid('u'), command: bad }, 'command'],
        ['POST', `chat/rooms/${roomid}/command`, { userid: uid('u'), command: 'hi', custompayload: bad }, 'custompayload'],
        ['POST', `user/users/${uid('u')}`, { displayname: bad }, 'displayname'],
        ['POST', `user/users/${uid('u')}`, { customtags: ['ok', bad] }, 'customtags'],
        ['POST', 'poll/poll/create', { title: 'q', choices: [{ title: 'ok' }, { title: bad }] }, 'choices.1.title'],
        ['POST', 'poll/poll/create', { title: bad }, 'title'],
        ['POST', 'comment/conversations', { conversationid: uid('c'), property: 'p', moderation: 'post', title: bad }, 'title'],
        ['POST', 'webhook/hooks', { label: bad, url: 'http://127.0.0.1:9/x', events: ['chatmessage'] }, 'label'],
      ];
      for (const [method, path, body, field] of cases) await expectRefused(method, path, bodyWith(body), field);
    });
  }

  it('in object keys (they would reach a jsonb column)', async () => {
    await expectRefused('POST', 'chat/rooms', '{"name":"x","\\u0000":1}', '\u0000');
  });

  it('NUL in query values', async () => {
    await expectRefused('GET', 'chat/rooms?filterbyname=a%00b', undefined, 'filterbyname');
    await expectRefused('GET', 'poll/poll?limit=a%00b', undefined, 'limit');
    await expectRefused('GET', `chat/rooms/${roomid}/listpreviousevents?limit=5&cursor=%00`, undefined, 'cursor');
  });

  it('a good post right after still works', async () => {
    const userid = uid('u');
    expect((await api.post(`chat/rooms/${roomid}/join`, { userid })).status).toBe(200);
    const res = await api.post(`chat/rooms/${roomid}/command`, { userid, command: 'still fine \u00e9\ud83d\ude00' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.speech.body).toBe('still fine \u00e9\ud83d\ude00');
  });
});

describe('JSON nested deeper than the server walks', () => {
  it('is refused with 400 naming the body, on routes with and without nested fields', async () => {
    for (const depth of [65, 5_000, 10_000]) {
      const deep = `{"name":"x","customtags":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      await expectRefused('POST', 'chat/rooms', deep, 'body');
      const deepKeys = `${'{"A":'.repeat(depth)}1${'}'.repeat(depth)}`;
      await expectRefused('POST', `chat/rooms/${roomid}/command`, deepKeys, 'body');
    }
  });

  it('accepts ordinary nesting', async () => {
    const res = await api.post('chat/rooms', { NAME: uid('room'), CustomTags: ['a', 'b'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.customtags).toEqual(['a', 'b']);
  });
});

describe('cursors', () => {
  const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  it('a well-formed cursor whose content the query cannot use is a 400 naming the cursor', async () => {
    const cases = [
      'user/moderation/queues/reportedusers?cursor=WyJhIiwiYiJd',
      `user/moderation/queues/reportedusers?cursor=${cursor(['2024-01-01T00:00:00.000000Z', 'a\u0000'])}`,
      `chat/rooms?cursor=${cursor('a\u0000b')}`,
      `chat/rooms?cursor=${cursor('a\ud800b')}`,
      `chat/rooms/${roomid}/listeventshistory?cursor=${cursor({ h: 'x\u0000' })}`,
      `chat/rooms/${roomid}/listpreviousevents?cursor=${cursor({ b: 1e300 })}`,
      `chat/rooms/${roomid}/updates?cursor=${cursor({ u: -1 })}`,
    ];
    for (const path of cases) await expectRefused('GET', path, undefined, 'cursor');
  });
});

describe('websocket frames', () => {
  it('a subscribe to a topic holding NUL or a lone surrogate is a client error, not internal', async () => {
    const client = await connect(baseUrl(), app.appid, app.token);
    for (const topic of ['room:a\u0000b', 'room:a\ud800b']) {
      const from = client.frames.length;
      client.send({ type: 'subscribe', topic });
      const answer = await client.next((f) => f['type'] === 'error' || f['type'] === 'subscribed', 5000, from);
      expect(answer['type']).toBe('error');
      expect(['bad_topic', 'bad_frame']).toContain(answer['code']);
      expect(answer['message']).toMatch(/topic/);
    }
    expect(await client.subscribe(`room:${roomid}`)).toMatchObject({ type: 'subscribed' });
    client.close();
  });
});
