// SDK results are loosely typed (the SDK's own models are partial); tests read them as JSON and assert on values.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { Services } from 'sportstalk-sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { uid } from '../helpers/api.js';
import { eventually } from '../webhooks/receiver.js';
import { chatAs, sdkApp, statusOf, type SdkApp } from './helpers.js';

let sdk: SdkApp;
beforeAll(async () => {
  sdk = await sdkApp();
});

/** A room with a moderator and two users joined, each through their own ChatClient. */
async function roomWithPeople(room: Record<string, unknown> = {}) {
  const mod = await chatAs(sdk, uid('mod'), { role: 'moderator' });
  const alice = await chatAs(sdk, uid('alice'));
  const bob = await chatAs(sdk, uid('bob'));
  const created: any = await mod.createRoom({ name: uid('room'), ...room } as any);
  for (const client of [mod, alice, bob]) await client.joinRoom(created);
  const id = (c: typeof mod) => c.getCurrentUser()?.userid as string;
  return { room: created, mod, alice, bob, id };
}

describe('chat moderation through ChatClient and the moderation service', () => {
  it('pre-moderated room: the queue holds new events; approve shows one, reject keeps the other hidden', async () => {
    const { room, alice } = await roomWithPeople({ moderation: 'pre' });
    const moderation = new Services.ChatModerationService(sdk.config as any);
    const first: any = await alice.executeChatCommand('please approve me');
    const second: any = await alice.executeChatCommand('please reject me');
    const queue: any = await moderation.listMessagesInModerationQueue({ roomId: room.id } as any);
    expect(queue.events.map((e: any) => e.id).sort()).toEqual([first.data.speech.id, second.data.speech.id].sort());
    expect(await moderation.moderateEvent(first.data.speech, true)).toMatchObject({ id: first.data.speech.id });
    await moderation.moderateEvent(second.data.speech, false);
    expect(((await moderation.listMessagesInModerationQueue({ roomId: room.id } as any)) as any).events).toEqual([]);
    expect(((await alice.getUpdates()) as any).events.map((e: any) => e.body)).toEqual(['please approve me']);
  });

  it('reports a message into the queue at maxreports', async () => {
    const { room, alice, bob } = await roomWithPeople({ maxreports: 1 });
    const said: any = await alice.executeChatCommand('report me');
    const reported: any = await bob.reportMessage(said.data.speech, 'abuse' as any);
    expect(reported.data.reports).toEqual([expect.objectContaining({ userid: bob.getCurrentUser()?.userid, reason: 'abuse' })]);
    const moderation = new Services.ChatModerationService(sdk.config as any);
    const queue: any = await moderation.listMessagesInModerationQueue({ roomId: room.id } as any);
    expect(queue.events.map((e: any) => e.id)).toEqual([said.data.speech.id]);
  });

  it('bounces and un-bounces, shadow bans and mutes in the room, bans globally', async () => {
    const { room, mod, alice, bob, id } = await roomWithPeople();
    const bounced: any = await mod.bounceUser(id(bob), 'Out you go');
    expect(bounced).toMatchObject({ kind: 'chat.bounceuser', event: { eventtype: 'bounce', userid: id(bob), body: 'Out you go' } });
    expect(await mod.isUserBouncedFromRoom(id(bob), true)).toBe(true);
    expect(await statusOf(bob.joinRoom(room))).toBe(403);
    await mod.unbounceUser(id(bob), 'Back in');
    expect(await mod.isUserBouncedFromRoom(id(bob), true)).toBe(false);
    await bob.joinRoom(room);

    const shadowed: any = await mod.shadowBanUserFromRoom(id(bob), 600);
    expect(shadowed.shadowbannedusers).toEqual([id(bob)]);
    expect(await mod.isUserShadowbanned(id(bob), true)).toBe(true);
    expect(await mod.getUserEffects(id(bob), true)).toMatchObject({ shadowban: true });
    const hidden: any = await bob.executeChatCommand('only I see this');
    expect(((await alice.getUpdates()) as any).events.map((e: any) => e.id)).not.toContain(hidden.data.speech.id);
    await mod.unShadowBanUserFromRoom(id(bob), 0);
    expect(await mod.isUserShadowbanned(id(bob), true)).toBe(false);

    await mod.muteUserInRoom(id(alice), true, 600);
    expect(await mod.getUserEffects(id(alice), true)).toMatchObject({ mute: true });
    expect(await statusOf(alice.executeChatCommand('muted?'))).toBe(403);
    await mod.muteUserInRoom(id(alice), false);
    expect(await mod.getUserEffects(id(alice), true)).toMatchObject({ mute: false });

    expect(await mod.setBanStatus(id(alice), true)).toMatchObject({ banned: true });
    expect(await statusOf(alice.executeChatCommand('banned?'))).toBe(403);
    expect(await mod.setBanStatus(id(alice), false)).toMatchObject({ banned: false });
  });

  it("purges a user's messages with the bare app token, counting them", async () => {
    const { room, mod, alice, bob, id } = await roomWithPeople();
    await alice.executeChatCommand('one');
    await alice.executeChatCommand('two');
    await bob.executeChatCommand('stays');
    // The SDK builds this call and returns the whole envelope; byuserid is a plain user here.
    const purged: any = await bob.purgeUserMessagesFromRoom(room, id(alice), id(bob));
    expect(purged).toMatchObject({ code: 200, message: "The user's 2 messages were purged.", data: { eventtype: 'purge', userid: id(alice) } });
    expect(((await mod.getUpdates()) as any).events.map((e: any) => e.body)).toEqual(['stays']);
  });

  it('reports a user in the room: at the limit the user is flagged', async () => {
    const { room, mod, alice, bob, id } = await roomWithPeople();
    const reported: any = await alice.reportUserInRoom(id(bob), id(alice), 'abuse' as any, room);
    expect(reported.reportedusers).toEqual([expect.objectContaining({ userid: id(bob), reportedbyuserid: id(alice) })]);
    const other = await chatAs(sdk);
    await other.joinRoom(room);
    const third = await chatAs(sdk);
    await third.joinRoom(room);
    await other.reportUserInRoom(id(bob), other.getCurrentUser()?.userid as string, 'spam' as any, room);
    await third.reportUserInRoom(id(bob), third.getCurrentUser()?.userid as string, 'spam' as any, room);
    // userreportslimit defaults to 3: the third report flags the user.
    expect(await mod.getUserEffects(id(bob), true)).toMatchObject({ flag: true });
  });
});

describe('notifications through ChatClient', () => {
  it("lists with the SDK's default and explicit filters, marks read, and deletes", async () => {
    const { alice, bob } = await roomWithPeople();
    const said: any = await alice.executeChatCommand('notify me');
    const reply: any = await bob.sendThreadedReply('a reply to you', said.data.speech);
    await bob.reactToEvent('like' as any, said.data.speech);
    await bob.sendQuotedReply('quoting you', said.data.speech);

    // The SDK's default filter is speech, reply, reaction: the quote is left out.
    const listed: any = await eventually(
      () => alice.listUserNotifications({}),
      (l: any) => l.notifications.length >= 2,
    );
    expect(listed.notifications.map((n: any) => n.notificationtype).sort()).toEqual(['reaction', 'reply']);
    const note = listed.notifications.find((n: any) => n.notificationtype === 'reply');
    expect(note).toMatchObject({ userid: alice.getCurrentUser()?.userid, isread: false, whenread: null, chateventid: reply.data.id, chatroomid: said.data.speech.roomid });
    expect(typeof note.ts).toBe('number');
    // A like's notification commits with the like; a quote's is written a moment after it.
    const quotes: any = await eventually(
      () => alice.listUserNotifications({ filterNotificationTypes: ['chatquote'] as any }),
      (l: any) => l.notifications.length >= 1,
    );
    expect(quotes.notifications.map((n: any) => n.notificationtype)).toEqual(['quote']);
    expect(await statusOf(alice.listUserNotifications({ filterNotificationTypes: ['gossip'] as any }))).toBe(400);

    const read: any = await alice.setNotificationReadStatus(note.id, true);
    expect(read).toMatchObject({ id: note.id, isread: true });
    expect(read.whenread).toMatch(/^\d{4}-/);
    const unread: any = await alice.listUserNotifications({});
    expect(unread.notifications.map((n: any) => n.id)).not.toContain(note.id);

    const deleted: any = await alice.deleteNotification(note.id);
    expect(deleted).toMatchObject({ kind: 'deleted.usernotification', notification: { id: note.id } });
    const reaction = listed.notifications.find((n: any) => n.notificationtype === 'reaction');
    // The npm build's setNotificationReadStatusByChatEventId throws before sending (it checks
    // `eventid` but sets `chateventid`): marked read over HTTP instead.
    expect(() => alice.setNotificationReadStatusByChatEventId(reaction.chateventid, true)).toThrow();
    const userid = alice.getCurrentUser()?.userid as string;
    const marked = await fetch(`${sdk.config.endpoint}/${sdk.config.appId}/user/users/${userid}/notification/notificationsbyid/chateventid/${reaction.chateventid}/update?read=true`, {
      method: 'PUT',
      headers: { 'x-api-token': sdk.config.apiToken },
    });
    expect(((await marked.json()) as any).data).toMatchObject({ id: reaction.id, isread: true });
    const byEvent: any = await alice.deleteNotificationByChatEventId(reaction.chateventid);
    expect(byEvent).toMatchObject({ deletedcount: 1 });

    const all: any = await alice.markAllNotificationsAsRead(undefined, true);
    expect(all).toMatchObject({ deletedcount: 1 });
    expect(((await alice.listUserNotifications({ includeread: true, filterNotificationTypes: ['reply', 'quote', 'reaction', 'mention'] as any })) as any).notifications).toEqual([]);
  });
});
