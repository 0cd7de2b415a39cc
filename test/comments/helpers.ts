// Response bodies are arbitrary JSON read loosely by tests, so `any` is the honest type here.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { expect } from 'vitest';
import { uid, type Client } from '../helpers/api.js';

/** Creates a conversation (post-moderated unless told otherwise) and returns its conversation object. */
export async function newConversation(api: Client, fields: Record<string, unknown> = {}): Promise<any> {
  const res = await api.post('comment/conversations', { conversationid: uid('conv'), property: 'site', moderation: 'post', ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** Posts a comment (or a reply when `parent` is given) by a user created on the fly. */
export async function postComment(api: Client, conversationid: string, fields: Record<string, unknown> = {}, parent?: string): Promise<any> {
  const path = `comment/conversations/${conversationid}/comments${parent === undefined ? '' : `/${parent}`}`;
  const res = await api.post(path, { userid: 'author', displayname: 'Author', body: 'Hello there', ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** Every page of a list, following the cursor; fails if the list does not end. */
export async function allPages(api: Client, path: string, query: string, key = 'comments'): Promise<any[]> {
  const items: any[] = [];
  let cursor = '';
  for (let page = 0; page < 10_000; page++) {
    const res = await api.get(`${path}?${query}${cursor === '' ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    items.push(...res.body.data[key]);
    expect(res.body.data.itemcount).toBe(res.body.data[key].length);
    cursor = res.body.data.cursor;
    expect(res.body.data.more).toBe(cursor !== '');
    if (cursor === '') return items;
  }
  throw new Error('list did not end');
}

/** Runs the tasks `width` at a time. */
export async function inBatches<T>(count: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let start = 0; start < count; start += width) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(width, count - start) }, (_, k) => task(start + k)))));
  }
  return out;
}
