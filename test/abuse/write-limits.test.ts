import { describe, expect, it } from 'vitest';
import { join, makeRoom, say } from '../chat/helpers.js';
import { newConversation, postComment } from '../comments/helpers.js';
import { uid, type Client, type Response } from '../helpers/api.js';
import { ownServerForSuite } from '../helpers/own-server.js';
import { expectRateLimited } from '../limits/helpers.js';
import { clientToken, signedIn } from './helpers.js';

const BUDGET = 2;
const RATE = `${BUDGET}/1m`;

/** A plain user (client token + user JWT) repeats a write: the budget passes, the next is 429; another user still writes. */
async function expectBudget(send: (api: Client, userid: string, i: number) => Promise<Response>, as: (userid: string) => Promise<Client>): Promise<void> {
  const userid = uid('u');
  const api = await as(userid);
  for (let i = 0; i < BUDGET; i++) {
    const res = await send(api, userid, i);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  expectRateLimited(await send(api, userid, BUDGET), BUDGET);
  const other = uid('other');
  const res = await send(await as(other), other, 0);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('every write a client token can repeat has a budget', () => {
  const own = ownServerForSuite({
    RATE_LIMIT_ROOMS: RATE,
    RATE_LIMIT_USERS: RATE,
    RATE_LIMIT_JOINS: RATE,
    RATE_LIMIT_TELEMETRY: RATE,
    RATE_LIMIT_POLLS: RATE,
    RATE_LIMIT_NOTIFICATIONS: RATE,
    RATE_LIMIT_MODERATION: RATE,
    RATE_LIMIT_CHAT: RATE,
    RATE_LIMIT_COMMENTS: RATE,
  });
  let token: string | undefined;
  const as = async (userid: string, role = 'user') => {
    token ??= await clientToken(own.app, own.server.url);
    return signedIn(own.app, own.server.url, token, userid, role);
  };
  const asModerator = (userid: string) => as(userid, 'moderator');
  const asAdmin = (userid: string) => as(userid, 'admin');

  it('room and conversation creation (RATE_LIMIT_ROOMS)', async () => {
    await expectBudget(
      (api, userid, i) =>
        i % 2 === 0 ? api.post('chat/rooms', { name: uid('room'), ownerid: userid }) : api.post('comment/conversations', { conversationid: uid('c'), property: 'p', moderation: 'post' }),
      as,
    );
  });

  it('user create and update (RATE_LIMIT_USERS)', async () => {
    await expectBudget((api, userid, i) => api.post(`user/users/${userid}`, { displayname: `Name ${i}` }), as);
  });

  it('join and exit (RATE_LIMIT_JOINS)', async () => {
    const room = await makeRoom(own.app.api);
    await expectBudget((api, userid, i) => (i % 2 === 0 ? api.post(`chat/rooms/${room.id}/join`, { userid, displayname: userid }) : api.post(`chat/rooms/${room.id}/exit`, { userid })), as);
  });

  it('telemetry writes (RATE_LIMIT_TELEMETRY)', async () => {
    await expectBudget(
      (api, userid, i) =>
        i % 2 === 0
          ? api.post(`telemetry/contexts/${uid('ctx')}/batch`, { userid, ops: [{ op: 'heartbeat', key: 'here' }] })
          : api.post(`telemetry/contexts/${uid('ctx')}/presence/here/heartbeat`, { userid }),
      as,
    );
  });

  it('poll writes (RATE_LIMIT_POLLS)', async () => {
    await expectBudget((api, _userid, i) => api.post('poll/poll/create', { title: `Who scores next? ${i}` }), asModerator);
  });

  it('notification writes (RATE_LIMIT_NOTIFICATIONS)', async () => {
    await expectBudget((api, userid) => api.put(`user/users/${userid}/notification/notifications_all/markread`), as);
  });

  it('moderation and administration (RATE_LIMIT_MODERATION)', async () => {
    const room = await makeRoom(own.app.api);
    const fan = uid('fan');
    await join(own.app.api, room.id, fan);
    // Counted against the admin acting, not the user acted on.
    await expectBudget((api, _userid, i) => api.post(`chat/rooms/${room.id}/bounce`, { userid: fan, bounce: i % 2 === 0 }), asAdmin);
  });

  it('chat edits and deletions draw on the chat budget, comment edits on the comments budget', async () => {
    const room = await makeRoom(own.app.api);
    const author = uid('author');
    await join(own.app.api, room.id, author);
    const api = await as(author);
    const said = await say(api, room.id, author, 'first');
    expect((await api.put(`chat/rooms/${room.id}/events/${said.speech.id}`, { userid: author, body: 'edited' })).status).toBe(200);
    expectRateLimited(await api.delete(`chat/rooms/${room.id}/events/${said.speech.id}?userid=${author}`), BUDGET);

    const conversation = await newConversation(own.app.api);
    const writer = uid('writer');
    const asWriter = await as(writer);
    const comment = await postComment(asWriter, conversation.conversationid, { userid: writer });
    expect((await asWriter.put(`comment/conversations/${conversation.conversationid}/comments/${comment.id}`, { userid: writer, body: 'edited' })).status).toBe(200);
    expectRateLimited(await asWriter.put(`comment/conversations/${conversation.conversationid}/comments/${comment.id}`, { userid: writer, body: 'again' }), BUDGET);
  });
});

describe('RATE_LIMITS=off', () => {
  const own = ownServerForSuite({ RATE_LIMITS: 'off', RATE_LIMIT_ROOMS: '1/1m', RATE_LIMIT_USERS: '1/1m' });

  it('turns the new budgets off too', async () => {
    const token = await clientToken(own.app, own.server.url);
    const userid = uid('u');
    const api = await signedIn(own.app, own.server.url, token, userid);
    for (let i = 0; i < 5; i++) {
      expect((await api.post('chat/rooms', { name: uid('room'), ownerid: userid })).status).toBe(200);
      expect((await api.post(`user/users/${userid}`, { displayname: `Name ${i}` })).status).toBe(200);
    }
  });
});
