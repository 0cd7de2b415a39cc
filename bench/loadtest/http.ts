import { Pool } from 'undici';
import { Samples } from '../ws-fanout-stats.js';

/** What went wrong with one request: its kind, the HTTP status (0: no answer) and the envelope's message. */
export interface Failure {
  kind: string;
  status: number;
  message: string;
}

/** Latency and errors of the measured requests, per kind (join, post, like, …). */
export class RequestStats {
  readonly latency = new Samples(5_000_000);
  readonly byKind = new Map<string, { requests: number; errors: number; latency: Samples }>();
  readonly failures: Failure[] = [];
  requests = 0;
  errors = 0;
  /** Answers 429: the load outran a budget the tester meant to stay inside. */
  rateLimited = 0;
  /** Requests that got no answer (status 0: refused, reset): an error, and no latency (a refusal is quick, not fast). */
  refused = 0;

  record(kind: string, ms: number, failure: Failure | undefined): void {
    let entry = this.byKind.get(kind);
    if (entry === undefined) {
      entry = { requests: 0, errors: 0, latency: new Samples(1_000_000) };
      this.byKind.set(kind, entry);
    }
    this.requests++;
    entry.requests++;
    if (failure?.status === 0) this.refused++;
    else {
      this.latency.add(ms);
      entry.latency.add(ms);
    }
    if (failure === undefined) return;
    this.errors++;
    entry.errors++;
    if (failure.status === 429) this.rateLimited++;
    if (this.failures.length < 20) this.failures.push(failure);
  }
}

/** An answer: status and the envelope's `data` (undefined when the body was not the envelope). */
export interface Answer<T> {
  status: number;
  data: T | undefined;
  message: string;
}

/**
 * The API of one application on every node given: requests go to the node a fan is bound to
 * (`node`), over a keep-alive pool per node; `inFlight` caps the requests open at once.
 */
export class Api {
  private readonly pools: Pool[];
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly urls: string[],
    readonly appid: string,
    readonly token: string,
    private readonly maxInFlight: number,
  ) {
    this.pools = urls.map((u) => new Pool(u, { connections: Math.max(1, Math.ceil(maxInFlight / urls.length)) + 4, pipelining: 1 }));
  }

  get nodes(): number {
    return this.urls.length;
  }

  /** One request, waiting for a free slot first. */
  async call<T>(node: number, method: string, path: string, body?: unknown): Promise<Answer<T>> {
    // A finished request hands its slot straight to the next waiting one.
    if (this.inFlight >= this.maxInFlight) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.inFlight++;
    try {
      const pool = this.pools[node % this.pools.length] as Pool;
      const res = await pool.request({
        method: method as 'GET',
        path: `/api/v3/${this.appid}/${path}`,
        headers: { 'content-type': 'application/json', 'x-api-token': this.token },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.body.text();
      try {
        const envelope = JSON.parse(text) as { data: T; message: string };
        return { status: res.statusCode, data: envelope.data, message: envelope.message };
      } catch {
        return { status: res.statusCode, data: undefined, message: text.slice(0, 200) };
      }
    } catch (error) {
      return { status: 0, data: undefined, message: (error as Error).message };
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.inFlight--;
      else next();
    }
  }

  /** A request that must succeed (setup and read-back): throws with the server's answer otherwise. */
  async must<T>(node: number, method: string, path: string, body?: unknown): Promise<T> {
    const answer = await this.call<T>(node, method, path, body);
    if (answer.status !== 200 || answer.data === undefined) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.message}`);
    return answer.data;
  }

  async close(): Promise<void> {
    await Promise.all(this.pools.map((p) => p.close()));
  }
}

/** Creates an application and a server token through the manage API of the first node. */
export async function createApp(url: string, manageToken: string): Promise<{ appid: string; token: string }> {
  const manage = async <T>(path: string, body: unknown): Promise<T> => {
    const res = await fetch(`${url}/api/v3/manage/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-manage-token': manageToken }, body: JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`manage/${path} answered ${res.status}: ${text}`);
    return (JSON.parse(text) as { data: T }).data;
  };
  const { appid } = await manage<{ appid: string }>('createapplication', { name: `loadtest ${new Date().toISOString()}` });
  const { token } = await manage<{ token: string }>('createtoken', { applicationid: appid, name: 'loadtest', scope: 'server' });
  return { appid, token };
}
