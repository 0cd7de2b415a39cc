import { paced } from './paced.js';
import { withProgress } from './progress.js';
import autocannon from 'autocannon';

export interface LoadResult {
  /** Requests answered (any status). */
  answered: number;
  requestsPerSec: number;
  p50: number;
  p90: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  /** A fixed body, or one per request. */
  body?: string;
  /** Bodies sent in turn, across all connections (e.g. one per user). */
  bodies?: string[];
  requests?: autocannon.Request[];
  /** The path of each request, asked as it is sent (the url's path otherwise): reads of a different object each. */
  nextPath?: () => string;
  connections?: number;
  pipelining?: number;
  durationSeconds?: number;
  /** Stop after this many requests (before `durationSeconds` runs out). */
  amount?: number;
  /** Requests per second across all connections, evenly paced (for latency at a fixed rate; see paced.ts). */
  overallRate?: number;
}

function inTurn(bodies: string[]): autocannon.Request[] {
  let next = 0;
  return [{ setupRequest: (req) => ({ ...req, body: bodies[next++ % bodies.length] }) }];
}

function pathsOf(nextPath: () => string): autocannon.Request[] {
  return [{ setupRequest: (req) => ({ ...req, path: nextPath() }) }];
}

function requestsOf(options: LoadOptions): autocannon.Request[] | undefined {
  if (options.bodies !== undefined) return inTurn(options.bodies);
  if (options.nextPath !== undefined) return pathsOf(options.nextPath);
  return options.requests;
}

/** Runs autocannon (or, at a fixed rate, the paced generator) and reduces its result to the figures the notes quote. */
export function load(options: LoadOptions): Promise<LoadResult> {
  const label = `${options.method ?? 'GET'} …/${new URL(options.url).pathname.split('/').at(-1)}${options.overallRate === undefined ? '' : ` at ${options.overallRate}/s`}`;
  return withProgress(label, options.durationSeconds ?? 10, () => run(options));
}

async function run(options: LoadOptions): Promise<LoadResult> {
  if (options.overallRate !== undefined) {
    if (options.requests !== undefined || options.nextPath !== undefined) throw new Error('a paced load sends prebuilt requests: give body or bodies');
    return paced({ ...options, overallRate: options.overallRate });
  }
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: options.body,
    requests: requestsOf(options),
    connections: options.connections ?? 64,
    pipelining: options.pipelining ?? 1,
    duration: options.durationSeconds ?? 10,
    ...(options.amount === undefined ? {} : { amount: options.amount }),
  });
  return {
    answered: result.requests.total,
    requestsPerSec: Math.round(result.requests.average),
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}
