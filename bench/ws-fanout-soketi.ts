import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { NODE_FLAGS } from '../test/helpers/spawn.js';
import { freePort } from '../test/helpers/free-port.js';
import type { Dialect } from './ws-fanout-clients.js';
import { COLLECTABLE, stopChild, type Target, waitForHttp } from './ws-fanout-targets.js';

const ROOT = new URL('..', import.meta.url).pathname;
const APP = { id: 'bench', key: 'bench-key', secret: 'bench-secret' };
const CHANNEL = 'bench';
/** The pushed event's name: one letter, so a delivery is recognised by two bytes. */
const EVENT = 'm';
/** Every frame Soketi pushes is padded to the size of one of our chat event frames, as the bare uWS ceiling's is. */
const FRAME_BYTES = Number(process.env['FRAME_BYTES'] ?? 1200);

/** The Pusher protocol: subscribe to a public channel once the connection is established; answer its pings. */
export const pusherDialect: Dialect = {
  ready(ws, text) {
    if (text.startsWith('{"event":"pusher:connection_established"')) ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel: CHANNEL } }));
    return text.startsWith('{"event":"pusher_internal:subscription_succeeded"');
  },
  // `{"event":"m",`: bytes 10 and 11 are `m` `"`.
  isDelivery: (frame) => frame[10] === 0x6d && frame[11] === 0x22,
  keepAlive(ws, frame) {
    if (!frame.subarray(0, 24).toString().startsWith('{"event":"pusher:ping"')) return false;
    ws.send('{"event":"pusher:pong","data":{}}');
    return true;
  },
};

/**
 * Pusher's HTTP API signature: the body's MD5 and an HMAC-SHA256, with the app secret, of the
 * method, the path and the sorted query (https://pusher.com/docs/channels/library_auth_reference/rest-api/).
 */
export function signedEventsPath(body: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const path = `/apps/${APP.id}/events`;
  const query = `auth_key=${APP.key}&auth_timestamp=${timestamp}&auth_version=1.0&body_md5=${createHash('md5').update(body).digest('hex')}`;
  const signature = createHmac('sha256', APP.secret).update(`POST\n${path}\n${query}`).digest('hex');
  return `${path}?${query}&auth_signature=${signature}`;
}

/** The event for `text`, its data padded so the frame Soketi pushes is FRAME_BYTES long. */
function event(text: string): { name: string; channels: string[]; data: string } {
  const frame = JSON.stringify({ event: EVENT, channel: CHANNEL, data: text });
  return { name: EVENT, channels: [CHANNEL], data: `${text} ${'x'.repeat(Math.max(0, FRAME_BYTES - frame.length - 1))}` };
}

/**
 * Soketi (`@soketi/soketi`, the uWebSockets.js-based Pusher-protocol server), one node or several
 * over Redis with its Redis adapter. It loads our uWS build through bench/soketi/uws-require.cjs.
 * It keeps no messages: a publish is only fanned out.
 */
export async function soketiTarget(nodes: number, redisUrl: string | undefined): Promise<Target> {
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  for (let i = 0; i < nodes; i++) {
    const port = await freePort();
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      SOKETI_HOST: '127.0.0.1',
      SOKETI_PORT: String(port),
      SOKETI_METRICS_SERVER_PORT: String(await freePort()),
      SOKETI_DEFAULT_APP_ID: APP.id,
      SOKETI_DEFAULT_APP_KEY: APP.key,
      SOKETI_DEFAULT_APP_SECRET: APP.secret,
    };
    if (nodes > 1 && redisUrl !== undefined) {
      const redis = new URL(redisUrl);
      Object.assign(env, { SOKETI_ADAPTER_DRIVER: 'redis', SOKETI_DB_REDIS_HOST: redis.hostname, SOKETI_DB_REDIS_PORT: redis.port });
    }
    const args = [...NODE_FLAGS, ...COLLECTABLE, '--require', './bench/soketi/uws-require.cjs', 'node_modules/@soketi/soketi/bin/server.js', 'start'];
    children.push(spawn(process.execPath, args, { cwd: ROOT, env, stdio: 'ignore' }));
    ports.push(port);
    await waitForHttp(`http://127.0.0.1:${port}/ready`);
  }
  const base = `http://127.0.0.1:${ports[0]}`;
  return {
    name: `soketi ${nodes} node${nodes > 1 ? 's (redis adapter)' : ''}`,
    pids: children.map((c) => c.pid as number),
    urls: ports.map((p) => `ws://127.0.0.1:${p}/app/${APP.key}?protocol=7&client=js&version=8.4.0`),
    dialect: pusherDialect,
    post: async (text) => {
      const body = JSON.stringify(event(text));
      const res = await fetch(`${base}${signedEventsPath(body)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      // On our uWS build Soketi answers a refusal with status 200 (its CORS headers go out first) and the code in the body.
      const answer = (await res.json()) as { ok?: boolean; code?: number };
      return answer.ok === true ? res.status : (answer.code ?? 500);
    },
    stop: async () => {
      await Promise.all(children.map(stopChild));
    },
  };
}
