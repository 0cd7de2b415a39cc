import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { expect } from 'vitest';
import { EMBEDDED_OPTIONS } from '../../src/db/embedded.js';
import { Client, uid, type TestApp } from '../helpers/api.js';
import { MANAGE_TOKEN } from '../helpers/spawn.js';

const ROOT = new URL('../..', import.meta.url).pathname;

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npm run restore` or `npm run move` as an operator would (the built command), with `env` over this process's. */
export function runCommand(command: 'restore' | 'move', args: string[], env: Record<string, string | undefined> = {}): Promise<CommandResult> {
  return new Promise((resolve) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
    for (const [name, value] of Object.entries(env)) if (value === undefined) delete childEnv[name];
    execFile(process.execPath, [`dist/cli/${command}.js`, ...args], { cwd: ROOT, env: childEnv, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
    });
  });
}

/** A new, empty directory path (not created) for an embedded restore or move target. */
export function targetDir(): string {
  const parent = mkdtempSync(join(tmpdir(), 'engage-restore-'));
  return join(parent, 'data');
}

/** Downloads a backup from the server at `base` into a file; the answer's status and the file. */
export async function downloadBackup(base: string): Promise<{ status: number; file: string; bytes: number }> {
  const res = await fetch(`${base}/api/v3/manage/backups`, { method: 'POST', headers: { 'x-manage-token': MANAGE_TOKEN } });
  const body = Buffer.from(await res.arrayBuffer());
  const file = join(mkdtempSync(join(tmpdir(), 'engage-backup-')), 'backup.sql.gz');
  writeFileSync(file, body);
  return { status: res.status, file, bytes: body.length };
}

/** Rows of every table of the schema, read straight from the database at `where` (an embedded one must be stopped; none there: no tables). */
export async function tableCounts(where: { dir: string } | { url: string }): Promise<Record<string, number>> {
  const tablesSql = `select quote_ident(relname) as name from pg_class where relnamespace = 'public'::regnamespace and relkind = 'r' order by relname`;
  const counts: Record<string, number> = {};
  if ('url' in where) {
    const client = new pg.Client({ connectionString: where.url });
    await client.connect();
    try {
      for (const { name } of (await client.query<{ name: string }>(tablesSql)).rows) counts[name] = Number((await client.query(`select count(*) as n from ${name}`)).rows[0].n);
    } finally {
      await client.end();
    }
    return counts;
  }
  // Opening a directory with no database would make one.
  if (!existsSync(join(where.dir, 'PG_VERSION'))) return counts;
  const db = new PGlite(where.dir, EMBEDDED_OPTIONS);
  try {
    for (const { name } of (await db.query<{ name: string }>(tablesSql)).rows) counts[name] = Number((await db.query<{ n: number }>(`select count(*) as n from ${name}`)).rows[0]?.n);
  } finally {
    await db.close();
  }
  return counts;
}

/** What a directory holds, to show it unchanged. */
export const listing = (dir: string) => readdirSync(dir).sort();

export function removeAll(...paths: (string | undefined)[]): void {
  for (const path of paths) if (path !== undefined) rmSync(path, { recursive: true, force: true });
}

async function ok(response: Promise<{ status: number; body: { data: unknown } }>, what: string): Promise<any> {
  const res = await response;
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** What `fill` made, to check on the other side of a restore or a move. */
export interface Filled {
  roomid: string;
  users: string[];
  /** The room's feed cursor before anything was posted. */
  start: string;
  conversationid: string;
  pollid: string;
}

/**
 * Rows of every kind the issue names, made through the API: users, a room with posts, a reply,
 * reactions, a report and a moderation effect, a comment conversation with comments, a reply
 * (a notification), votes and reactions, a poll with choices and responses, and an enabled
 * webhook to an address nobody answers, whose deliveries stay undelivered.
 */
export async function fill(app: TestApp): Promise<Filled> {
  const api = app.api;
  const users = [uid('fan'), uid('fan'), uid('fan')];
  for (const userid of users) await ok(api.post(`user/users/${userid}`, { handle: userid, displayname: `Fan ${userid}` }), 'user');
  await ok(api.post('webhook/hooks', { label: uid('hook'), url: 'http://127.0.0.1:9/hook', enabled: true, type: 'postpublish', events: ['chatspeech', 'commentpublished'] }), 'webhook');
  const roomid = (await ok(api.post('chat/rooms', { name: uid('room') }), 'room')).id as string;
  for (const userid of users) await ok(api.post(`chat/rooms/${roomid}/join`, { userid }), 'join');
  const start = (await ok(api.get(`chat/rooms/${roomid}/updates`), 'updates')).cursor as string;
  const events: string[] = [];
  for (let i = 0; i < 12; i++) events.push((await ok(api.post(`chat/rooms/${roomid}/command`, { userid: users[i % 3], command: `message ${i}` }), 'post')).speech.id);
  await ok(api.post(`chat/rooms/${roomid}/events/${events[0]}/reply`, { userid: users[1], body: `@${users[0]} a reply` }), 'reply');
  await ok(api.post(`chat/rooms/${roomid}/events/${events[1]}/react`, { userid: users[2], reaction: 'like', reacted: true }), 'react');
  await ok(api.post(`chat/rooms/${roomid}/events/${events[2]}/report`, { userid: users[0], reporttype: 'abuse' }), 'report');
  await ok(api.post(`chat/rooms/${roomid}/users/${users[2]}/report`, { userid: users[0], reporttype: 'abuse' }), 'user report');
  const conversationid = uid('conversation');
  await ok(api.post('comment/conversations', { conversationid, property: 'site', moderation: 'post', owneruserid: users[0] }), 'conversation');
  const comment = (await ok(api.post(`comment/conversations/${conversationid}/comments`, { userid: users[0], body: 'first comment' }), 'comment')).id as string;
  await ok(api.post(`comment/conversations/${conversationid}/comments/${comment}`, { userid: users[1], body: 'a reply to it' }), 'comment reply');
  await ok(api.post(`comment/conversations/${conversationid}/comments/${comment}/vote`, { userid: users[2], vote: 'up' }), 'vote');
  await ok(api.post(`comment/conversations/${conversationid}/comments/${comment}/react`, { userid: users[1], reaction: 'like', reacted: true }), 'comment react');
  await ok(api.post(`comment/conversations/${conversationid}/comments/${comment}/report`, { userid: users[2], reporttype: 'abuse' }), 'comment report');
  await ok(api.post(`comment/conversations/${conversationid}/react`, { userid: users[2], reaction: 'like', reacted: true }), 'conversation react');
  const pollid = (await ok(api.post('poll/poll/create', { title: 'Who wins?' }), 'poll')).id as string;
  const choices = (await ok(api.post(`poll/poll/${pollid}/choice`, { choices: [{ title: 'Home' }, { title: 'Away' }] }), 'choices')) as { id: string }[];
  await ok(api.post(`poll/poll/${pollid}/response`, { userid: users[1], choiceid: choices[0]?.id }), 'poll response');
  await ok(api.post(`poll/poll/${pollid}/lead`, { userid: users[2], email: 'fan@example.com' }), 'lead');
  return { roomid, users, start, conversationid, pollid };
}

/** Every table the issue names holds rows: a fill that leaves one empty proves nothing about it. */
export function expectEveryKindFilled(counts: Record<string, number>): void {
  const kinds = [
    'applications',
    'api_tokens',
    'users',
    'chat_rooms',
    'chat_events',
    'chat_reactions',
    'chat_event_reports',
    'comment_conversations',
    'comments',
    'comment_votes',
    'comment_reactions',
    'polls',
    'poll_choices',
    'poll_responses',
    'notifications',
    'webhooks',
    'webhook_outbox',
  ];
  expect(kinds.filter((k) => !((counts[k] ?? 0) > 0))).toEqual([]);
}

/** The same application on another server (its tokens are the same rows). */
export const sameApp = (app: TestApp, base: string): TestApp => ({ ...app, api: new Client(base, app.appid, app.token) });

/** Every `updates` page of the room from `cursor` on, as the server sends it (bytes, not parsed). */
export async function updatesPages(base: string, app: TestApp, roomid: string, cursor: string, limit = 5): Promise<string[]> {
  const pages: string[] = [];
  for (let more = true; more; ) {
    const res = await fetch(`${base}/api/v3/${app.appid}/chat/rooms/${roomid}/updates?limit=${limit}&cursor=${encodeURIComponent(cursor)}`, { headers: { 'x-api-token': app.token } });
    const text = await res.text();
    pages.push(text);
    const data = JSON.parse(text).data as { cursor: string; more: boolean };
    cursor = data.cursor;
    more = data.more;
  }
  return pages;
}

/** Where two lists of pages first differ (for a readable failure), or undefined when they are the same. */
export function firstDifference(a: string[], b: string[]): string | undefined {
  if (a.length !== b.length) return `${a.length} pages against ${b.length}`;
  for (const [i, page] of a.entries()) {
    const other = b[i] as string;
    if (page === other) continue;
    let at = 0;
    while (page[at] === other[at]) at++;
    return `page ${i}, at ${at}: …${page.slice(Math.max(0, at - 80), at + 80)}… against …${other.slice(Math.max(0, at - 80), at + 80)}…`;
  }
  return undefined;
}
