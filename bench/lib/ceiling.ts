import { App, us_listen_socket_close, us_socket_local_port, type us_listen_socket } from 'uWebSockets.js';

const BODY = JSON.stringify({ kind: 'api.result', message: '', code: 200, errors: {}, data: { kind: 'ceiling', ok: true } });

/**
 * The machine's ceiling for a JSON endpoint: uWS answering a constant envelope, no parsing, no
 * storage. Benchmarks report their figures as a ratio of this, measured in the same run.
 */
export async function startCeiling(): Promise<{ url: string; stop: () => void }> {
  const app = App()
    .get('/*', (res) => {
      res.cork(() => res.writeHeader('content-type', 'application/json').end(BODY));
    })
    .post('/*', (res) => {
      res.onAborted(() => undefined);
      res.onData((_chunk, isLast) => {
        if (isLast) res.cork(() => res.writeHeader('content-type', 'application/json').end(BODY));
      });
    });
  const socket = await new Promise<us_listen_socket>((resolve, reject) => app.listen('127.0.0.1', 0, (s) => (s ? resolve(s) : reject(new Error('listen failed')))));
  return { url: `http://127.0.0.1:${us_socket_local_port(socket)}`, stop: () => us_listen_socket_close(socket) };
}
