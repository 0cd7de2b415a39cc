/**
 * Ceiling for bench/ws-fanout.ts: bare uWS doing only the fan-out, in our protocol's shape.
 * A socket gets `{"type":"ready"}`, subscribes with any `subscribe` frame, and
 * `POST /publish` publishes the posted text in an event frame padded to FRAME_BYTES (the size
 * of one of our chat.event frames). No auth, no storage, no JSON parsing.
 *
 * With COMPRESS=shared it accepts permessage-deflate (uWS's SHARED_COMPRESSOR, no memory per
 * socket) and publishes compressed: what compressing every live frame would cost (bench/wire.ts).
 *
 *   PORT=4000 FRAME_BYTES=1200 tsx bench/uws-fanout-server.ts
 */
import * as uws from 'uWebSockets.js';

// The typings declare the compressor constants as types only; the module exports their values.
const { App, DISABLED, SHARED_COMPRESSOR } = uws as unknown as typeof uws & Record<'DISABLED' | 'SHARED_COMPRESSOR', uws.CompressOptions>;

const port = Number(process.env['PORT'] ?? 4000);
const frameBytes = Number(process.env['FRAME_BYTES'] ?? 1200);
const TOPIC = 'bench';
const compress = process.env['COMPRESS'] === 'shared';

const app = App()
  .ws('/*', {
    compression: compress ? SHARED_COMPRESSOR : DISABLED,
    open: (ws) => void ws.send('{"type":"ready"}'),
    message: (ws) => {
      ws.subscribe(TOPIC);
      ws.send('{"type":"subscribed"}');
    },
  })
  .post('/publish', (res) => {
    let body = '';
    res.onAborted(() => undefined);
    res.onData((chunk, isLast) => {
      body += Buffer.from(chunk).toString();
      if (!isLast) return;
      const head = `{"type":"event","data":${JSON.stringify(body)},"pad":"`;
      app.publish(TOPIC, `${head}${'x'.repeat(Math.max(0, frameBytes - head.length - 2))}"}`, false, compress);
      res.cork(() => res.end('{"ok":true}'));
    });
  })
  .get('/', (res) => void res.end('ok'));

app.listen('127.0.0.1', port, (socket) => {
  if (!socket) process.exit(1);
});
process.on('SIGTERM', () => process.exit(0));
