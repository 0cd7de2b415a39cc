import { fork } from 'node:child_process';
import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in a process of its own that can cut the network: `cut()` resets every connection
 * through it and refuses new ones (the port is closed) until `restore()`. The fans of a benchmark
 * connect through it; posts go to the server directly.
 */
export interface CutProxy {
  port: number;
  pid: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  stop(): Promise<void>;
}

type Command = 'cut' | 'restore';

/** Starts the proxy's process, forwarding to 127.0.0.1:`targetPort`. */
export async function startCutProxy(targetPort: number): Promise<CutProxy> {
  const child = fork(new URL(import.meta.url).pathname, [String(targetPort)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = () => new Promise<unknown>((resolve) => child.once('message', resolve));
  const { port } = (await next()) as { port: number };
  const ask = async (command: Command) => {
    const answered = next();
    child.send(command);
    await answered;
  };
  return { port, pid: child.pid as number, cut: () => ask('cut'), restore: () => ask('restore'), stop: async () => void child.kill() };
}

function serve(targetPort: number): void {
  const open = new Set<Socket>();
  let port = 0;
  const server: Server = createServer({ noDelay: true }, (client) => {
    const upstream = connect({ port: targetPort, host: '127.0.0.1', noDelay: true });
    open.add(client);
    open.add(upstream);
    const drop = () => {
      for (const s of [client, upstream]) {
        open.delete(s);
        if (!s.destroyed) s.resetAndDestroy();
      }
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.listen(0, '127.0.0.1', () => {
    port = (server.address() as { port: number }).port;
    process.send?.({ port });
  });
  process.on('message', (command: Command) => {
    if (command === 'cut') {
      server.close();
      for (const s of open) s.resetAndDestroy();
      open.clear();
      process.send?.('done');
    } else server.listen(port, '127.0.0.1', () => process.send?.('done'));
  });
  process.on('disconnect', () => process.exit(0));
}

if (process.argv[1] === new URL(import.meta.url).pathname) serve(Number(process.argv[2]));
