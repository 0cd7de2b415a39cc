import { describe, expect, it } from 'vitest';
import { baseUrl, newApp } from '../helpers/api.js';
import { connect } from './ws-client.js';

describe('poll topics', () => {
  it('push the standings REST returns after a vote, only to subscribers of that poll', async () => {
    const { api, appid, token } = await newApp();
    const poll = (await api.post('poll/poll/create', { title: 'Colour' })).body.data;
    const other = (await api.post('poll/poll/create', { title: 'Other' })).body.data;
    const choices = (await api.post(`poll/poll/${poll.id}/choice`, { choices: [{ title: 'Red' }, { title: 'Blue' }] })).body.data;
    const client = await connect(baseUrl(), appid, token);
    expect(await client.subscribe(`poll:${poll.id}`)).toEqual({ type: 'subscribed', topic: `poll:${poll.id}` });
    await client.subscribe(`poll:${other.id}`);

    // The choices' push reads the standings 100 ms after they changed: a vote before that read would be in it too.
    await new Promise((r) => setTimeout(r, 300));
    const vote = await api.post(`poll/poll/${poll.id}/response`, { userid: 'u1', choiceid: choices[1].id });
    expect(vote.status).toBe(200);
    // Adding the choices pushed standings too, which may reach a subscriber that was that quick.
    const frame = await client.next((f) => f.type === 'event' && f.data.totalresponses === 1);
    const standings = await api.get(`poll/poll/${poll.id}/standings`);
    expect(frame).toMatchObject({ topic: `poll:${poll.id}`, event: 'poll.standings' });
    expect(frame.data).toEqual(standings.body.data);
    await new Promise((r) => setTimeout(r, 300));
    const events = client.frames.filter((f) => f.type === 'event');
    expect(events.filter((f) => f.data.totalresponses === 1)).toHaveLength(1);
    expect(events.every((f) => f.topic === `poll:${poll.id}`)).toBe(true);
    client.close();
  });
});
