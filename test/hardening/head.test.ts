import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, newApp, uid, type TestApp } from '../helpers/api.js';
import { MANAGE_TOKEN } from '../helpers/spawn.js';

/**
 * HEAD is answered as GET would be, without a body (RFC 9110 §9.3.2), on every GET route: those
 * of the route table (from the OpenAPI document) and those served beside it (documents, metrics,
 * console, event streams, the WebSocket path). Everything goes through one kept-alive connection:
 * a body sent to HEAD would be read as the start of the next response, and Node's client would
 * fail on it.
 */

interface Exchange {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  reused: boolean;
}

let app: TestApp;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const sockets = new Set<Socket>();

function exchange(method: string, path: string, headers: Record<string, string> = {}): Promise<Exchange> {
  const { hostname, port } = new URL(baseUrl());
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), reused: req.reusedSocket }));
      res.on('error', reject);
    });
    req.on('socket', (socket: Socket) => sockets.add(socket));
    req.on('error', reject);
    req.end();
  });
}

let getPaths: { path: string; headers: Record<string, string> }[];
let roomid: string;

beforeAll(async () => {
  app = await newApp();
  roomid = (await app.api.post('chat/rooms', { name: uid('head') })).body.data.id as string;
  const doc = (await (await fetch(`${baseUrl()}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const token = { 'x-api-token': app.token };
  getPaths = Object.entries(doc.paths)
    .filter(([, ops]) => 'get' in ops)
    .map(([path]) => ({
      path: path
        .replace('{appid}', app.appid)
        .replace('{roomid}', roomid)
        .replace(/\{\w+\}/g, 'some-id'),
      headers: path.startsWith('/api/v3/manage/') ? { 'x-manage-token': MANAGE_TOKEN } : token,
    }));
  for (const path of [
    '/openapi.json',
    '/asyncapi.json',
    '/docs',
    '/docs/init.js',
    '/docs/swagger-ui.css',
    '/docs/nothing-here.js',
    '/metrics',
    '/console',
    '/console/',
    '/console/missing.js',
    `/api/v3/${app.appid}/ws`,
  ]) {
    getPaths.push({ path, headers: {} });
  }
  getPaths.push({ path: `/api/v3/${app.appid}/sse?topic=room:no-such-room`, headers: token });
  getPaths.push({ path: `/api/v3/${app.appid}/sse?topic=room:a%00b`, headers: token });
  getPaths.push({ path: `/api/v3/${app.appid}/sse?topic=room:${roomid}`, headers: {} });
});

afterAll(() => agent.destroy());

describe('HEAD', () => {
  it('answers every GET route as GET does, without a body, on one kept-alive connection', async () => {
    expect(getPaths.length).toBeGreaterThan(50);
    sockets.clear();
    const mismatches: string[] = [];
    for (const { path, headers } of getPaths) {
      const head = await exchange('HEAD', path, headers);
      const get = await exchange('GET', path, headers);
      if (head.body.length !== 0) mismatches.push(`${path}: HEAD sent ${head.body.length} body bytes`);
      if (head.status !== get.status) mismatches.push(`${path}: HEAD ${head.status}, GET ${get.status}`);
      if (head.headers['content-type'] !== get.headers['content-type']) mismatches.push(`${path}: content-type ${head.headers['content-type']} vs ${get.headers['content-type']}`);
    }
    expect(mismatches).toEqual([]);
    // Every answer was read whole, with nothing left over: the connection served all of them.
    expect(sockets.size).toBe(1);
  });

  it('tells the length GET would send for a fixed answer', async () => {
    for (const path of ['/healthz', '/openapi.json', '/asyncapi.json', '/docs/init.js']) {
      const head = await exchange('HEAD', path);
      const get = await exchange('GET', path);
      expect(head.status, path).toBe(200);
      expect(Number(head.headers['content-length']), path).toBe(get.body.length);
    }
  });

  it('checks an event stream as GET would and answers with its headers only', async () => {
    const opened = await exchange('HEAD', `/api/v3/${app.appid}/sse?topic=room:${roomid}&token=${app.token}`);
    expect(opened.status).toBe(200);
    expect(opened.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(opened.body.length).toBe(0);
    const next = await exchange('GET', '/healthz');
    expect(next.status).toBe(200);
    expect(next.reused).toBe(true);
  });

  it('sends no body with its refusals: unknown path, a path without GET (405 with Allow), a GET route refusing the method', async () => {
    const unknown = await exchange('HEAD', '/no/such/path');
    expect(unknown.status).toBe(404);
    expect(unknown.body.length).toBe(0);
    const postOnly = await exchange('HEAD', `/api/v3/${app.appid}/chat/rooms/${roomid}/join`, { 'x-api-token': app.token });
    expect(postOnly.status).toBe(405);
    expect(postOnly.headers['allow']).toBe('POST');
    expect(postOnly.body.length).toBe(0);
    const getOnly = await exchange('PATCH', '/healthz');
    expect(getOnly.status).toBe(405);
    expect(getOnly.headers['allow']).toBe('GET, HEAD');
    const after = await exchange('GET', '/healthz');
    expect(after.status).toBe(200);
    expect(after.reused).toBe(true);
  });
});
