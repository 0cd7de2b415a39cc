import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type Client, type Response } from '../helpers/api.js';
import { drain, join, makeRoom } from '../chat/helpers.js';
import { allPages, newConversation } from '../comments/helpers.js';

/**
 * Writes that arrive together are committed together (group commit). One bad request among
 * them must get its own 400 and must not take its neighbours down: every good one is answered
 * 200 and stored exactly once.
 */
const ROUNDS = 10;
const GOOD = 20;
const BAD_TEXTS = ['nul \u0000 inside', 'lone \ud800 surrogate'];

let api: Client;
beforeAll(async () => {
  ({ api } = await newApp());
});

/** Sends the good requests and one bad one at once; checks every answer. */
async function round(good: (i: number) => Promise<Response>, bad: () => Promise<Response>, badField: string): Promise<void> {
  const answers = await Promise.all([...Array.from({ length: GOOD }, (_, i) => good(i)), bad()]);
  const badAnswer = answers.pop() as Response;
  for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
  expect(badAnswer.status, JSON.stringify(badAnswer.body)).toBe(400);
  expect(Object.keys(badAnswer.body.errors)).toContain(badField);
}

describe('one bad write among concurrent good ones', () => {
  it('chat: every good message is answered 200 and stored exactly once', async () => {
    const room = await makeRoom(api);
    const users = Array.from({ length: GOOD + 1 }, () => uid('u'));
    for (const u of users) await join(api, room.id, u);
    const start = await api.get(`chat/rooms/${room.id}/updates`);
    const sent: string[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const bodies = Array.from({ length: GOOD }, (_, i) => `round ${r} message ${i}`);
      sent.push(...bodies);
      await round(
        (i) => api.post(`chat/rooms/${room.id}/command`, { userid: users[i], command: bodies[i] }),
        () => api.post(`chat/rooms/${room.id}/command`, { userid: users[GOOD], command: BAD_TEXTS[r % 2] }),
        'command',
      );
    }
    const { events } = await drain(api, room.id, start.body.data.cursor);
    const stored = events.filter((e: { eventtype: string }) => e.eventtype === 'speech').map((e: { body: string }) => e.body);
    expect(stored.sort()).toEqual(sent.sort());
  });

  it('comments: every good comment is answered 200 and stored exactly once', async () => {
    const conv = await newConversation(api);
    const sent: string[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const bodies = Array.from({ length: GOOD }, (_, i) => `round ${r} comment ${i}`);
      sent.push(...bodies);
      await round(
        (i) => api.post(`comment/conversations/${conv.conversationid}/comments`, { userid: `c${i}`, displayname: 'C', body: bodies[i] }),
        () => api.post(`comment/conversations/${conv.conversationid}/comments`, { userid: 'bad', displayname: 'B', body: 'x', customfield1: BAD_TEXTS[r % 2] }),
        'customfield1',
      );
    }
    const stored = await allPages(api, `comment/conversations/${conv.conversationid}/comments`, 'limit=100&sort=oldest');
    expect(stored.map((c: { body: string }) => c.body).sort()).toEqual(sent.sort());
  });

  it('votes: every good vote is answered 200 and counted exactly once', async () => {
    const created = await api.post('poll/poll/create', { title: 'q', allowmultiplechoicesperuser: true, maxtotalresponsesperuser: ROUNDS });
    const pollid = created.body.data.id as string;
    const added = await api.post(`poll/poll/${pollid}/choice`, { choices: [{ title: 'a' }] });
    const choiceid = added.body.data[0].id as string;
    for (let r = 0; r < ROUNDS; r++) {
      await round(
        (i) => api.post(`poll/poll/${pollid}/response`, { userid: `v${r}-${i}`, choiceid }),
        () => api.post(`poll/poll/${pollid}/response`, { userid: 'bad', choiceid: `${choiceid}${BAD_TEXTS[r % 2]}` }),
        'choiceid',
      );
    }
    const poll = await api.get(`poll/poll/${pollid}`);
    expect(poll.body.data.totalresponses).toBe(ROUNDS * GOOD);
  });
});
