import type { Api } from './http.js';

/** What the fans act on: one room with a hot event, one conversation with a hot comment, one poll. */
export interface Stage {
  roomid: string;
  hotEventId: string;
  conversationid: string;
  commentid: string;
  pollid: string;
  choiceids: string[];
}

export const HOST = 'loadtest-host';
export const fanId = (i: number) => `loadtest-fan-${i}`;

/** Creates the stage on the first node, as a match's producer would before kickoff. */
export async function buildStage(api: Api): Promise<Stage> {
  const tag = Date.now().toString(36);
  const room = await api.must<{ id: string }>(0, 'POST', 'chat/rooms', { name: `loadtest ${tag}`, enableenterandexit: false, enableprofanityfilter: false });
  await api.must(0, 'POST', `chat/rooms/${room.id}/join`, { userid: HOST, displayname: 'Load test host' });
  const post = await api.must<{ speech: { id: string } }>(0, 'POST', `chat/rooms/${room.id}/command`, { userid: HOST, command: 'GOAL!' });
  const conversationid = `loadtest-${tag}`;
  await api.must(0, 'POST', 'comment/conversations', { conversationid, property: 'loadtest', moderation: 'post', title: 'Load test', owneruserid: HOST });
  const comment = await api.must<{ id: string }>(0, 'POST', `comment/conversations/${conversationid}/comments`, { userid: HOST, body: 'The hot take' });
  const poll = await api.must<{ id: string }>(0, 'POST', 'poll/poll/create', { title: 'Man of the match', maxtotalresponsesperuser: 1 });
  const choices = await api.must<{ id: string }[]>(0, 'POST', `poll/poll/${poll.id}/choice`, { choices: [{ title: 'Home' }, { title: 'Away' }] });
  return { roomid: room.id, hotEventId: post.speech.id, conversationid, commentid: comment.id, pollid: poll.id, choiceids: choices.map((c) => c.id) };
}

/** Joins fans [from, to) to the room before the run (unmeasured), 32 at a time, spread over the nodes. */
export async function joinBefore(api: Api, stage: Stage, from: number, to: number): Promise<void> {
  let next = from;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < to) {
        const i = next++;
        await api.must(i, 'POST', `chat/rooms/${stage.roomid}/join`, { userid: fanId(i), displayname: fanId(i) });
      }
    }),
  );
}
