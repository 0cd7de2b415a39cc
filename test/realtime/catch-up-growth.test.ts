import { describe, expect, it } from 'vitest';
import { baseUrl, newApp, type TestApp } from '../helpers/api.js';
import { connect, type Frame } from './ws-client.js';

const say = (app: TestApp, roomid: string, command: string) => app.api.post(`chat/rooms/${roomid}/command`, { userid: 'u1', command });
const speech = (f: Frame) => f.type === 'event' && f.event === 'chat.event' && f.data.eventtype === 'speech';

/**
 * Fans resuming one after another from the same cursor while the room goes on: each gets the feed
 * as it stands when it resumes, whether the newest part of it grew (a post), changed in place (an
 * edit) or lost an event (a delete) since the fan before.
 */
describe('resuming while the feed grows and changes', () => {
  it('each fan gets what the feed holds after the cursor now, once, in order', async () => {
    const app = await newApp();
    const room = (await app.api.post('chat/rooms', { name: 'growing', enableenterandexit: false })).body.data.id as string;
    const joined = await app.api.post(`chat/rooms/${room}/join`, { userid: 'u1' });
    const cursor = joined.body.data.eventscursor.cursor as string;
    const ids: string[] = [];
    const post = async (body: string) => {
      const res = await say(app, room, body);
      expect(res.status).toBe(200);
      ids.push(res.body.data.speech.id as string);
    };
    const resume = async (count: number) => {
      const fan = await connect(baseUrl(), app.appid, app.token);
      expect(await fan.subscribe(`room:${room}`, cursor)).toMatchObject({ type: 'subscribed', resumed: true });
      await fan.collect(speech, count, 8000);
      await fan.settle();
      const got = fan.frames.filter(speech).map((f) => f.data.body as string);
      fan.close();
      return got;
    };

    for (const body of ['one', 'two', 'three']) await post(body);
    expect(await resume(3)).toEqual(['one', 'two', 'three']);
    await post('four');
    expect(await resume(4)).toEqual(['one', 'two', 'three', 'four']);
    expect((await app.api.put(`chat/rooms/${room}/events/${ids[1]}`, { userid: 'u1', body: 'two, edited' })).status).toBe(200);
    await post('five');
    expect(await resume(5)).toEqual(['one', 'two, edited', 'three', 'four', 'five']);
    expect((await app.api.delete(`chat/rooms/${room}/events/${ids[2]}?userid=u1`)).status).toBe(200);
    await post('six');
    expect(await resume(5)).toEqual(['one', 'two, edited', 'four', 'five', 'six']);
  });
});
