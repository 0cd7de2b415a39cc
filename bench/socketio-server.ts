/**
 * Baseline for bench/ws-fanout.ts: a Socket.IO 4 server doing the same fan-out as ours.
 * A socket joins the room named in its handshake query (`?room=`); `POST /rooms/{room}/messages`
 * with a JSON body emits that body to the room (`io.to(room).emit('message', body)`), across
 * nodes through @socket.io/redis-adapter when REDIS_URL is set. Nothing is stored.
 *
 *   PORT=4000 [REDIS_URL=redis://127.0.0.1:6379] tsx bench/socketio-server.ts
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createAdapter } from '@socket.io/redis-adapter';
import { Redis } from 'ioredis';
import { Server } from 'socket.io';
import { createLogger } from '../src/logger.js';

const log = createLogger(process.env['LOG_LEVEL'] ?? 'info');
const port = Number(process.env['PORT'] ?? 4000);
const redisUrl = process.env['REDIS_URL'];

const http = createServer((req, res) => {
  const match = /^\/rooms\/([^/]+)\/messages$/.exec(req.url ?? '');
  if (req.method !== 'POST' || match === null) return reply(res, 404, { error: 'not found' });
  readJson(req).then(
    (body) => {
      io.to(decodeURIComponent(match[1] as string)).emit('message', body);
      reply(res, 200, { ok: true });
    },
    () => reply(res, 400, { error: 'body must be JSON' }),
  );
});

const io = new Server(http, { transports: ['websocket'], serveClient: false });
if (redisUrl !== undefined) {
  const pub = new Redis(redisUrl);
  const sub = pub.duplicate();
  io.adapter(createAdapter(pub, sub));
}
io.on('connection', (socket) => {
  const room = socket.handshake.query['room'];
  if (typeof room === 'string') void socket.join(room);
});

http.listen(port, '127.0.0.1', () => log.info({ port, redis: redisUrl !== undefined }, 'socket.io baseline listening'));
process.on('SIGTERM', () => {
  io.close();
  log.flush(() => process.exit(0));
});

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(parts).toString('utf8')));
      } catch (err) {
        reject(err);
      }
    });
    req.on('error', reject);
  });
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
