import { afterAll, describe, expect, it } from 'vitest';
import { newApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { newConversation, postComment } from './helpers.js';

/** REACTION_USERS_SHOWN sets how many users a reaction or vote lists; counts stay exact. */
let server: SpawnedServer | undefined;
afterAll(async () => {
  await server?.stop();
});

describe('REACTION_USERS_SHOWN', () => {
  it('lists the latest 3 likers when set to 3, and refuses 0 at start naming the setting', async () => {
    server = await spawnServer({ REACTION_USERS_SHOWN: '3' });
    const { api } = await newApp({}, server.url);
    const c = await newConversation(api);
    const comment = await postComment(api, c.conversationid);
    const fans = Array.from({ length: 8 }, (_, i) => `shown${i}`);
    for (const userid of fans) await api.post(`user/users/${userid}`, { displayname: userid });
    for (const userid of fans) await api.post(`comment/conversations/${c.conversationid}/comments/${comment.id}/react`, { userid, reaction: 'like', reacted: true });
    const got = (await api.get(`comment/conversations/${c.conversationid}/comments/${comment.id}`)).body.data;
    expect(got.reactions).toEqual([{ type: 'like', count: 8, users: fans.slice(-3).map((userid) => ({ userid, handle: expect.any(String), displayname: userid })) }]);

    await expect(spawnServer({ REACTION_USERS_SHOWN: '0' })).rejects.toThrow(/REACTION_USERS_SHOWN/);
  });
});
