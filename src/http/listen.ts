import type { TemplatedApp, us_listen_socket } from 'uWebSockets.js';

/** uSockets' LIBUS_LISTEN_EXCLUSIVE_PORT: the package's typings declare it as an enum its runtime does not export, and its runtime's own name is not in the typings. */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;

/** The native listen with host, port and options, which the typings only declare without the host. */
type ListenWithOptions = (host: string, port: number, options: number, callback: (socket: us_listen_socket | false) => void) => TemplatedApp;

/**
 * Listens on host:port alone. By default uWebSockets.js sets SO_REUSEPORT, so a second server started on a port
 * already in use would share it silently and the kernel would split connections between two stores; exclusive,
 * the second one gets `false` (and the server refuses to start) instead.
 */
export function listenExclusively(app: TemplatedApp, host: string, port: number, callback: (socket: us_listen_socket | false) => void): void {
  (app.listen as unknown as ListenWithOptions).call(app, host, port, LIBUS_LISTEN_EXCLUSIVE_PORT, callback);
}
