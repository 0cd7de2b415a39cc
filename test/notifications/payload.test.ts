import { describe, expect, it } from 'vitest';
import { baseUrl, newApp, uid } from '../helpers/api.js';
import { userToken } from '../foundation/util.js';
import { connect } from '../realtime/ws-client.js';
import { join, makeRoom, say } from '../chat/helpers.js';

/** Quotes, backslashes, escapes, accents, an emoji and a right-to-left script, as JSON must carry them. */
const BODY = 'Goal! "what" a \\ strike \\n \\u0041 \u00fc\u00df \u{1F389} \u0645\u0631\u062D\u0628\u0627 \t</script>';

describe("a notification's payload", () => {
  it('is listed and answered exactly as it was pushed, key order and every character included', async () => {
    const { api, appid, token, jwtsecret } = await newApp();
    const room = await makeRoom(api, { enableenterandexit: false });
    const alice = (await join(api, room.id, uid('alice'), { displayname: 'Al "the" \\ \u00e9' })).user.userid as string;
    const bob = (await join(api, room.id)).user.userid as string;
    const original = (await say(api, room.id, alice, BODY)).speech;
    const client = await connect(baseUrl(), appid, token, await userToken(jwtsecret, { userid: alice }));
    expect(await client.subscribe(`user:${alice}`)).toMatchObject({ type: 'subscribed' });

    const like = await api.post(`chat/rooms/${room.id}/events/${original.id}/react`, { userid: bob, reaction: 'like', reacted: true });
    expect(like.status).toBe(200);
    const frame = await client.next((f) => f.type === 'event');
    client.close();
    const pushed = JSON.stringify(frame.data.payload);
    expect(frame.data.payload.replyto.body).toBe(BODY);

    const listed = await api.get(`user/users/${alice}/notification/listnotifications?includeread=true`);
    expect(listed.status).toBe(200);
    const [note] = listed.body.data.notifications;
    expect(note.id).toBe(frame.data.id);
    expect(JSON.stringify(note.payload)).toBe(pushed);

    const marked = await api.put(`user/users/${alice}/notification/notifications/${note.id}/update?read=true`);
    expect(marked.status).toBe(200);
    expect(JSON.stringify(marked.body.data.payload)).toBe(pushed);
  });
});
