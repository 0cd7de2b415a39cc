import { describe, expect, it } from 'vitest';
import { CompactDecoder, type Dictionary, Table } from '../../client/src/compact.js';
import { batchRefs } from '../../src/realtime/compact/refs.js';
import { Shapes } from '../../src/realtime/compact/shapes.js';
import { CompactWriter } from '../../src/realtime/compact/writer.js';
import { EVENT_SHAPE } from '../../src/chat/views.js';
import { USER_SHAPE } from '../../src/users/views.js';

/**
 * The server's writer and engage-client's reader of compact objects, on what REST never returns
 * but a shape must survive: fields missing or extra, values a rule cannot write, objects of no
 * shape or no kind, the same object again and changed. Whatever goes in comes back deep-equal.
 */
const shapes = new Shapes({ entries: () => [['room', { carries: { kind: 'chat.event', cursorKey: 'u' }, doc: { events: ['chat.event'] } }]] }, 500);
shapes.register('app.user', USER_SHAPE);
shapes.register('chat.event', EVENT_SHAPE);
const writer = new CompactWriter(shapes);
const dictionary = JSON.parse(shapes.dictionary().json) as Dictionary;
const where = { topicId: 'room-1', appId: 'app-1' };

const user = (userid: string, extra: Record<string, unknown> = {}) => ({
  kind: 'app.user',
  userid,
  handle: `Handle_${userid}`,
  handlelowercase: `handle_${userid}`,
  displayname: `Handle_${userid}`,
  pictureurl: `https://cdn.example.com/avatars/${userid}.jpg`,
  profileurl: '',
  role: 'user',
  customtags: [],
  banned: false,
  banexpires: null,
  shadowbanned: false,
  shadowbanexpires: null,
  muted: false,
  muteexpires: null,
  reports: [],
  added: '2026-11-29T00:36:41.526Z',
  whenmodified: '2026-11-29T00:36:41.526Z',
  ...extra,
});

const event = (id: string, author: ReturnType<typeof user> | null, extra: Record<string, unknown> = {}) => ({
  kind: 'chat.event',
  id,
  roomid: 'room-1',
  body: 'a #goal for @ann',
  originalbody: 'a #goal for @ann',
  added: '2026-11-29T00:36:42.212Z',
  whenmodified: '2026-11-29T00:36:42.212Z',
  ts: Date.parse('2026-11-29T00:36:42.212Z'),
  eventtype: 'speech',
  userid: author?.userid ?? null,
  user: author,
  customtype: '',
  customid: null,
  custompayload: '',
  customfield1: '',
  customfield2: '',
  customtags: [],
  replyto: null,
  parentid: null,
  hierarchy: [],
  edited: false,
  deleted: false,
  active: true,
  shadowban: false,
  mutedby: [],
  hashtags: ['#goal'],
  likecount: 0,
  replycount: 0,
  reactions: [],
  moderation: 'na',
  reports: [],
  ...extra,
});

/** Writes the values as one batch and reads them back. */
function roundTrip(values: unknown[]): { written: unknown[]; read: unknown[] } {
  const refs = batchRefs();
  const written = JSON.parse(JSON.stringify(values.map((v) => writer.value(v, 'chat.event', where, refs)))) as unknown[];
  const decoder = new CompactDecoder(dictionary);
  const table = new Table();
  return { written, read: written.map((w) => decoder.value(w, 'chat.event', where, table)) };
}

describe('compact objects, written and read back', () => {
  it('rebuild fields at their default and derived ones, and leave them out of what is written', () => {
    const ann = user('ann');
    const value = event('01a224bb-9264-792a-bd51-dcf1336a4afa', ann, { ts: 0x01a224bb9264 });
    const { written, read } = roundTrip([value]);
    expect(read).toEqual([value]);
    // Its number (`#`) is written as the batch has no seq to give it.
    expect(Object.keys(written[0] as object).sort()).toEqual(['#', 'U', 'b', 'i']);
  });

  it('keep what a rule cannot write: a field missing, one beyond the shape, an id that is no UUID, a time that is no ISO text, a derived field that differs', () => {
    const odd = event('not-a-uuid', user('bob', { added: 'yesterday', extra: { nested: [1, 2] } }), { originalbody: 'before the edit', hashtags: ['#other'], surprise: 42 });
    delete (odd as Record<string, unknown>)['moderation'];
    const { written, read } = roundTrip([odd]);
    expect(read).toEqual([odd]);
    expect(written[0]).toMatchObject({ '+': { id: 'not-a-uuid', surprise: 42 }, '-': ['moderation'], o: 'before the edit', ht: ['#other'] });
  });

  it('pass objects of no shape as they are, and wrap those of no kind', () => {
    const values = [event('01a224bb-9264-792a-bd51-dcf1336a4afb', null, { replyto: { kind: 'no.such.kind', a: 1 } }), { kind: 'poll.standings', pollid: 'p' }, { plain: true }, 'text', 7, null];
    const { read } = roundTrip(values);
    expect(read).toEqual(values);
  });

  it('send an object with an identity whole once, then by number unchanged, then as its changes; a field that went missing sends it whole again', () => {
    const ann = user('ann');
    const renamed = user('ann', { displayname: 'Ann, renamed', whenmodified: '2026-11-29T01:00:00.000Z' });
    const gone = user('ann');
    delete (gone as Record<string, unknown>)['reports'];
    const values = [
      event('01a224bb-9264-792a-bd51-dcf1336a4a01', ann),
      event('01a224bb-9264-792a-bd51-dcf1336a4a02', ann),
      event('01a224bb-9264-792a-bd51-dcf1336a4a03', renamed),
      event('01a224bb-9264-792a-bd51-dcf1336a4a04', gone),
    ];
    const { written, read } = roundTrip(values);
    expect(read).toEqual(values);
    const users = written.map((w) => (w as { U: unknown }).U);
    expect(users[0]).toMatchObject({ '#': expect.any(Number), u: 'ann' });
    expect(users[1]).toEqual(expect.any(Number));
    expect(users[2]).toEqual({ '^': expect.any(Number), d: 'Ann, renamed', w: '2026-11-29T01:00:00.000Z' });
    expect(users[3]).toMatchObject({ '#': expect.any(Number), '-': ['reports'] });
  });

  it('give a URL prefix once, then by number; a short one, or an empty URL, stays as it is', () => {
    const values = [user('a1'), user('a2'), user('a3', { pictureurl: 'x/y.jpg', profileurl: 'https://example.com/u/a3' })].map((u, i) => event(`01a224bb-9264-792a-bd51-dcf1336a4a1${i}`, u));
    const { written, read } = roundTrip(values);
    expect(read).toEqual(values);
    const pictures = written.map((w) => (w as { U: { p: unknown } }).U.p);
    expect(pictures[0]).toEqual([{ '#': expect.any(Number), s: 'https://cdn.example.com/avatars/' }, 'a1.jpg']);
    expect(pictures[1]).toEqual([expect.any(Number), 'a2.jpg']);
    expect(pictures[2]).toBe('x/y.jpg');
  });
});
