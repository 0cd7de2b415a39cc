// SDK results are loosely typed (the SDK's own models are partial); tests read them as JSON and assert on values.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { impl, Services } from 'sportstalk-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uid } from '../helpers/api.js';
import { eventually, startReceiver, type Receiver } from '../webhooks/receiver.js';
import { chatAs, sdkApp, statusOf, type SdkApp } from './helpers.js';

let sdk: SdkApp;
beforeAll(async () => {
  sdk = await sdkApp();
});

describe("polls through the SDK's poll service", () => {
  it('creates a poll with sortchoices as a string, adds choices (position -1 appends), votes, standings, responses', async () => {
    const polls = new impl.REST.Polls.RestfulPollService(sdk.config as any);
    const customid = uid('poll');
    const poll: any = await polls.createOrUpdatePoll({ title: 'Best colour?', ownerid: 'owner', customid, sortchoices: 'random' } as any);
    expect(poll).toMatchObject({ kind: 'poll.poll', title: 'Best colour?', customid, sortchoices: 'random' });
    // The npm build names the field `sortanswers`; both spellings are taken.
    expect(((await polls.createOrUpdatePoll({ title: 'Other', sortanswers: 'position' } as any)) as any).sortchoices).toBe('position');

    const first: any = await polls.createOrUpdatePollChoice(poll, { title: 'Red', position: -1 } as any);
    expect(first.map((c: any) => c.title)).toEqual(['Red']);
    const second: any = await polls.createOrUpdatePollChoice(poll, { title: 'Blue', position: -1 } as any);
    expect(second.map((c: any) => [c.title, c.position])).toEqual([
      ['Red', 0],
      ['Blue', 1],
    ]);
    const choices: any = await polls.listChoicesForPoll(poll);
    expect(choices.choices.map((c: any) => c.title)).toEqual(['Red', 'Blue']);
    expect(await polls.getPollDetails(poll.id)).toMatchObject({ id: poll.id, choices: [{ title: 'Red' }, { title: 'Blue' }] });
    expect(await polls.getPollDetailsByCustomId(customid)).toMatchObject({ id: poll.id });

    const [red, blue] = second;
    expect(await polls.createOrUpdatePollResponse(poll, red, 'voter1')).toMatchObject({ kind: 'poll.response', choiceid: red.id, userid: 'voter1' });
    await polls.createOrUpdatePollResponse(poll, blue, 'voter2');
    await polls.createOrUpdatePollResponse(poll, red, 'voter3');
    const standings: any = await eventually(
      () => polls.getPollStandings(poll),
      (s: any) => s.totalresponses === 3,
    );
    expect(standings.choices.map((c: any) => [c.title, c.count])).toEqual([
      ['Red', 2],
      ['Blue', 1],
    ]);
    const mine: any = await polls.listResponsesByUser(poll.id, 'voter2');
    expect(mine.responses.map((r: any) => r.choiceid)).toEqual([blue.id]);
    // The other SDKs' path for a user's responses; the npm build has no method for it.
    const all = await fetch(`${sdk.config.endpoint}/${sdk.config.appId}/poll/poll/${poll.id}/responses/all?UserId=voter1`, { headers: { 'x-api-token': sdk.config.apiToken } });
    expect(((await all.json()) as any).data.responses.map((r: any) => r.userid)).toEqual(['voter1']);

    const listed: any = await polls.listPolls();
    expect(listed.polls.map((p: any) => p.id)).toContain(poll.id);
    const reset: any = await polls.resetPoll(poll);
    expect(reset).toMatchObject({ deletedresponses: 3 });
    expect(((await polls.getPollStandings(poll)) as any).totalresponses).toBe(0);
    await polls.deletePoll(poll);
    expect(await statusOf(polls.getPollDetails(poll.id))).toBe(404);
  });
});

describe("webhooks through the SDK's webhook service", () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver(() => 200);
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('creates, lists, updates, delivers, logs and deletes a hook; events: [] is accepted', async () => {
    const hooks = new Services.WebhookService(sdk.config as any);
    const hook: any = await hooks.createWebhook({ label: uid('hook'), url: receiver.url, enabled: true, type: 'postpublish', events: ['chatspeech'] } as any);
    expect(hook).toMatchObject({ kind: 'webhook.webhook', url: receiver.url, enabled: true, type: 'postpublish', events: ['chatspeech'] });
    const quiet: any = await hooks.createWebhook({ label: uid('quiet'), url: receiver.url, enabled: true, type: 'postpublish', events: [] } as any);
    expect(quiet.events).toEqual([]);
    const listed: any = await hooks.listWebhooks();
    expect(listed.webhooks.map((w: any) => w.id).sort()).toEqual([hook.id, quiet.id].sort());

    const chat = await chatAs(sdk);
    const room: any = await chat.createRoom({ name: 'hooked' } as any);
    await chat.joinRoom(room);
    const said: any = await chat.executeChatCommand('deliver me');
    const [delivered] = await receiver.waitFor(1);
    expect(delivered?.body).toMatchObject({ type: 'chatspeech', data: { id: said.data.speech.id } });
    const logs: any = await eventually(
      () => hooks.listWebhookLogs(hook, {} as any),
      (l: any) => l.logentries?.length >= 1,
    );
    expect(logs.logentries[0]).toMatchObject({ eventtype: 'chatspeech', statuscode: 200, completedrequest: true });
    // The hook with no events fired for none.
    expect(receiver.received).toHaveLength(1);

    const updated: any = await hooks.updateWebhook({ ...hook, enabled: false });
    expect(updated).toMatchObject({ id: hook.id, enabled: false });
    await hooks.deleteWebhook(hook);
    expect(((await hooks.listWebhooks()) as any).webhooks.map((w: any) => w.id)).toEqual([quiet.id]);
  });
});

describe('telemetry', () => {
  it('heartbeats, increments and samples, read back as a snapshot', async () => {
    // The npm SDK has no telemetry service: the calls go over HTTP as its services would send them.
    const base = `${sdk.config.endpoint}/${sdk.config.appId}/telemetry/contexts/${encodeURIComponent('match 7')}`;
    const post = (path: string, body: unknown) =>
      fetch(`${base}/${path}`, { method: 'POST', headers: { 'x-api-token': sdk.config.apiToken, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post('presence/viewers/heartbeat', { userid: 'v1' })).status).toBe(200);
    expect((await post('presence/viewers/heartbeat', { userid: 'v2' })).status).toBe(200);
    expect((await post('metrics/cheers/increment', { userid: 'v1', by: 3 })).status).toBe(200);
    expect((await post('gauges/mood/sample', { userid: 'v1', value: 0.5 })).status).toBe(200);
    const snapshot: any = await (await fetch(base, { headers: { 'x-api-token': sdk.config.apiToken } })).json();
    const byKey = Object.fromEntries(snapshot.data.signals.map((s: any) => [s.key, s]));
    expect(byKey.viewers).toMatchObject({ kind: 'presence', active: 2 });
    expect(byKey.cheers).toMatchObject({ kind: 'metric', total: 3 });
    expect(byKey.mood).toMatchObject({ kind: 'gauge', average: 0.5 });
  });
});
