import { type ChildProcess, fork } from 'node:child_process';
import { benchClient } from './app.js';
import { type PostRecord, type PostStats, postStats, SteadyPoster } from './steady-poster.js';

export interface PosterSetup {
  base: string;
  appid: string;
  token: string;
  roomId: string;
  speakers: string[];
  rate: number;
}

type Reply = 'started' | PostRecord[];

/**
 * A SteadyPoster in a process of its own: the latency it measures is the server's, not the wait
 * of a load generator whose loop is busy taking in a thousand fans' frames. Its records come back
 * on the caller's clock (performance.now()).
 */
export class PosterProcess {
  posts: PostRecord[] = [];

  private constructor(private readonly child: ChildProcess) {}

  static async start(setup: PosterSetup): Promise<PosterProcess> {
    const child = fork(new URL(import.meta.url).pathname, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const poster = new PosterProcess(child);
    const started = poster.next();
    child.send(setup);
    await started;
    return poster;
  }

  /** Stops posting once the posts in flight are answered, and takes the records. */
  async stop(): Promise<void> {
    const records = this.next();
    this.child.send('stop');
    const epoch = (await records) as PostRecord[];
    const mine = (at: number) => at - performance.timeOrigin;
    this.posts = epoch.map((p) => ({ ...p, dueAt: mine(p.dueAt), answeredAt: p.answeredAt === undefined ? undefined : mine(p.answeredAt) }));
    this.child.kill();
  }

  between(from: number, to: number): PostStats {
    return postStats(this.posts, from, to);
  }

  private next(): Promise<Reply> {
    return new Promise((resolve) => this.child.once('message', (m) => resolve(m as Reply)));
  }
}

function serve(): void {
  let poster: SteadyPoster | undefined;
  process.on('message', async (message: PosterSetup | 'stop') => {
    if (message !== 'stop') {
      poster = new SteadyPoster(benchClient(message.base, message.appid, message.token), message.roomId, message.speakers, message.rate);
      poster.start();
      process.send?.('started');
      return;
    }
    await poster?.stop();
    const epoch = (at: number) => at + performance.timeOrigin;
    process.send?.((poster?.posts ?? []).map((p) => ({ ...p, dueAt: epoch(p.dueAt), answeredAt: p.answeredAt === undefined ? undefined : epoch(p.answeredAt) })));
  });
  process.on('disconnect', () => process.exit(0));
}

if (process.argv[1] === new URL(import.meta.url).pathname) serve();
