import pg from 'pg';
import { uid, type Client, type Response } from '../helpers/api.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';

/** What the load writes to: one room (enter events on), a message every fan likes, a comment conversation, a poll, and a postpublish hook. */
export interface Scene {
  api: Client;
  roomid: string;
  /** The message every fan likes. */
  liked: string;
  conversationid: string;
  pollid: string;
  choices: string[];
  receiver: Receiver;
}

/**
 * The receiver runs in the test process, busy sending the load: on a slow machine some first
 * attempts outlast their budget. They are retried; the hook must not be disabled meanwhile.
 */
export const PATIENT_WEBHOOKS = { WEBHOOK_FAILURE_LIMIT: '1000000' };

export const HOOKED_EVENTS = ['chatspeech', 'chatenter', 'chatreaction', 'commentpublished'] as const;

export async function setUpScene(api: Client): Promise<Scene> {
  const receiver = await startReceiver(() => 200);
  const hook = await api.post('webhook/hooks', { label: 'load', url: receiver.url, enabled: true, type: 'postpublish', events: HOOKED_EVENTS });
  const room = await api.post('chat/rooms', { name: uid('room'), enableenterandexit: true, enableprofanityfilter: false });
  const roomid = room.body.data.id as string;
  const host = uid('host');
  await api.post(`chat/rooms/${roomid}/join`, { userid: host, displayname: 'Host' });
  const liked = (await api.post(`chat/rooms/${roomid}/command`, { userid: host, command: 'Kick-off!' })).body.data.speech.id as string;
  const conversationid = uid('conv');
  const conversation = await api.post('comment/conversations', { conversationid, property: 'match', moderation: 'post' });
  const poll = await api.post('poll/poll/create', { title: 'Player of the match' });
  const pollid = poll.body.data.id as string;
  const added = await api.post(`poll/poll/${pollid}/choice`, { choices: [{ title: 'A' }, { title: 'B' }, { title: 'C' }] });
  for (const r of [hook, room, conversation, poll, added]) if (r.status !== 200) throw new Error(`setting up the scene: ${r.status} ${JSON.stringify(r.body)}`);
  return { api, roomid, liked, conversationid, pollid, choices: added.body.data.map((c: { id: string }) => c.id), receiver };
}

export type WriteKind = 'join' | 'post' | 'like' | 'comment' | 'vote';

/** One answered write: what, its status, how long it took, and the id it acknowledged. */
export interface Answer {
  kind: WriteKind;
  status: number;
  retryAfter: string | null;
  ms: number;
  at: number;
  /** The written object's id (a join: the user id; a vote: the user id), when acknowledged. */
  id?: string;
  /** The envelope's message, when not acknowledged. */
  message?: string;
}

/** A request that got no answer (its fetch failed or timed out). */
export interface NoAnswer {
  kind: WriteKind;
  error: string;
  ms: number;
}

export class LoadLog {
  readonly answers: Answer[] = [];
  readonly failures: NoAnswer[] = [];

  acked(kind: WriteKind): string[] {
    return this.answers.filter((a) => a.kind === kind && a.status === 200).map((a) => a.id as string);
  }

  statuses(): Record<number, number> {
    const counts: Record<number, number> = {};
    for (const a of this.answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
    return counts;
  }
}

/**
 * One fan's visit: joins, posts `posts` messages, likes the kick-off message, comments, votes.
 * Every answer is logged; the visit ends at the first write not acknowledged (what follows
 * would depend on it).
 */
export async function fanVisit(scene: Scene, log: LoadLog, posts: number, timeoutMs: number): Promise<void> {
  const { api, roomid } = scene;
  const userid = uid('fan');
  const steps: [WriteKind, () => Promise<Response>, (r: Response) => string][] = [
    ['join', () => api.post(`chat/rooms/${roomid}/join`, { userid, handle: userid, displayname: 'Fan' }), () => userid],
    ...Array.from({ length: posts }, (_, i): [WriteKind, () => Promise<Response>, (r: Response) => string] => [
      'post',
      () => api.post(`chat/rooms/${roomid}/command`, { userid, command: `goal ${i} from ${userid}` }),
      (r) => r.body.data.speech.id,
    ]),
    ['like', () => api.post(`chat/rooms/${roomid}/events/${scene.liked}/react`, { userid, reaction: 'like', reacted: true }), (r) => r.body.data.id],
    ['comment', () => api.post(`comment/conversations/${scene.conversationid}/comments`, { userid, displayname: 'Fan', body: `what a match, says ${userid}` }), (r) => r.body.data.id],
    ['vote', () => api.post(`poll/poll/${scene.pollid}/response`, { userid, choiceid: scene.choices[userid.length % scene.choices.length] }), () => userid],
  ];
  for (const [kind, send, idOf] of steps) {
    const started = Date.now();
    let response: Response;
    try {
      response = await withTimeout(send(), timeoutMs);
    } catch (err) {
      log.failures.push({ kind, error: (err as Error).message, ms: Date.now() - started });
      return;
    }
    const answer: Answer = { kind, status: response.status, retryAfter: response.headers.get('retry-after'), ms: Date.now() - started, at: started };
    if (response.status === 200) answer.id = idOf(response);
    else answer.message = response.body?.message;
    log.answers.push(answer);
    if (response.status !== 200) return;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Every acknowledged write whose postpublish webhook has not arrived (deliveries deduplicated by webhook event id). */
export function undelivered(scene: Scene, log: LoadLog): string[] {
  const seen = new Map<string, Set<string>>();
  for (const r of scene.receiver.received) {
    const key = r.body.type === 'chatenter' ? String(r.body.data['userid']) : String(r.body.data['id']);
    if (!seen.has(r.body.type)) seen.set(r.body.type, new Set());
    seen.get(r.body.type)?.add(key);
  }
  const expected: [string, WriteKind][] = [
    ['chatenter', 'join'],
    ['chatspeech', 'post'],
    ['chatreaction', 'like'],
    ['commentpublished', 'comment'],
  ];
  return expected.flatMap(([type, kind]) =>
    log
      .acked(kind)
      .filter((id) => !seen.get(type)?.has(id))
      .map((id) => `${type} ${id}`),
  );
}

/** Undelivered writes counted by webhook type, with one example each. */
export function missingSummary(missing: string[]): Record<string, string> {
  const byType: Record<string, string> = {};
  for (const m of missing) {
    const [type, id] = m.split(' ') as [string, string];
    byType[type] = `${missing.filter((x) => x.startsWith(`${type} `)).length} (e.g. ${id})`;
  }
  return byType;
}

/** Webhook event ids delivered more than once (allowed: delivery is at least once; reported). */
export function redeliveries(scene: Scene): number {
  const ids = scene.receiver.received.map((r) => r.body.id);
  return ids.length - new Set(ids).size;
}

/** Per kind of write: acknowledged writes missing from the database, and writes stored more than once. */
export interface ReadBack {
  lost: Record<WriteKind, number>;
  duplicated: Record<WriteKind, number>;
}

/** Reads every acknowledged write back from the database at `databaseUrl` (after a failover: the new primary). */
export async function readBack(databaseUrl: string, scene: Scene, log: LoadLog): Promise<ReadBack> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const count = async (text: string, values: unknown[]) => Number((await client.query<{ n: string }>(`select count(*) as n from (${text}) x`, values)).rows[0]?.n);
    const { roomid, pollid } = scene;
    const appid = scene.api.appid;
    const found = async (kind: WriteKind, text: string, extra: unknown[]) => log.acked(kind).length - (await count(text, [...extra, log.acked(kind)]));
    return {
      lost: {
        join: await found('join', 'select user_id from chat_participants where room_id = $1 and user_id = any($2)', [roomid]),
        post: await found('post', 'select id from chat_events where id = any($1)', []),
        like: await found('like', 'select id from chat_events where id = any($1)', []),
        comment: await found('comment', 'select id from comments where id = any($1)', []),
        vote: await found('vote', 'select distinct user_id from poll_responses where poll_id = $1 and user_id = any($2)', [pollid]),
      },
      // Every fan's writes differ (the body names the fan and the message's number): a repeat is a write stored twice.
      duplicated: {
        join: 0,
        post: await count("select 1 from chat_events where room_id = $1 and event_type = 'speech' group by user_id, body having count(*) > 1", [roomid]),
        like: await count("select 1 from chat_events where room_id = $1 and event_type = 'reaction' group by user_id having count(*) > 1", [roomid]),
        comment: await count('select 1 from comments where app_id = $1 group by user_id, body having count(*) > 1', [appid]),
        vote: await count('select 1 from poll_responses where poll_id = $1 group by user_id having count(*) > 1', [pollid]),
      },
    };
  } finally {
    await client.end();
  }
}
