import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, newApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { allPages, inBatches, newConversation, postComment } from './helpers.js';
import { freshDataDir } from '../helpers/data-template.js';

/**
 * A crowd up-voting and liking one comment when the server is killed with SIGKILL; restarted on
 * the same data (DATA_DIR, or DATABASE_URL), every acknowledged vote and like is counted exactly
 * once, the counts match the rows behind them, and the comment's author holds one notification
 * per stored like.
 */
const FANS = 600;
const WORKERS = 24;
const KILL_AFTER_ACKS = 150;

let server: SpawnedServer | undefined;
const dataDir = freshDataDir();
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Sent {
  tried: Set<string>;
  acked: Set<string>;
}

describe('kill -9 in the middle of a crowd on one comment', () => {
  it('counts every acknowledged vote and like exactly once after the restart', async () => {
    server = await spawnServer({ DATA_DIR: dataDir });
    const { api: first, appid, token } = await newApp({}, server.url);
    const c = await newConversation(first);
    const comment = await postComment(first, c.conversationid);
    const fans = Array.from({ length: FANS }, (_, i) => `k9fan${i}`);
    await inBatches(FANS, 50, (i) => first.post(`user/users/${fans[i]}`, { displayname: `Fan ${i}` }));
    const path = `comment/conversations/${c.conversationid}/comments/${comment.id}`;

    const votes: Sent = { tried: new Set(), acked: new Set() };
    const likes: Sent = { tried: new Set(), acked: new Set() };
    let next = 0;
    let gone = false;
    const send = async (sent: Sent, userid: string, suffix: string, body: object) => {
      sent.tried.add(userid);
      try {
        if ((await first.post(`${path}/${suffix}`, { userid, ...body })).status === 200) sent.acked.add(userid);
      } catch {
        gone = true;
      }
    };
    const worker = async () => {
      while (!gone && next < FANS) {
        const userid = fans[next++] as string;
        await send(votes, userid, 'vote', { vote: 'up' });
        if (!gone) await send(likes, userid, 'react', { reaction: 'like', reacted: true });
      }
    };
    const running = Promise.all(Array.from({ length: WORKERS }, worker));
    while (votes.acked.size < KILL_AFTER_ACKS) await new Promise((r) => setTimeout(r, 10));
    await server.kill();
    await running;
    expect(votes.acked.size).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);
    expect(votes.tried.size).toBeLessThan(FANS);

    server = await spawnServer({ DATA_DIR: dataDir });
    const api = new Client(server.url, appid, token);
    const read = async () => (await api.get(path)).body.data;
    const after = await read();
    expect(after.votecount).toBeGreaterThanOrEqual(votes.acked.size);
    expect(after.votecount).toBeLessThanOrEqual(votes.tried.size);
    expect(after.likecount).toBeGreaterThanOrEqual(likes.acked.size);
    expect(after.likecount).toBeLessThanOrEqual(likes.tried.size);
    // A like's notification commits with it: the comment's author holds exactly one for each stored like.
    const notifiedFans = async () =>
      (await allPages(api, `user/users/${comment.userid}/notification/listnotifications`, 'includeread=true&limit=200', 'notifications'))
        .filter((n) => n.eventtype === 'commentreaction')
        .map((n) => n.fromuserid as string);
    const notified = await notifiedFans();
    expect(new Set(notified).size).toBe(notified.length);
    expect(notified.length).toBe(after.likecount);
    for (const fan of likes.acked) expect(notified).toContain(fan);

    // Repeating an acknowledged vote or like changes nothing: none was lost.
    await Promise.all([...votes.acked].map((userid) => api.post(`${path}/vote`, { userid, vote: 'up' })));
    await Promise.all([...likes.acked].map((userid) => api.post(`${path}/react`, { userid, reaction: 'like', reacted: true })));
    expect(await read()).toMatchObject({ votecount: after.votecount, votescore: after.votecount, likecount: after.likecount });
    expect((await notifiedFans()).length).toBe(after.likecount);

    // Once every fan who tried has voted and liked, the counts are exactly theirs: no row counted twice or missed.
    await Promise.all([...votes.tried].map((userid) => api.post(`${path}/vote`, { userid, vote: 'up' })));
    await Promise.all([...likes.tried].map((userid) => api.post(`${path}/react`, { userid, reaction: 'like', reacted: true })));
    const settled = await read();
    expect(settled).toMatchObject({ votecount: votes.tried.size, votescore: votes.tried.size, likecount: likes.tried.size });
    expect(settled.votes[0].count).toBe(votes.tried.size);
    expect(settled.reactions[0].count).toBe(likes.tried.size);
  }, 240_000);
});
