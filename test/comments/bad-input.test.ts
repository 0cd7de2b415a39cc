import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, type Client } from '../helpers/api.js';
import { newConversation, postComment } from './helpers.js';

let api: Client;
let conv: string;
let comment: { id: string };
beforeAll(async () => {
  ({ api } = await newApp());
  conv = (await newConversation(api)).conversationid;
  comment = await postComment(api, conv);
});

const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('bad input gets a 4xx naming the field, never a 500', () => {
  it('in bodies', async () => {
    const cases: [string, string, Record<string, unknown>, string][] = [
      ['POST', `comment/conversations/${conv}/comments`, { userid: 'a', displayname: 'A', body: 'nul \u0000 here' }, 'body'],
      ['POST', `comment/conversations/${conv}/comments`, { userid: 'a', displayname: 'A', body: 'x', customtags: ['ok', 'bad\u0000'] }, 'customtags'],
      ['POST', `comment/conversations/${conv}/comments`, { userid: 'a', displayname: 'A', body: 'x', added: '-000001-01-01T00:00:00Z' }, 'added'],
      ['POST', `comment/conversations/${conv}/comments`, { userid: 'a', displayname: 'A', body: 'x', customfield1: 'x'.repeat(1025) }, 'customfield1'],
      ['POST', `comment/conversations/${conv}/comments`, { userid: { nested: true }, body: 'x' }, 'userid'],
      ['POST', 'comment/conversations', { conversationid: conv, property: 'p\u0000', moderation: 'post' }, 'property'],
      ['POST', 'comment/conversations', { conversationid: conv, property: 'p', moderation: 'post', maxreports: -1 }, 'maxreports'],
      ['POST', 'comment/conversations', { conversationid: conv, property: 'p', moderation: 'post', open: 'maybe' }, 'open'],
      ['POST', `comment/conversations/${conv}/comments/${comment.id}/vote`, { userid: 'author', vote: 7 }, 'vote'],
      ['POST', `comment/conversations/${conv}/comments/${comment.id}/react`, { userid: 'author', reaction: 'like', reacted: 'perhaps' }, 'reacted'],
      ['PUT', `comment/conversations/${conv}/comments/${comment.id}`, { userid: 'author', body: '\u0000' }, 'body'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await api.send(method, path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors[field], JSON.stringify(res.body)).toBeDefined();
    }
    expect((await api.send('POST', `comment/conversations/${conv}/comments`, '{"userid": "a", ')).status).toBe(400);
  });

  it('in paths, queries and cursors', async () => {
    const nulInPath: [string, string, unknown, string][] = [
      ['GET', 'comment/conversations/bad%00id/comments', undefined, 'conversationid'],
      ['GET', `comment/conversations/${conv}/comments/x%00y`, undefined, 'commentid'],
      ['POST', 'comment/moderation/queues/comments/x%00y/applydecision', { approve: true }, 'commentid'],
    ];
    for (const [method, path, body, param] of nulInPath) {
      const res = await api.send(method, path, body);
      expect(res.status, path).toBe(400);
      expect(res.body.errors, path).toEqual({ [param]: 'must not contain NUL characters' });
    }
    expect((await api.get(`comment/conversations/details/batch?ids=a%00b`)).status).toBe(400);
    expect((await api.get(`comment/conversations/${conv}/repliesbyparentidbatch?parentids=%00`)).status).toBe(400);
    const base = `comment/conversations/${conv}/comments`;
    for (const bad of [cursor({ a: '2020', i: 'x' }), cursor({ a: '2020-01-01T00:00:00.000Z', i: 'x\u0000' }), cursor({ o: 1e18 }), cursor({ o: -1 }), 'not-base64!!', cursor('string')]) {
      const time = await api.get(`${base}?sort=newest&cursor=${encodeURIComponent(bad)}`);
      expect(time.status, bad).toBe(400);
      expect(time.body.errors.cursor).toBeDefined();
      expect((await api.get(`${base}?sort=likes&cursor=${encodeURIComponent(bad)}`)).status, bad).toBe(400);
    }
    expect((await api.get(`comment/conversations?cursor=${cursor({ added: 'yesterday', key: 'k' })}`)).status).toBe(400);
    expect((await api.get(`${base}?limit=0`)).body.errors.limit).toBeDefined();
    expect((await api.get(`${base}?includechildren=sometimes`)).body.errors.includechildren).toBeDefined();
    expect((await api.put(`comment/conversations/${conv}/comments/${comment.id}/setdeleted?userid=author&deleted=true&permanentifnoreplies=kinda`)).body.errors.permanentifnoreplies).toBeDefined();
  });
});
