// SDK results are loosely typed (the SDK's own models are partial); tests read them as JSON and assert on values.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { ChatClient } from 'sportstalk-sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { uid } from '../helpers/api.js';
import { chatAs, sdkApp, statusOf, userClient, type SdkApp } from './helpers.js';

let sdk: SdkApp;
beforeAll(async () => {
  sdk = await sdkApp();
});

describe('users through UserClient', () => {
  it('creates without a displayname, updates, reads, searches, lists, bans and deletes', async () => {
    const users = userClient(sdk);
    const userid = uid('sdku');
    const created: any = await users.createOrUpdateUser({ userid, handle: userid });
    expect(created).toMatchObject({ kind: 'app.user', userid, handle: userid, displayname: userid, reports: [] });
    const updated: any = await users.createOrUpdateUser({ userid, displayname: 'Shown Name', pictureurl: 'https://pic.test/a.png' } as any);
    expect(updated).toMatchObject({ displayname: 'Shown Name', handle: userid, pictureurl: 'https://pic.test/a.png' });
    expect(await users.getUserDetails(userid)).toMatchObject({ displayname: 'Shown Name' });

    const found: any = await users.searchUsers(userid.slice(0, 8), 'handle' as any);
    expect(found.users.map((u: any) => u.userid)).toContain(userid);
    const listed: any = await users.listUsers({ limit: 200 } as any);
    expect(listed.kind).toBe('list.users');
    expect(listed.users.map((u: any) => u.userid)).toContain(userid);

    expect(await users.setBanStatus(userid, true)).toMatchObject({ userid, banned: true });
    expect(await users.getUserDetails(userid)).toMatchObject({ banned: true });
    expect(await users.setBanStatus(userid, false)).toMatchObject({ banned: false });
    expect(await users.setShadowBanStatus(userid, true)).toMatchObject({ shadowbanned: true });

    const deleted: any = await users.deleteUser(userid);
    expect(deleted).toMatchObject({ kind: 'deleted.appuser', user: { userid } });
    expect(await statusOf(users.getUserDetails(userid))).toBe(404);
  });

  it('reports a user: app.user carries the report', async () => {
    const users = userClient(sdk);
    const [bad, reporter] = [uid('bad'), uid('rep')];
    await users.createOrUpdateUser({ userid: bad, handle: bad });
    await users.createOrUpdateUser({ userid: reporter, handle: reporter });
    const reported: any = await users.reportUser(bad, reporter);
    expect(reported.reports).toEqual([{ userid: reporter, reason: 'abuse', issuedat: expect.stringMatching(/^\d{4}-/) }]);
    expect(((await users.getUserDetails(bad)) as any).reports).toHaveLength(1);
    const queue: any = await users.listUsersInModerationQueue({} as any);
    expect(JSON.stringify(queue)).toContain(bad);
  });
});

describe('rooms, joining and messages through ChatClient', () => {
  it('creates, lists, updates and details rooms', async () => {
    const chat = await chatAs(sdk);
    const customid = uid('cid');
    const room: any = await chat.createRoom({ name: 'SDK room', customid } as any);
    expect(room).toMatchObject({ kind: 'chat.room', name: 'SDK room', customid, enableenterandexit: false });
    const listed: any = await chat.listRooms();
    expect(listed.rooms.map((r: any) => r.id)).toContain(room.id);
    // The SDK's updateRoom sends the room object it got back (nulls included) and returns the message.
    await chat.updateRoom({ ...room, description: 'updated through the SDK' });
    expect(await chat.getRoomDetails(room.id)).toMatchObject({ description: 'updated through the SDK' });
    expect(await chat.getRoomDetailsByCustomId(customid)).toMatchObject({ id: room.id });

    await chat.joinRoom(room);
    await chat.executeChatCommand('first message');
    const details: any = await chat.getRoomExtendedDetails({ roomids: [room.id], entities: ['room', 'numparticipants', 'lastmessagetime'] as any });
    expect(details.details).toHaveLength(1);
    expect(details.details[0]).toMatchObject({ room: { id: room.id }, inroom: 1, numparticipants: 1 });
    expect(details.details[0].mostrecentmessagetime).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('joins, talks, replies, quotes, reacts and un-reacts, polls getUpdates, and exits', async () => {
    const alice = await chatAs(sdk);
    const bob = await chatAs(sdk);
    const room: any = await alice.createRoom({ name: 'talk' } as any);
    const joined: any = await alice.joinRoom(room);
    expect(joined).toMatchObject({ kind: 'chat.joinroom', room: { id: room.id } });
    // enter/exit are off by default: a new room's feed is empty.
    expect(joined.eventscursor.events).toEqual([]);
    await bob.joinRoom(room.id);

    const said: any = await alice.executeChatCommand('hello from the SDK');
    const event = said.data.speech;
    expect(event).toMatchObject({ eventtype: 'speech', body: 'hello from the SDK', userid: alice.getCurrentUser()?.userid });
    const reply: any = await bob.sendThreadedReply('a threaded reply', event);
    expect(reply.data).toMatchObject({ eventtype: 'reply', parentid: event.id });
    const quote: any = await bob.sendQuotedReply('a quoted reply', event);
    expect(quote.data).toMatchObject({ eventtype: 'quote', replyto: { id: event.id } });
    const reacted: any = await bob.reactToEvent('like' as any, event);
    expect(reacted).toMatchObject({ eventtype: 'reaction', replyto: { id: event.id, likecount: 1 } });
    const unreacted: any = await bob.reactToEvent('like' as any, event, { reacted: false } as any);
    expect(unreacted.replyto.reactions).toEqual([{ type: 'like', count: 0, users: [] }]);
    const action: any = await alice.executeChatCommand('/wave');
    expect(action.data.op).toBe('action');

    // ChatClient.getUpdates asks with an empty cursor: the most recent displayable events.
    const latest: any = await alice.getUpdates();
    expect(latest.events.map((e: any) => e.eventtype)).toEqual(['speech', 'reply', 'quote', 'action']);
    // Polling with the cursor (what the SDK's update loop does) sees every event once, non-displayable ones too.
    const events = alice.getEventService();
    const polled: any = await events.getUpdates(joined.eventscursor.cursor);
    expect(polled.events.map((e: any) => e.eventtype)).toEqual(['speech', 'reply', 'quote', 'reaction', 'reaction', 'action']);
    expect(((await events.getUpdates(polled.cursor)) as any).events).toEqual([]);
    await bob.executeChatCommand('later');
    expect(((await events.getUpdates(polled.cursor)) as any).events.map((e: any) => e.body)).toEqual(['later']);

    const byType: any = await alice.listEventsByType('speech' as any);
    expect(byType.events.map((e: any) => e.body)).toEqual(['hello from the SDK', 'later']);
    const previous: any = await alice.listPreviousEvents('', 50);
    expect(previous.events.map((e: any) => e.body)).toContain('a threaded reply');

    const left: any = await bob.exitRoom();
    expect(left).toBe('Success');
    expect(((await alice.getRoomDetails(room.id)) as any).inroom).toBe(1);
  });

  it('a room opting into enter and exit shows them', async () => {
    const host = await chatAs(sdk);
    const room: any = await host.createRoom({ name: 'doors', enableenterandexit: true } as any);
    const guest = await chatAs(sdk);
    await host.joinRoom(room);
    await guest.joinRoom(room);
    await guest.exitRoom();
    expect(((await host.getUpdates()) as any).events.map((e: any) => `${e.eventtype}:${e.userid}`)).toEqual([
      `enter:${host.getCurrentUser()?.userid}`,
      `enter:${guest.getCurrentUser()?.userid}`,
      `exit:${guest.getCurrentUser()?.userid}`,
    ]);
  });

  it('refuses a join with a profane display name in a filtered room (405)', async () => {
    const host = await chatAs(sdk);
    const room: any = await host.createRoom({ name: 'clean' } as any);
    // A client whose user is set locally only, as apps do when the join creates the user.
    const rude = ChatClient.init(sdk.config);
    rude.setUser({ userid: uid('rude'), handle: uid('rude'), displayname: 'fuck face' });
    expect(await statusOf(rude.joinRoom(room))).toBe(405);
  });
});
