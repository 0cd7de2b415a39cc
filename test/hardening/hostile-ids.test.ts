import { beforeAll, describe, expect, it } from 'vitest';
import { aFewAtATime } from '../helpers/a-few-at-a-time.js';
import { baseUrl, newApp, type TestApp } from '../helpers/api.js';
import { MANAGE_TOKEN } from '../helpers/spawn.js';
import { connect } from '../realtime/ws-client.js';

/** Thousands of requests: on a shared machine they take a while. */
const FUZZ_MS = 300_000;

/**
 * One corpus of hostile ids (NUL, control characters, overlong and otherwise invalid UTF-8, lone
 * surrogates, 48-64 KB) put in every place an id goes: each path parameter of every route, each
 * query parameter, each id field of a body, and the id of every topic kind on the event stream
 * and the WebSocket. Ids are checked in one place, the same way everywhere: what no store can
 * hold is a 400 naming the field; what is merely odd reaches the route and gets its ordinary
 * answer; nothing is a 5xx. The routes come from the server's own OpenAPI document.
 */

/** Percent-encoded forms refused wherever they come: they hold NUL, or their escapes are no UTF-8 text. */
const REFUSED = ['%00', 'a%00b', '%C0%AF', '%C0%80', '%E0%80%AF', '%ED%A0%80', '%FF', '%zz', '%'];
/** Odd but storable: they reach the route, which answers as it does for any unknown id. */
const ODD = ['%01', 'a%0Ab', '%1B%5B31m', '%7F', '%C2%85', '%E2%80%AE', '%20', 'x'.repeat(300)];
/** Past the request line's 16 KB (uWS itself cuts the header section at 64 KB). */
const HUGE = 'x'.repeat(48 * 1024);

/** JSON string escapes refused in a body field, and odd ones accepted. */
const BODY_REFUSED = ['\u0000', 'a\u0000b', '\ud800', 'x\udfffy'];
const BODY_ODD = ['\u0001', 'a\nb', '\u001b[31m', '\u007f', '\u202e', 'x'.repeat(64 * 1024)];

const TOPIC_KINDS = ['room', 'conversation', 'poll', 'context', 'user'];

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodyIds: string[];
}

interface Answer {
  status: number;
  text: string;
  contentType: string;
}

let app: TestApp;
let operations: Operation[];

beforeAll(async () => {
  app = await newApp();
  const doc = (await (await fetch(`${baseUrl()}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> } }>>;
  };
  operations = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const params = op.parameters ?? [];
      const fields = Object.keys(op.requestBody?.content['application/json']?.schema.properties ?? {});
      operations.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        bodyIds: fields.filter((f) => /ids?$/.test(f)),
      });
    }
  }
});

function urlOf(op: Operation, replace: Record<string, string> = {}, query = ''): string {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => replace[name] ?? (name === 'appid' ? app.appid : 'some-id'));
  return `${baseUrl()}${path}${query === '' ? '' : `?${query}`}`;
}

function headersOf(op: Operation): Record<string, string> {
  return op.path.startsWith('/api/v3/manage/') ? { 'x-manage-token': MANAGE_TOKEN } : { 'x-api-token': app.token };
}

async function send(method: string, url: string, headers: Record<string, string>, body?: string | Blob): Promise<Answer> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: res.status, text: await res.text(), contentType: res.headers.get('content-type') ?? '' };
}

/** Runs `jobs` a few at a time; returns each job's problem, if any. */
async function pool(jobs: (() => Promise<string | undefined>)[], concurrency = 12): Promise<string[]> {
  const problems: string[] = [];
  await aFewAtATime(jobs, concurrency, async (job) => {
    const problem = await job();
    if (problem !== undefined) problems.push(problem);
  });
  return problems;
}

/** An answer in the envelope, below 500; with `field`, a 400 whose errors name that field. */
function check(what: string, answer: Answer, field?: string): string | undefined {
  if (answer.status >= 500) return `${what}: ${answer.status} ${answer.text.slice(0, 200)}`;
  if (answer.status === 204) return undefined;
  let body: { code?: number; errors?: Record<string, string> };
  try {
    body = JSON.parse(answer.text) as typeof body;
  } catch {
    return `${what}: not the envelope (${answer.contentType}): ${answer.text.slice(0, 200)}`;
  }
  if (body.code !== answer.status) return `${what}: envelope code ${body.code} on status ${answer.status}`;
  if (field !== undefined && (answer.status !== 400 || body.errors?.[field] === undefined)) return `${what}: expected 400 naming ${field}, got ${answer.status} ${answer.text.slice(0, 200)}`;
  return undefined;
}

describe('hostile ids on every route', () => {
  it(
    'path parameters: refused forms are a 400 naming the parameter (before any credential is looked at), odd ones get the route answer, 48 KB a 431',
    async () => {
      const jobs: (() => Promise<string | undefined>)[] = [];
      for (const op of operations) {
        const last = op.pathParams.at(-1);
        for (const param of op.pathParams) {
          // The whole corpus on the object's own id; a NUL, an overlong form, an encoded surrogate and a broken escape on the others.
          for (const bad of param === last ? REFUSED : ['a%00b', '%C0%AF', '%ED%A0%80', '%zz']) {
            // No credentials at all: the id is refused before the token is looked up.
            jobs.push(async () => check(`${op.method} ${op.path} ${param}=${bad}`, await send(op.method, urlOf(op, { [param]: bad }), {}, op.method === 'GET' ? undefined : '{}'), param));
          }
        }
        // Odd ids reach the route, with credentials, on the object's own id: its store looks them up.
        if (last === undefined) continue;
        for (const odd of ODD)
          jobs.push(async () => check(`${op.method} ${op.path} ${last}=${odd}`, await send(op.method, urlOf(op, { [last]: odd }), headersOf(op), op.method === 'GET' ? undefined : '{}')));
      }
      expect(jobs.length).toBeGreaterThan(500);
      expect(await pool(jobs)).toEqual([]);
      const huge = await send('GET', urlOf({ method: 'GET', path: '/api/v3/{appid}/chat/rooms/{roomid}', pathParams: [], queryParams: [], bodyIds: [] }, { roomid: HUGE }), {});
      expect(huge.status).toBe(431);
      expect(JSON.parse(huge.text).code).toBe(431);
    },
    FUZZ_MS,
  );

  it(
    'query parameters: refused forms are a 400 naming the parameter, odd ones get the route answer',
    async () => {
      const jobs: (() => Promise<string | undefined>)[] = [];
      for (const op of operations) {
        op.queryParams.forEach((param, index) => {
          for (const bad of REFUSED)
            jobs.push(async () =>
              check(`${op.method} ${op.path}?${param}=${bad}`, await send(op.method, urlOf(op, {}, `${param}=${bad}`), headersOf(op), op.method === 'GET' ? undefined : '{}'), param),
            );
          if (index > 0) return;
          for (const odd of ODD)
            jobs.push(async () => check(`${op.method} ${op.path}?${param}=${odd}`, await send(op.method, urlOf(op, {}, `${param}=${odd}`), headersOf(op), op.method === 'GET' ? undefined : '{}')));
        });
      }
      expect(jobs.length).toBeGreaterThan(100);
      expect(await pool(jobs)).toEqual([]);
    },
    FUZZ_MS,
  );

  it(
    'body ids: NUL and lone surrogates are a 400 naming the field, invalid UTF-8 a 400 naming the body, control characters and 64 KB values no 5xx',
    async () => {
      const jobs: (() => Promise<string | undefined>)[] = [];
      for (const op of operations) {
        if (op.method === 'GET') continue;
        for (const field of op.bodyIds) {
          for (const bad of BODY_REFUSED) jobs.push(async () => check(`${op.method} ${op.path} ${field}`, await send(op.method, urlOf(op), headersOf(op), JSON.stringify({ [field]: bad })), field));
          for (const odd of BODY_ODD) jobs.push(async () => check(`${op.method} ${op.path} ${field}`, await send(op.method, urlOf(op), headersOf(op), JSON.stringify({ [field]: odd }))));
        }
        const field = op.bodyIds[0] ?? 'userid';
        // An overlong "/" (C0 AF) as raw bytes: no UTF-8 text, refused rather than read as U+FFFD.
        const overlong = new Blob([`{"${field}":"a`, new Uint8Array([0xc0, 0xaf]), '"}']);
        jobs.push(async () => check(`${op.method} ${op.path} overlong body`, await send(op.method, urlOf(op), headersOf(op), overlong), 'body'));
      }
      expect(jobs.length).toBeGreaterThan(300);
      expect(await pool(jobs)).toEqual([]);
    },
    FUZZ_MS,
  );

  it('event-stream topics of every kind: refused ids are a 400 naming topic, odd ones the topic answer, 48 KB a 431', async () => {
    const problems: string[] = [];
    const open = async (query: string) => {
      const abort = new AbortController();
      const res = await fetch(`${baseUrl()}/api/v3/${app.appid}/sse?token=${app.token}&${query}`, { signal: abort.signal });
      const answer: Answer = { status: res.status, contentType: res.headers.get('content-type') ?? '', text: res.status === 200 ? '' : await res.text() };
      abort.abort();
      return answer;
    };
    for (const kind of TOPIC_KINDS) {
      for (const bad of REFUSED) {
        const problem = check(`sse ${kind}:${bad}`, await open(`topic=${kind}:${bad}`), 'topic');
        if (problem !== undefined) problems.push(problem);
      }
      for (const odd of ODD) {
        const answer = await open(`topic=${kind}:${odd}`);
        // A stream that opens (a context needs no object) is no error; anything else is in the envelope.
        const problem = answer.status === 200 ? undefined : check(`sse ${kind}:${odd}`, answer);
        if (problem !== undefined) problems.push(problem);
      }
    }
    expect(problems).toEqual([]);
    const huge = await open(`topic=room:${HUGE}`);
    expect(huge.status).toBe(431);
    expect(JSON.parse(huge.text).code).toBe(431);
  });

  it('WebSocket topics of every kind: NUL and lone surrogates are bad frames, odd ids the topic answer, never internal', async () => {
    const ws = await connect(baseUrl(), app.appid, app.token);
    try {
      for (const kind of TOPIC_KINDS) {
        for (const bad of ['\u0000', 'a\u0000b', '\ud800']) {
          const from = ws.frames.length;
          // JSON.stringify writes a lone surrogate as its escape: the frame itself is valid UTF-8.
          ws.send({ type: 'subscribe', topic: `${kind}:${bad}` });
          expect(await ws.next((f) => f['type'] === 'error', 5000, from)).toMatchObject({ code: 'bad_frame' });
        }
        for (const odd of ['\u0001', 'a\nb', '\u007f', '\u202e', 'x'.repeat(300)]) {
          const from = ws.frames.length;
          ws.send({ type: 'subscribe', topic: `${kind}:${odd}` });
          const answer = await ws.next((f) => f['type'] === 'subscribed' || f['type'] === 'error', 5000, from);
          expect(answer['code'] ?? answer['type'], `${kind}:${JSON.stringify(odd)}`).not.toBe('internal');
        }
      }
    } finally {
      ws.close();
    }
  });
});
