import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, request, uid, type TestApp } from '../helpers/api.js';
import { makeRoom } from '../chat/helpers.js';
import { newConversation } from '../comments/helpers.js';
import { expectEnvelope } from './util.js';

let app: TestApp;
let roomid: string;
let pollid: string;
let conversationid: string;
beforeAll(async () => {
  app = await newApp();
  roomid = (await makeRoom(app.api)).id;
  const poll = await app.api.post('poll/poll/create', { title: 'Q' });
  expect(poll.status).toBe(200);
  pollid = poll.body.data.id;
  conversationid = (await newConversation(app.api)).conversationid;
});

const hook = { label: 'main', url: 'http://127.0.0.1:9/hook', enabled: true, type: 'postpublish', events: ['chatspeech'] };

describe('a path parameter holding NUL (%00) gets 400 naming it, never a 500', () => {
  it('in every area', async () => {
    const userid = uid('u');
    // [method, path with {p} where the bad parameter goes, body, the parameter's name]
    const cases: [string, string, unknown, string][] = [
      ['POST', 'user/users/{p}', { displayname: 'Nul' }, 'userid'],
      ['GET', 'user/users/{p}', undefined, 'userid'],
      ['DELETE', 'user/users/{p}', undefined, 'userid'],
      ['GET', 'user/users/{p}/notification/listnotifications', undefined, 'userid'],
      ['GET', 'chat/rooms/{p}', undefined, 'roomid'],
      ['GET', 'chat/roomsbycustomid/{p}', undefined, 'customid'],
      ['POST', 'chat/rooms/{p}/join', { userid, displayname: 'Nul' }, 'roomid'],
      ['POST', 'chat/rooms/{p}/command', { userid, command: 'hello' }, 'roomid'],
      ['GET', `chat/rooms/${roomid}/events/{p}`, undefined, 'eventid'],
      ['GET', `chat/rooms/${roomid}/messagesbyuser/{p}`, undefined, 'userid'],
      ['GET', 'poll/poll/{p}', undefined, 'pollid'],
      ['POST', 'poll/poll/{p}/response', { userid, choiceid: 'c' }, 'pollid'],
      ['DELETE', `poll/poll/${pollid}/choice/{p}`, undefined, 'choiceid'],
      ['PUT', 'webhook/hooks/{p}', hook, 'webhookid'],
      ['DELETE', 'webhook/hooks/{p}', undefined, 'webhookid'],
      ['GET', 'webhook/hooks/{p}/logentries', undefined, 'webhookid'],
      ['GET', 'comment/conversations/{p}', undefined, 'conversationid'],
      ['POST', 'comment/conversations/{p}/comments', { userid, displayname: 'Nul', body: 'hi' }, 'conversationid'],
      ['GET', `comment/conversations/${conversationid}/comments/{p}`, undefined, 'commentid'],
      ['GET', 'telemetry/contexts/{p}', undefined, 'contextid'],
    ];
    for (const [method, path, body, param] of cases) {
      // %00 as sent, and a raw NUL (which fetch percent-encodes).
      for (const bad of ['x%00y', 'x\u0000y']) {
        const res = await app.api.send(method, path.replace('{p}', bad), body);
        const what = `${method} ${path} ${JSON.stringify(bad)}`;
        expect(res.status, what).toBe(400);
        expectEnvelope(res, 400);
        expect(res.body.errors, what).toEqual({ [param]: 'must not contain NUL characters' });
        expect(res.body.message, what).toContain(param);
      }
      // The same request without the NUL is not refused as bad input: the 400 came from the NUL.
      const fine = await app.api.send(method, path.replace('{p}', uid('ok')), body);
      expect(fine.status, `${method} ${path} without NUL`).not.toBe(400);
      expect(fine.status, `${method} ${path} without NUL`).toBeLessThan(500);
    }
  });

  it('names every bad parameter of the path', async () => {
    const res = await app.api.get('chat/rooms/a%00/events/b%00');
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['eventid', 'roomid']);
  });

  it('refuses it before anything else, even from a caller without a token: a bad id never reaches a store, the app directory included', async () => {
    const res = await request('GET', app.api.url('user/users/x%00y'));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual({ userid: 'must not contain NUL characters' });
    expect((await request('GET', app.api.url('user/users/xy'))).status).toBe(403);
  });
});
