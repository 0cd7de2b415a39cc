import type { BenchApp } from './app.js';

/** One post: when it was due and when (if) it was answered with 200. */
export interface PostRecord {
  dueAt: number;
  answeredAt: number | undefined;
  failed: boolean;
}

export interface PostStats {
  count: number;
  failed: number;
  p50: number;
  p99: number;
}

/** Posts due in [from, to): how many, how many failed, and p50/p99 latency (ms) of the answered ones. */
export function postStats(records: readonly PostRecord[], from: number, to: number): PostStats {
  const posts = records.filter((p) => p.dueAt >= from && p.dueAt < to);
  const latencies = posts.flatMap((p) => (p.answeredAt === undefined ? [] : [p.answeredAt - p.dueAt])).sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN);
  return { count: posts.length, failed: posts.filter((p) => p.failed).length, p50: at(0.5), p99: at(0.99) };
}

/**
 * Posts to a room at a fixed rate, open loop (post i is due at start + i / rate, whatever the
 * answers before it), each answered within `timeoutMs` or counted failed. Latency counts from
 * when a post was due.
 */
export class SteadyPoster {
  readonly posts: PostRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight = new Set<Promise<void>>();

  constructor(
    private readonly app: BenchApp,
    private readonly roomId: string,
    private readonly speakers: string[],
    private readonly rate: number,
    private readonly timeoutMs = 30_000,
  ) {}

  start(): void {
    const started = performance.now();
    let sent = 0;
    this.timer = setInterval(() => {
      const due = Math.floor(((performance.now() - started) * this.rate) / 1000);
      for (; sent < due; sent++) this.post(started + (sent * 1000) / this.rate);
    }, 5);
  }

  /** Stops posting and waits for the posts in flight. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.inFlight);
  }

  between(from: number, to: number): PostStats {
    return postStats(this.posts, from, to);
  }

  private post(dueAt: number): void {
    const record: PostRecord = { dueAt, answeredAt: undefined, failed: false };
    this.posts.push(record);
    const userid = this.speakers[this.posts.length % this.speakers.length] as string;
    const done = fetch(this.app.url(`chat/rooms/${this.roomId}/command`), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': this.app.token },
      body: JSON.stringify({ userid, command: `storm ${this.posts.length}` }),
      signal: AbortSignal.timeout(this.timeoutMs),
    })
      .then(async (res) => {
        await res.arrayBuffer();
        if (res.status === 200) record.answeredAt = performance.now();
        else record.failed = true;
      })
      .catch(() => {
        record.failed = true;
      })
      .finally(() => this.inFlight.delete(done));
    this.inFlight.add(done);
  }
}
