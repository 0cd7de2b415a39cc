// Response bodies are arbitrary JSON; tests read them loosely and assert on the values.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { describe, expect, it } from 'vitest';
import { ownServerForSuite } from '../helpers/own-server.js';
import { join, makeRoom, say } from './helpers.js';

/**
 * A crowd of new fans joining a quiet room shares one page of its newest events across batches
 * of joins. Whatever changed in between (an event a report hid, the events a reset removed without
 * adding one, an author's new name) shows to every fan joining after the change was answered, as a
 * read of their own would show it.
 */
const own = ownServerForSuite({ RATE_LIMITS: 'off' });
let crowds = 0;

/** `n` new fans join at once; the page each was answered with. */
async function crowdJoins(roomId: string, n = 24): Promise<any[]> {
  const { api } = own.app;
  const prefix = `page${Date.now() % 100000}c${crowds++}x`;
  const answers = await Promise.all(Array.from({ length: n }, (_, i) => api.post(`chat/rooms/${roomId}/join`, { userid: `${prefix}${i}` })));
  return answers.map((res) => {
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.eventscursor;
  });
}

const bodies = (page: any) => page.events.map((e: any) => e.body);

describe('the page a crowd of new fans shares', () => {
  it('leaves out an event a report took out of the stream, for every fan joining after the report', async () => {
    const { api } = own.app;
    const room = await makeRoom(api, { enableenterandexit: false });
    const host = (await join(api, room.id)).user.userid as string;
    const said = [];
    for (const text of ['kickoff', 'offside?', 'what a save']) said.push((await say(api, room.id, host, text)).speech);
    for (const page of await crowdJoins(room.id)) expect(bodies(page)).toEqual(['kickoff', 'offside?', 'what a save']);
    for (const page of await crowdJoins(room.id)) expect(bodies(page)).toEqual(['kickoff', 'offside?', 'what a save']);

    const reporter = (await join(api, room.id)).user.userid as string;
    const report = await api.post(`chat/rooms/${room.id}/events/${said[1].id}/report`, { userid: reporter, reporttype: 'abuse' });
    expect(report.status, JSON.stringify(report.body)).toBe(200);
    for (const page of await crowdJoins(room.id)) expect(bodies(page)).toEqual(['kickoff', 'what a save']);
  });

  it('shows a reset room without its events to every fan joining after the reset', async () => {
    const { api } = own.app;
    const room = await makeRoom(api, { enableenterandexit: false });
    const host = (await join(api, room.id)).user.userid as string;
    await say(api, room.id, host, 'first half');
    for (const page of await crowdJoins(room.id)) expect(bodies(page)).toEqual(['first half']);
    expect((await api.post(`chat/rooms/${room.id}/reset`, {})).status).toBe(200);
    for (const page of await crowdJoins(room.id)) expect(page.events).toEqual([]);
  });

  it("shows an author's new display name on their events to every fan joining after the change", async () => {
    const { api } = own.app;
    const room = await makeRoom(api, { enableenterandexit: false });
    const host = (await join(api, room.id, undefined, { displayname: 'Commentator' })).user.userid as string;
    await say(api, room.id, host, 'and they score');
    for (const page of await crowdJoins(room.id)) expect(page.events.map((e: any) => e.user.displayname)).toEqual(['Commentator']);
    const renamed = await api.post(`user/users/${host}`, { displayname: 'Head Commentator' });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    for (const page of await crowdJoins(room.id)) expect(page.events.map((e: any) => e.user.displayname)).toEqual(['Head Commentator']);
  });
});
