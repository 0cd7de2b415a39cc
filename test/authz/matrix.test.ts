import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type Client, type Response, type TestApp } from '../helpers/api.js';
import { bearer, userToken } from '../foundation/util.js';
import { startWithRouteTable } from '../helpers/route-table.js';

/**
 * Object-level authorization of every write route: a plain user's token (mallory's) acting on
 * someone else's resource (alice's) or on an application-level setting is refused with 403, and
 * the owner, a moderator, an admin or the server token alone may do it. The table has one row
 * per write route; a route registered without a row fails the coverage test.
 */

type Who = 'mallory' | 'alice' | 'moderator' | 'admin' | 'server';

interface Call {
  as: Who;
  /** Relative to /api/v3/{appid}/, query included. */
  path: string;
  body?: unknown;
  /** What the allowed call answers (200 unless said). */
  status?: number;
}

interface Row {
  /** null only for a POST that reads (nothing to refuse); `why` says so. */
  refused: Call | null;
  allowed: Call;
  why?: string;
}

/** What every row may use: users (alice owns things, mallory attacks) and makers of fresh resources. */
interface Fixture {
  alice: string;
  mallory: string;
  /** Stored as a moderator: names the moderator where a body must (purge's byuserid). */
  storedModerator: string;
  as(who: Who): Client;
  room(settings?: Record<string, unknown>): Promise<string>;
  event(roomid: string): Promise<string>;
  conversation(settings?: Record<string, unknown>): Promise<string>;
  comment(conversationid: string): Promise<string>;
  poll(): Promise<{ pollid: string; choiceid: string }>;
  hook(): Promise<string>;
  user(): Promise<string>;
}

const hookBody = (label: string) => ({ label, url: 'http://127.0.0.1:9/hook', enabled: false, type: 'postpublish', events: ['chatspeech'] });
const COMMENT = (c: string, id: string) => `comment/conversations/${c}/comments/${id}`;
const NOTIFICATIONS = (u: string) => `user/users/${u}/notification`;

const TABLE: Record<string, (f: Fixture) => Promise<Row>> = {
  // Users
  'POST user/users/:userid': async (f) => ({
    refused: { as: 'mallory', path: `user/users/${f.alice}`, body: { displayname: 'Pwned' } },
    allowed: { as: 'alice', path: `user/users/${f.alice}`, body: { displayname: 'Alice' } },
  }),
  'DELETE user/users/:userid': async (f) => ({ refused: { as: 'mallory', path: `user/users/${f.alice}` }, allowed: { as: 'server', path: `user/users/${await f.user()}` } }),
  'POST user/search': async () => ({ refused: null, why: 'a search: reads public profiles', allowed: { as: 'mallory', path: 'user/search', body: { handle: 'a' } } }),
  'POST user/users/:userid/role': async (f) => ({
    refused: { as: 'mallory', path: `user/users/${f.mallory}/role`, body: { role: 'admin' } },
    allowed: { as: 'admin', path: `user/users/${await f.user()}/role`, body: { role: 'moderator' } },
  }),
  'POST user/users/:userid/ban': async (f) => ({
    refused: { as: 'mallory', path: `user/users/${f.alice}/ban`, body: { applyeffect: true } },
    allowed: { as: 'moderator', path: `user/users/${f.alice}/ban`, body: { applyeffect: false } },
  }),
  'POST user/users/:userid/shadowban': async (f) => ({
    refused: { as: 'mallory', path: `user/users/${f.alice}/shadowban`, body: { applyeffect: true } },
    allowed: { as: 'moderator', path: `user/users/${f.alice}/shadowban`, body: { applyeffect: false } },
  }),
  'POST user/users/:userid/mute': async (f) => ({
    refused: { as: 'mallory', path: `user/users/${f.alice}/mute`, body: { applyeffect: true } },
    allowed: { as: 'moderator', path: `user/users/${f.alice}/mute`, body: { applyeffect: false } },
  }),
  'POST user/users/:userid/globalpurge': async (f) => ({
    refused: { as: 'mallory', path: `user/users/${f.alice}/globalpurge`, body: { byuserid: f.mallory } },
    allowed: { as: 'moderator', path: `user/users/${await f.user()}/globalpurge`, body: { byuserid: f.storedModerator } },
  }),
  'POST user/users/:userid/report': async (f) => ({
    refused: { as: 'mallory', path: `user/users/${f.mallory}/report`, body: { userid: f.alice, reporttype: 'abuse' } },
    allowed: { as: 'alice', path: `user/users/${f.mallory}/report`, body: { userid: f.alice, reporttype: 'abuse' } },
  }),

  // Rooms
  'POST chat/rooms': async (f) => ({
    refused: { as: 'mallory', path: 'chat/rooms', body: { name: 'not mine', ownerid: f.alice } },
    allowed: { as: 'alice', path: 'chat/rooms', body: { name: 'mine', ownerid: f.alice } },
  }),
  'POST chat/rooms/:roomid': async (f) => {
    const room = await f.room();
    return {
      refused: { as: 'mallory', path: `chat/rooms/${room}`, body: { name: 'pwned', roomisopen: false } },
      allowed: { as: 'alice', path: `chat/rooms/${room}`, body: { name: 'renamed by its owner' } },
    };
  },
  'DELETE chat/rooms/:roomid': async (f) => {
    const room = await f.room();
    return { refused: { as: 'mallory', path: `chat/rooms/${room}` }, allowed: { as: 'moderator', path: `chat/rooms/${room}` } };
  },
  'POST chat/rooms/:roomid/reset': async (f) => {
    const room = await f.room();
    return { refused: { as: 'mallory', path: `chat/rooms/${room}/reset`, body: {} }, allowed: { as: 'moderator', path: `chat/rooms/${room}/reset`, body: {} } };
  },
  'DELETE chat/rooms/:roomid/events': async (f) => {
    const room = await f.room();
    return { refused: { as: 'mallory', path: `chat/rooms/${room}/events` }, allowed: { as: 'server', path: `chat/rooms/${room}/events` } };
  },
  'POST chat/rooms/:roomid/permissions/:userid': async (f) => {
    const room = await f.room();
    return {
      refused: { as: 'mallory', path: `chat/rooms/${room}/permissions/${f.mallory}`, body: { allow: true } },
      allowed: { as: 'moderator', path: `chat/rooms/${room}/permissions/${f.mallory}`, body: { allow: true } },
    };
  },
  'POST chat/rooms/:roomid/join': async (f) => {
    const room = await f.room();
    return { refused: { as: 'mallory', path: `chat/rooms/${room}/join`, body: { userid: f.alice } }, allowed: { as: 'mallory', path: `chat/rooms/${room}/join`, body: { userid: f.mallory } } };
  },
  'POST chat/roomsbycustomid/:customid/join': async (f) => {
    const customid = uid('custom');
    await f.room({ customid });
    return {
      refused: { as: 'mallory', path: `chat/roomsbycustomid/${customid}/join`, body: { userid: f.alice } },
      allowed: { as: 'mallory', path: `chat/roomsbycustomid/${customid}/join`, body: { userid: f.mallory } },
    };
  },
  'POST chat/rooms/:roomid/exit': async (f) => {
    const room = await f.room();
    return { refused: { as: 'mallory', path: `chat/rooms/${room}/exit`, body: { userid: f.alice } }, allowed: { as: 'alice', path: `chat/rooms/${room}/exit`, body: { userid: f.alice } } };
  },
  'POST chat/rooms/:roomid/sessions/:userid/touch': async (f) => {
    const room = await f.room();
    return { refused: { as: 'mallory', path: `chat/rooms/${room}/sessions/${f.alice}/touch` }, allowed: { as: 'alice', path: `chat/rooms/${room}/sessions/${f.alice}/touch` } };
  },

  // Chat events
  'POST chat/rooms/:roomid/command': async (f) => {
    const room = await f.room();
    return {
      refused: { as: 'mallory', path: `chat/rooms/${room}/command`, body: { userid: f.alice, command: 'as alice' } },
      allowed: { as: 'mallory', path: `chat/rooms/${room}/command`, body: { userid: f.mallory, command: 'as me' } },
    };
  },
  'POST chat/rooms/:roomid/events/:eventid/reply': async (f) => {
    const room = await f.room();
    const event = await f.event(room);
    const path = `chat/rooms/${room}/events/${event}/reply`;
    return { refused: { as: 'mallory', path, body: { userid: f.alice, body: 'as alice' } }, allowed: { as: 'mallory', path, body: { userid: f.mallory, body: 'as me' } } };
  },
  'POST chat/rooms/:roomid/events/:eventid/quote': async (f) => {
    const room = await f.room();
    const event = await f.event(room);
    const path = `chat/rooms/${room}/events/${event}/quote`;
    return { refused: { as: 'mallory', path, body: { userid: f.alice, body: 'as alice' } }, allowed: { as: 'mallory', path, body: { userid: f.mallory, body: 'as me' } } };
  },
  'POST chat/rooms/:roomid/events/:eventid/react': async (f) => {
    const room = await f.room();
    const path = `chat/rooms/${room}/events/${await f.event(room)}/react`;
    return {
      refused: { as: 'mallory', path, body: { userid: f.alice, reaction: 'like', reacted: true } },
      allowed: { as: 'mallory', path, body: { userid: f.mallory, reaction: 'like', reacted: true } },
    };
  },
  'PUT chat/rooms/:roomid/events/:eventid': async (f) => {
    const room = await f.room();
    const path = `chat/rooms/${room}/events/${await f.event(room)}`;
    return { refused: { as: 'mallory', path, body: { userid: f.mallory, body: 'edited by mallory' } }, allowed: { as: 'alice', path, body: { userid: f.alice, body: 'edited by alice' } } };
  },
  'PUT chat/rooms/:roomid/events/:eventid/setdeleted': async (f) => {
    const room = await f.room();
    const event = await f.event(room);
    const path = (u: string) => `chat/rooms/${room}/events/${event}/setdeleted?userid=${u}&deleted=true`;
    return { refused: { as: 'mallory', path: path(f.mallory) }, allowed: { as: 'alice', path: path(f.alice) } };
  },
  'DELETE chat/rooms/:roomid/events/:eventid': async (f) => {
    const room = await f.room();
    const event = await f.event(room);
    return { refused: { as: 'mallory', path: `chat/rooms/${room}/events/${event}?userid=${f.mallory}` }, allowed: { as: 'alice', path: `chat/rooms/${room}/events/${event}?userid=${f.alice}` } };
  },
  'POST chat/searchevents': async () => ({ refused: null, why: 'a search: reads public events', allowed: { as: 'mallory', path: 'chat/searchevents', body: { body: 'x' } } }),

  // Chat moderation
  'POST chat/rooms/:roomid/events/:eventid/report': async (f) => {
    const room = await f.room();
    const path = `chat/rooms/${room}/events/${await f.event(room)}/report`;
    return { refused: { as: 'mallory', path, body: { userid: f.alice, reporttype: 'abuse' } }, allowed: { as: 'mallory', path, body: { userid: f.mallory, reporttype: 'abuse' } } };
  },
  'POST chat/moderation/queues/events/:eventid/applydecision': async (f) => {
    const room = await f.room({ moderation: 'pre' });
    const path = `chat/moderation/queues/events/${await f.event(room)}/applydecision`;
    return { refused: { as: 'mallory', path, body: { approve: true } }, allowed: { as: 'moderator', path, body: { approve: true } } };
  },
  'POST chat/rooms/:roomid/users/:userid/report': async (f) => {
    const room = await f.room();
    return {
      refused: { as: 'mallory', path: `chat/rooms/${room}/users/${f.mallory}/report`, body: { userid: f.alice, reporttype: 'spam' } },
      allowed: { as: 'mallory', path: `chat/rooms/${room}/users/${f.alice}/report`, body: { userid: f.mallory, reporttype: 'spam' } },
    };
  },
  'POST chat/rooms/:roomid/moderation/flaggedusers/:userid/applydecision': async (f) => {
    const room = await f.room();
    // The app's limit is one report: alice's report flags mallory.
    await f.as('server').post(`chat/rooms/${room}/users/${f.mallory}/report`, { userid: f.alice, reporttype: 'spam' });
    const path = `chat/rooms/${room}/moderation/flaggedusers/${f.mallory}/applydecision`;
    return { refused: { as: 'mallory', path, body: { approve: false } }, allowed: { as: 'moderator', path, body: { approve: false } } };
  },
  'POST chat/rooms/:roomid/bounce': async (f) => {
    const room = await f.room();
    return {
      refused: { as: 'mallory', path: `chat/rooms/${room}/bounce`, body: { userid: f.alice, bounce: true } },
      allowed: { as: 'moderator', path: `chat/rooms/${room}/bounce`, body: { userid: f.alice, bounce: true } },
    };
  },
  'POST chat/rooms/:roomid/mute': async (f) => {
    const room = await f.room();
    return {
      refused: { as: 'mallory', path: `chat/rooms/${room}/mute`, body: { userid: f.alice, applyeffect: true } },
      allowed: { as: 'moderator', path: `chat/rooms/${room}/mute`, body: { userid: f.alice, applyeffect: true } },
    };
  },
  'POST chat/rooms/:roomid/shadowban': async (f) => {
    const room = await f.room();
    return {
      refused: { as: 'mallory', path: `chat/rooms/${room}/shadowban`, body: { userid: f.alice, applyeffect: true } },
      allowed: { as: 'moderator', path: `chat/rooms/${room}/shadowban`, body: { userid: f.alice, applyeffect: true } },
    };
  },
  'POST chat/rooms/:roomid/commands/purge': async (f) => {
    const room = await f.room();
    await f.event(room);
    return {
      refused: { as: 'mallory', path: `chat/rooms/${room}/commands/purge`, body: { userid: f.alice, byuserid: f.mallory } },
      allowed: { as: 'server', path: `chat/rooms/${room}/commands/purge`, body: { userid: f.alice, byuserid: f.storedModerator } },
    };
  },

  // Polls
  'POST poll/poll/create': async () => ({
    refused: { as: 'mallory', path: 'poll/poll/create', body: { title: 'mine' } },
    allowed: { as: 'moderator', path: 'poll/poll/create', body: { title: 'official' } },
  }),
  'PUT poll/poll/:pollid/update': async (f) => {
    const { pollid } = await f.poll();
    return { refused: { as: 'mallory', path: `poll/poll/${pollid}/update`, body: { title: 'pwned' } }, allowed: { as: 'moderator', path: `poll/poll/${pollid}/update`, body: { title: 'better' } } };
  },
  'DELETE poll/poll/:pollid': async (f) => {
    const { pollid } = await f.poll();
    return { refused: { as: 'mallory', path: `poll/poll/${pollid}` }, allowed: { as: 'moderator', path: `poll/poll/${pollid}` } };
  },
  'PUT poll/poll/:pollid/reset': async (f) => {
    const { pollid } = await f.poll();
    return { refused: { as: 'mallory', path: `poll/poll/${pollid}/reset` }, allowed: { as: 'moderator', path: `poll/poll/${pollid}/reset` } };
  },
  'POST poll/poll/:pollid/choice': async (f) => {
    const { pollid } = await f.poll();
    return { refused: { as: 'mallory', path: `poll/poll/${pollid}/choice`, body: { title: 'rigged' } }, allowed: { as: 'moderator', path: `poll/poll/${pollid}/choice`, body: { title: 'another' } } };
  },
  'DELETE poll/poll/:pollid/choice/:choiceid': async (f) => {
    const { pollid, choiceid } = await f.poll();
    return { refused: { as: 'mallory', path: `poll/poll/${pollid}/choice/${choiceid}` }, allowed: { as: 'moderator', path: `poll/poll/${pollid}/choice/${choiceid}` } };
  },
  'POST poll/poll/:pollid/response': async (f) => {
    const { pollid, choiceid } = await f.poll();
    return {
      refused: { as: 'mallory', path: `poll/poll/${pollid}/response`, body: { userid: f.alice, choiceid } },
      allowed: { as: 'mallory', path: `poll/poll/${pollid}/response`, body: { userid: f.mallory, choiceid } },
    };
  },
  'POST poll/poll/:pollid/lead': async (f) => {
    const { pollid } = await f.poll();
    return {
      refused: { as: 'mallory', path: `poll/poll/${pollid}/lead`, body: { userid: f.alice, email: 'alice@example.com' } },
      allowed: { as: 'mallory', path: `poll/poll/${pollid}/lead`, body: { userid: f.mallory, email: 'mallory@example.com' } },
    };
  },

  // Telemetry
  'POST telemetry/contexts/:contextid/presence/:key/heartbeat': async (f) => {
    const path = `telemetry/contexts/${uid('ctx')}/presence/here/heartbeat`;
    return { refused: { as: 'mallory', path, body: { userid: f.alice } }, allowed: { as: 'mallory', path, body: { userid: f.mallory } } };
  },
  'POST telemetry/contexts/:contextid/metrics/:key/increment': async (f) => {
    const path = `telemetry/contexts/${uid('ctx')}/metrics/clicks/increment`;
    return { refused: { as: 'mallory', path, body: { userid: f.alice, by: 1 } }, allowed: { as: 'mallory', path, body: { userid: f.mallory, by: 1 } } };
  },
  'POST telemetry/contexts/:contextid/gauges/:key/sample': async (f) => {
    const path = `telemetry/contexts/${uid('ctx')}/gauges/volume/sample`;
    return { refused: { as: 'mallory', path, body: { userid: f.alice, value: 0.5 } }, allowed: { as: 'mallory', path, body: { userid: f.mallory, value: 0.5 } } };
  },
  'POST telemetry/contexts/:contextid/batch': async (f) => {
    const path = `telemetry/contexts/${uid('ctx')}/batch`;
    const ops = [{ op: 'heartbeat', key: 'here' }];
    return { refused: { as: 'mallory', path, body: { userid: f.alice, ops } }, allowed: { as: 'mallory', path, body: { userid: f.mallory, ops } } };
  },

  // Webhooks (application settings)
  'POST webhook/hooks': async () => ({ refused: { as: 'mallory', path: 'webhook/hooks', body: hookBody('mallory') }, allowed: { as: 'admin', path: 'webhook/hooks', body: hookBody('admin') } }),
  'PUT webhook/hooks/:webhookid': async (f) => {
    const hook = await f.hook();
    return { refused: { as: 'mallory', path: `webhook/hooks/${hook}`, body: hookBody(uid('pwned')) }, allowed: { as: 'admin', path: `webhook/hooks/${hook}`, body: hookBody(uid('changed')) } };
  },
  'DELETE webhook/hooks/:webhookid': async (f) => {
    const hook = await f.hook();
    return { refused: { as: 'mallory', path: `webhook/hooks/${hook}` }, allowed: { as: 'admin', path: `webhook/hooks/${hook}` } };
  },

  // Conversations and comments
  'POST comment/conversations': async (f) => {
    const conversationid = await f.conversation();
    const takeover = { conversationid, property: 'site', moderation: 'post', owneruserid: f.mallory, open: false };
    return {
      refused: { as: 'mallory', path: 'comment/conversations', body: takeover },
      allowed: { as: 'alice', path: 'comment/conversations', body: { conversationid, property: 'site', moderation: 'post', title: 'by its owner' } },
    };
  },
  'POST comment/conversations/:conversationid/react': async (f) => {
    const path = `comment/conversations/${await f.conversation()}/react`;
    return {
      refused: { as: 'mallory', path, body: { userid: f.alice, reaction: 'like', reacted: true } },
      allowed: { as: 'mallory', path, body: { userid: f.mallory, reaction: 'like', reacted: true } },
    };
  },
  'POST comment/conversations/:conversationid/reset': async (f) => {
    const path = `comment/conversations/${await f.conversation()}/reset`;
    return { refused: { as: 'mallory', path }, allowed: { as: 'alice', path } };
  },
  'DELETE comment/conversations/:conversationid': async (f) => {
    const path = `comment/conversations/${await f.conversation()}`;
    return { refused: { as: 'mallory', path }, allowed: { as: 'alice', path } };
  },
  'POST comment/conversations/:conversationid/comments': async (f) => {
    const path = `comment/conversations/${await f.conversation()}/comments`;
    return { refused: { as: 'mallory', path, body: { userid: f.alice, body: 'as alice' } }, allowed: { as: 'mallory', path, body: { userid: f.mallory, body: 'as me' } } };
  },
  'POST comment/conversations/:conversationid/comments/:commentid': async (f) => {
    const c = await f.conversation();
    const path = COMMENT(c, await f.comment(c));
    return { refused: { as: 'mallory', path, body: { userid: f.alice, body: 'as alice' } }, allowed: { as: 'mallory', path, body: { userid: f.mallory, body: 'as me' } } };
  },
  'PUT comment/conversations/:conversationid/comments/:commentid': async (f) => {
    const c = await f.conversation();
    const path = COMMENT(c, await f.comment(c));
    return { refused: { as: 'mallory', path, body: { userid: f.mallory, body: 'edited by mallory' } }, allowed: { as: 'alice', path, body: { userid: f.alice, body: 'edited by alice' } } };
  },
  'PUT comment/conversations/:conversationid/comments/:commentid/setdeleted': async (f) => {
    const c = await f.conversation();
    const path = `${COMMENT(c, await f.comment(c))}/setdeleted`;
    return { refused: { as: 'mallory', path: `${path}?userid=${f.mallory}&deleted=true` }, allowed: { as: 'alice', path: `${path}?userid=${f.alice}&deleted=true` } };
  },
  'DELETE comment/conversations/:conversationid/comments/:commentid': async (f) => {
    const c = await f.conversation();
    const path = COMMENT(c, await f.comment(c));
    return { refused: { as: 'mallory', path: `${path}?userid=${f.mallory}` }, allowed: { as: 'alice', path: `${path}?userid=${f.alice}` } };
  },
  'POST comment/conversations/:conversationid/comments/:commentid/vote': async (f) => {
    const c = await f.conversation();
    const path = `${COMMENT(c, await f.comment(c))}/vote`;
    return { refused: { as: 'mallory', path, body: { userid: f.alice, vote: 'up' } }, allowed: { as: 'mallory', path, body: { userid: f.mallory, vote: 'down' } } };
  },
  'POST comment/conversations/:conversationid/comments/:commentid/react': async (f) => {
    const c = await f.conversation();
    const path = `${COMMENT(c, await f.comment(c))}/react`;
    return {
      refused: { as: 'mallory', path, body: { userid: f.alice, reaction: 'like', reacted: true } },
      allowed: { as: 'mallory', path, body: { userid: f.mallory, reaction: 'like', reacted: true } },
    };
  },
  'POST comment/conversations/:conversationid/comments/:commentid/report': async (f) => {
    const c = await f.conversation();
    const path = `${COMMENT(c, await f.comment(c))}/report`;
    return { refused: { as: 'mallory', path, body: { userid: f.alice, reporttype: 'abuse' } }, allowed: { as: 'mallory', path, body: { userid: f.mallory, reporttype: 'abuse' } } };
  },
  'POST comment/moderation/queues/comments/:commentid/applydecision': async (f) => {
    const c = await f.conversation({ moderation: 'pre' });
    const path = `comment/moderation/queues/comments/${await f.comment(c)}/applydecision`;
    return { refused: { as: 'mallory', path, body: { approve: true } }, allowed: { as: 'moderator', path, body: { approve: true } } };
  },

  // Notifications: the path names the user; alice has none, so the allowed call finds nothing (404) once authorized.
  'PUT user/users/:userid/notification/notifications/:notificationid/update': async (f) => ({
    refused: { as: 'mallory', path: `${NOTIFICATIONS(f.alice)}/notifications/n1/update?read=true` },
    allowed: { as: 'alice', path: `${NOTIFICATIONS(f.alice)}/notifications/n1/update?read=true`, status: 404 },
  }),
  'DELETE user/users/:userid/notification/notifications/:notificationid': async (f) => ({
    refused: { as: 'mallory', path: `${NOTIFICATIONS(f.alice)}/notifications/n1` },
    allowed: { as: 'alice', path: `${NOTIFICATIONS(f.alice)}/notifications/n1`, status: 404 },
  }),
  'PUT user/users/:userid/notification/notificationsbyid/chateventid/:chateventid/update': async (f) => ({
    refused: { as: 'mallory', path: `${NOTIFICATIONS(f.alice)}/notificationsbyid/chateventid/e1/update?read=true` },
    allowed: { as: 'alice', path: `${NOTIFICATIONS(f.alice)}/notificationsbyid/chateventid/e1/update?read=true`, status: 404 },
  }),
  'DELETE user/users/:userid/notification/notificationsbyid/chateventid/:chateventid': async (f) => ({
    refused: { as: 'mallory', path: `${NOTIFICATIONS(f.alice)}/notificationsbyid/chateventid/e1` },
    allowed: { as: 'alice', path: `${NOTIFICATIONS(f.alice)}/notificationsbyid/chateventid/e1`, status: 404 },
  }),
  // The JS SDK's spelling of the delete by chat event (`notifications`, plural).
  'DELETE user/users/:userid/notifications/notificationsbyid/chateventid/:chateventid': async (f) => ({
    refused: { as: 'mallory', path: `user/users/${f.alice}/notifications/notificationsbyid/chateventid/e1` },
    allowed: { as: 'alice', path: `user/users/${f.alice}/notifications/notificationsbyid/chateventid/e1`, status: 404 },
  }),
  // The JS SDK reads the reported-users queue with a POST: moderation, like its GET.
  'POST user/moderation/queues/reportedusers': async () => ({
    refused: { as: 'mallory', path: 'user/moderation/queues/reportedusers', body: {} },
    allowed: { as: 'moderator', path: 'user/moderation/queues/reportedusers', body: {} },
  }),
  'PUT user/users/:userid/notification/notifications_all/markread': async (f) => ({
    refused: { as: 'mallory', path: `${NOTIFICATIONS(f.alice)}/notifications_all/markread?delete=true` },
    allowed: { as: 'alice', path: `${NOTIFICATIONS(f.alice)}/notifications_all/markread` },
  }),
};

/** The app routes that write, as a server of its own registers them. */
async function registeredWriteRoutes(): Promise<string[]> {
  const server = await startWithRouteTable();
  await server.stop();
  return server.routes.filter((r) => r.scope === 'app' && r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
}

describe('authorization matrix of every write route', () => {
  let app: TestApp;
  let fixture: Fixture;

  beforeAll(async () => {
    // A limit of one report: one report flags a user (the flagged-users decision needs one).
    app = await newApp({ userreportslimit: 1 });
    const alice = uid('alice');
    const mallory = uid('mallory');
    const storedModerator = uid('mod');
    const tokens: Record<Who, Record<string, string>> = {
      mallory: bearer(await userToken(app.jwtsecret, { userid: mallory, role: 'user' })),
      alice: bearer(await userToken(app.jwtsecret, { userid: alice, role: 'user' })),
      moderator: bearer(await userToken(app.jwtsecret, { userid: storedModerator, role: 'moderator' })),
      admin: bearer(await userToken(app.jwtsecret, { userid: uid('admin'), role: 'admin' })),
      server: {},
    };
    const server = app.api;
    for (const u of [alice, mallory, storedModerator]) expect((await server.post(`user/users/${u}`, { displayname: u })).status).toBe(200);
    expect((await server.post(`user/users/${storedModerator}/role`, { role: 'moderator' })).status).toBe(200);
    // Response data is loose JSON (see helpers/api.ts).
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const created = async (res: Promise<Response>, pick: (data: any) => string) => {
      const r = await res;
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return pick(r.body.data);
    };
    fixture = {
      alice,
      mallory,
      storedModerator,
      as: (who) => server.withHeaders(tokens[who]),
      async room(settings = {}) {
        const roomid = await created(server.post('chat/rooms', { name: uid('room'), ownerid: alice, ...settings }), (d) => d.id);
        for (const u of [alice, mallory]) await created(server.post(`chat/rooms/${roomid}/join`, { userid: u }), (d) => d.kind);
        return roomid;
      },
      event: (roomid) => created(server.post(`chat/rooms/${roomid}/command`, { userid: alice, command: `alice says ${uid()}` }), (d) => d.speech.id),
      async conversation(settings = {}) {
        const conversationid = uid('conv');
        await created(server.post('comment/conversations', { conversationid, property: 'site', moderation: 'post', owneruserid: alice, ...settings }), (d) => d.conversationid);
        return conversationid;
      },
      comment: (c) => created(server.post(`comment/conversations/${c}/comments`, { userid: alice, body: `alice writes ${uid()}` }), (d) => d.id),
      async poll() {
        const pollid = await created(server.post('poll/poll/create', { title: 'Q' }), (d) => d.id);
        const choiceid = await created(server.post(`poll/poll/${pollid}/choice`, { title: 'yes' }), (d) => d[0].id);
        return { pollid, choiceid };
      },
      hook: () => created(server.post('webhook/hooks', hookBody(uid('hook'))), (d) => d.id),
      user: async () => {
        const u = uid('someone');
        await created(server.post(`user/users/${u}`, { displayname: u }), (d) => d.userid);
        return u;
      },
    };
  });

  // Starting a second server takes a while on a busy machine.
  it('has a row for every write route the server registers, and none for a route it does not', { timeout: 120_000 }, async () => {
    const registered = await registeredWriteRoutes();
    expect(registered.length).toBeGreaterThan(60);
    expect(
      registered.filter((r) => !(r in TABLE)),
      'write routes without a row in the authorization table',
    ).toEqual([]);
    expect(
      Object.keys(TABLE).filter((r) => !registered.includes(r)),
      'rows for routes that do not exist',
    ).toEqual([]);
  });

  for (const [route, rowOf] of Object.entries(TABLE)) {
    it(route, async () => {
      const method = route.split(' ')[0] as string;
      const row = await rowOf(fixture);
      if (row.refused === null) expect(row.why).toBeTruthy();
      else {
        const refused = await fixture.as(row.refused.as).send(method, row.refused.path, row.refused.body);
        expect(refused.status, `refused: ${JSON.stringify(refused.body)}`).toBe(403);
        expect(refused.body).toMatchObject({ kind: 'api.result', code: 403 });
      }
      const allowed = await fixture.as(row.allowed.as).send(method, row.allowed.path, row.allowed.body);
      expect(allowed.status, `allowed as ${row.allowed.as}: ${JSON.stringify(allowed.body)}`).toBe(row.allowed.status ?? 200);
    });
  }
});
