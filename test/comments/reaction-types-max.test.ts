import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, type Client } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { newConversation, postComment } from './helpers.js';

/**
 * Reaction types are free text, so REACTION_TYPES_MAX bounds how many distinct ones a comment or
 * conversation lists: past it a new type is refused with 400 naming `reaction`, while the types
 * already listed (even emptied to 0) stay open to everyone.
 */
const MAX = 3;
let server: SpawnedServer | undefined;
let api: Client;
beforeAll(async () => {
  server = await spawnServer({ REACTION_TYPES_MAX: String(MAX) });
  ({ api } = await newApp({}, server.url));
  for (let i = 0; i < 12; i++) await api.post(`user/users/typer${i}`, { displayname: `typer ${i}` });
});
afterAll(async () => {
  await server?.stop();
});

const types = (tallies: { type: string; count: number }[]) => tallies.map((t) => [t.type, t.count]);

describe('REACTION_TYPES_MAX', () => {
  it('refuses a comment reaction of one type more than the comment lists (400 naming reaction); listed types, even emptied, stay open', async () => {
    const c = await newConversation(api);
    const comment = await postComment(api, c.conversationid);
    const react = (userid: string, reaction: string, reacted = true) => api.post(`comment/conversations/${c.conversationid}/comments/${comment.id}/react`, { userid, reaction, reacted });
    for (let i = 0; i < MAX; i++) expect((await react('typer0', `emoji:${i}`)).status).toBe(200);
    const refused = await react('typer1', 'emoji:new');
    expect(refused.status).toBe(400);
    expect(refused.body.errors.reaction).toMatch(/at most 3/);
    expect((await react('typer0', 'emoji:0', false)).status).toBe(200);
    expect((await react('typer2', 'emoji:new')).status).toBe(400);
    expect((await react('typer2', 'emoji:0')).status).toBe(200);
    const got = (await api.get(`comment/conversations/${c.conversationid}/comments/${comment.id}`)).body.data;
    expect(types(got.reactions)).toEqual([
      ['emoji:0', 1],
      ['emoji:1', 1],
      ['emoji:2', 1],
    ]);
  });

  it('of 12 new types sent at once to one conversation, takes exactly 3 and refuses the rest; nothing refused is written', async () => {
    const c = await newConversation(api);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => api.post(`comment/conversations/${c.conversationid}/react`, { userid: `typer${i}`, reaction: `emoji:${i}`, reacted: true })),
    );
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(MAX);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect(a.status).toBe(400);
      expect(Object.keys(a.body.errors)).toEqual(['reaction']);
    }
    const got = (await api.get(`comment/conversations/${c.conversationid}`)).body.data;
    expect(got.reactions).toHaveLength(MAX);
    for (const t of got.reactions) expect(t.count).toBe(1);
  });

  it('refuses 0 at start, naming the setting', async () => {
    await expect(spawnServer({ REACTION_TYPES_MAX: '0' })).rejects.toThrow(/REACTION_TYPES_MAX/);
  });
});
