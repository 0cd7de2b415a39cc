import { beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, newApp, uid, type Client, type Response } from '../helpers/api.js';
import { connect } from '../realtime/ws-client.js';
import { allPages, inBatches, newConversation, postComment } from './helpers.js';

/**
 * A crowd on one comment or conversation: votes and reactions arriving together are written in
 * batches, yet every count stays exact, every answer and push stays small (the latest 10 users
 * per type, REACTION_USERS_SHOWN's default), and each fan still sees their own reaction.
 */
const SHOWN = 10;
const MAX_BYTES = 4096;

let api: Client;
let appid: string;
let token: string;
beforeAll(async () => {
  ({ api, appid, token } = await newApp());
});

async function fans(n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => uid('fan'));
  await inBatches(n, 50, async (i) => expect((await api.post(`user/users/${ids[i]}`, { displayname: `Fan ${ids[i]}`, handle: ids[i] })).status).toBe(200));
  return ids;
}

const bytes = (x: unknown) => Buffer.byteLength(JSON.stringify(x));
const listed = (tally: { users: { userid: string }[] } | undefined) => (tally?.users ?? []).map((u) => u.userid);
const typed = (tallies: { type: string }[], type: string) => tallies.find((t) => t.type === type) as { type: string; count: number; users: { userid: string }[] } | undefined;

/** Every answer 200, under 4 KB, with at most SHOWN users per type beside the asker's own. */
function expectSmallAnswers(answers: Response[], field: 'votes' | 'reactions'): void {
  for (const res of answers) {
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(bytes(res.body)).toBeLessThan(MAX_BYTES);
    for (const t of res.body.data[field]) expect(t.users.length).toBeLessThanOrEqual(SHOWN + 1);
  }
}

describe('a crowd on one comment', () => {
  it('200 concurrent up-votes: exact counts, small answers and pushes, each fan sees their own vote', async () => {
    const c = await newConversation(api);
    const comment = await postComment(api, c.conversationid);
    const crowd = await fans(200);
    const client = await connect(baseUrl(), appid, token);
    await client.subscribe(`conversation:${c.conversationid}`);
    const path = `comment/conversations/${c.conversationid}/comments/${comment.id}/vote`;
    // Read while the crowd votes: every read consistent (the count of the up entry is votecount) and never going back.
    let voting = true;
    const reads: { votecount: number; up: number }[] = [];
    const reader = (async () => {
      while (voting) {
        const d = (await api.get(`comment/conversations/${c.conversationid}/comments/${comment.id}`)).body.data;
        reads.push({ votecount: d.votecount, up: typed(d.votes, 'up')?.count ?? 0 });
      }
    })();
    const answers = await Promise.all(crowd.map((userid) => api.post(path, { userid, vote: 'up' })));
    voting = false;
    await reader;
    for (const r of reads) expect(r.up).toBe(r.votecount);
    for (let i = 1; i < reads.length; i++) expect((reads[i] as { votecount: number }).votecount).toBeGreaterThanOrEqual((reads[i - 1] as { votecount: number }).votecount);
    expectSmallAnswers(answers, 'votes');
    answers.forEach((res, i) => {
      const up = typed(res.body.data.votes, 'up');
      expect(up?.count).toBe(res.body.data.votecount);
      expect(listed(up)).toContain(crowd[i]);
    });
    expect(Math.max(...answers.map((r) => r.body.data.votecount))).toBe(200);

    const got = (await api.get(`comment/conversations/${c.conversationid}/comments/${comment.id}`)).body.data;
    expect(got).toMatchObject({ votecount: 200, votescore: 200 });
    expect(got.votes).toHaveLength(1);
    expect(got.votes[0].count).toBe(200);
    expect(got.votes[0].users).toHaveLength(SHOWN);
    expect(got.votes[0].users[0]).toEqual({ userid: expect.any(String), handle: expect.any(String), displayname: expect.stringMatching(/^Fan /) });

    const pushed = await client.collect((f) => f.type === 'event' && f.event === 'comment.voted', 1);
    await client.settle();
    const frames = client.frames.filter((f) => f.type === 'event' && f.event === 'comment.voted');
    expect(frames.length).toBeGreaterThanOrEqual(pushed.length);
    for (const frame of frames) expect(bytes(frame)).toBeLessThan(MAX_BYTES);
    // The last push carries the comment as it stands.
    expect(frames.at(-1)?.data.votecount).toBe(200);
    client.close();
  });

  it('vote changes and repeats in a crowd behave as one after another: exact votecount and votescore', async () => {
    const c = await newConversation(api);
    const comment = await postComment(api, c.conversationid);
    const crowd = await fans(120);
    const path = `comment/conversations/${c.conversationid}/comments/${comment.id}/vote`;
    await Promise.all(crowd.map((userid) => api.post(path, { userid, vote: 'up' })));
    // A third switch to down, a third repeat up, a third take their vote back.
    const answers = await Promise.all(crowd.map((userid, i) => api.post(path, { userid, vote: ['down', 'up', 'none'][i % 3] })));
    expectSmallAnswers(answers, 'votes');
    answers.forEach((res, i) => {
      const mine = ['down', 'up', undefined][i % 3];
      for (const type of ['up', 'down']) expect(listed(typed(res.body.data.votes, type)).includes(crowd[i] as string)).toBe(type === mine);
    });
    const got = (await api.get(`comment/conversations/${c.conversationid}/comments/${comment.id}`)).body.data;
    expect(got).toMatchObject({ votecount: 80, votescore: 0 });
    expect(got.votes.map((t: { type: string; count: number }) => [t.type, t.count]).sort()).toEqual([
      ['down', 40],
      ['up', 40],
    ]);
    // The latest up-voters are those who kept up (the first pass), the latest down-voters those who switched.
    const kept = new Set(crowd.filter((_, i) => i % 3 === 1));
    const switched = new Set(crowd.filter((_, i) => i % 3 === 0));
    expect(listed(typed(got.votes, 'up')).every((u) => kept.has(u))).toBe(true);
    expect(listed(typed(got.votes, 'down')).every((u) => switched.has(u))).toBe(true);
    expect(typed(got.votes, 'up')?.users).toHaveLength(SHOWN);
    expect(typed(got.votes, 'down')?.users).toHaveLength(SHOWN);
    const down = await allPages(api, `comment/conversations/${c.conversationid}/comments/${comment.id}/votes`, 'vote=down&limit=15', 'users');
    expect(new Set(down.map((u) => u.userid))).toEqual(switched);
    expect(down).toHaveLength(40);
  });

  it('300 concurrent likes, then half taken back: exact likecount, the latest likers listed, answers under 4 KB', async () => {
    const c = await newConversation(api);
    const comment = await postComment(api, c.conversationid);
    const crowd = await fans(300);
    const path = `comment/conversations/${c.conversationid}/comments/${comment.id}/react`;
    const liked = await Promise.all(crowd.map((userid) => api.post(path, { userid, reaction: 'like', reacted: true })));
    expectSmallAnswers(liked, 'reactions');
    liked.forEach((res, i) => expect(listed(typed(res.body.data.reactions, 'like'))).toContain(crowd[i]));
    const one = () => api.get(`comment/conversations/${c.conversationid}/comments/${comment.id}`);
    expect((await one()).body.data.likecount).toBe(300);

    const leaving = crowd.filter((_, i) => i % 2 === 0);
    const left = await Promise.all(leaving.map((userid) => api.post(path, { userid, reaction: 'like', reacted: false })));
    expectSmallAnswers(left, 'reactions');
    left.forEach((res, i) => expect(listed(typed(res.body.data.reactions, 'like'))).not.toContain(leaving[i]));
    const got = (await one()).body.data;
    expect(got.likecount).toBe(150);
    const like = typed(got.reactions, 'like');
    expect(like?.count).toBe(150);
    expect(like?.users).toHaveLength(SHOWN);
    const staying = new Set(crowd.filter((_, i) => i % 2 === 1));
    expect(listed(like).every((u) => staying.has(u))).toBe(true);
    expect(new Set(listed(like)).size).toBe(SHOWN);
    expect(bytes(got)).toBeLessThan(MAX_BYTES);

    // A page lists the same bounded comment.
    const page = await api.get(`comment/conversations/${c.conversationid}/comments`);
    expect(page.body.data.comments[0].reactions).toEqual(got.reactions);

    // The full list is read in pages, newest first: the 150 who stayed, each once, the listed ones first.
    const everyone = await allPages(api, `comment/conversations/${c.conversationid}/comments/${comment.id}/reactions`, 'reaction=like&limit=40', 'users');
    expect(everyone).toHaveLength(150);
    expect(new Set(everyone.map((u) => u.userid))).toEqual(staying);
    expect(everyone.slice(0, SHOWN).map((u) => u.userid)).toEqual(listed(like).reverse());
    expect(everyone[0]).toEqual({ userid: expect.any(String), handle: expect.any(String), displayname: expect.stringMatching(/^Fan /), type: 'like', added: expect.any(String) });
    expect((await api.get(`comment/conversations/${c.conversationid}/comments/${comment.id}/reactions?reaction=hug`)).body.errors.reaction).toBeDefined();
    expect((await api.get(`comment/conversations/${c.conversationid}/comments/${comment.id}/reactions?cursor=garbage`)).status).toBe(400);
    expect((await api.get(`comment/conversations/${c.conversationid}/comments/${uid('x')}/reactions`)).status).toBe(404);
  });

  it('a fan whose like is older than the latest ones still sees it in their answer', async () => {
    const c = await newConversation(api);
    const comment = await postComment(api, c.conversationid);
    const [early, ...late] = await fans(SHOWN + 5);
    const path = `comment/conversations/${c.conversationid}/comments/${comment.id}/react`;
    await api.post(path, { userid: early, reaction: 'like', reacted: true });
    for (const userid of late) await api.post(path, { userid, reaction: 'like', reacted: true });
    const again = await api.post(path, { userid: early, reaction: 'emoji:🔥', reacted: true });
    const like = typed(again.body.data.reactions, 'like');
    expect(like?.count).toBe(SHOWN + 5);
    expect(listed(like)[0]).toBe(early);
    expect(listed(like)).toHaveLength(SHOWN + 1);
    expect(listed(like).slice(1)).toEqual(late.slice(-SHOWN));
    // Others do not see it among the latest.
    expect(listed(typed((await api.get(`comment/conversations/${c.conversationid}/comments/${comment.id}`)).body.data.reactions, 'like'))).not.toContain(early);
  });
});

describe('a crowd on one conversation', () => {
  it('200 concurrent likes of the conversation: exact likecount, the latest 10 listed, each fan sees their own', async () => {
    const c = await newConversation(api);
    const crowd = await fans(200);
    const path = `comment/conversations/${c.conversationid}/react`;
    const answers = await Promise.all(crowd.map((userid) => api.post(path, { userid, reaction: 'like', reacted: true })));
    answers.forEach((res, i) => {
      expect(res.status).toBe(200);
      expect(bytes(res.body)).toBeLessThan(MAX_BYTES);
      expect(res.body.data.reactions[0].users).toContain(crowd[i]);
      expect(res.body.data.reactions[0].users.length).toBeLessThanOrEqual(SHOWN + 1);
    });
    const got = (await api.get(`comment/conversations/${c.conversationid}`)).body.data;
    expect(got.likecount).toBe(200);
    expect(got.reactions).toEqual([{ type: 'like', count: 200, users: expect.any(Array) }]);
    expect(got.reactions[0].users).toHaveLength(SHOWN);
    const repeat = await api.post(path, { userid: crowd[0], reaction: 'like', reacted: true });
    expect(repeat.body.data.likecount).toBe(200);
    const everyone = await allPages(api, `comment/conversations/${c.conversationid}/reactions`, 'limit=200', 'users');
    expect(new Set(everyone.map((u) => u.userid))).toEqual(new Set(crowd));
  });
});
