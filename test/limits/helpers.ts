// Response bodies are arbitrary JSON; tests read them loosely and assert on the values.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { expect } from 'vitest';
import type { Response } from '../helpers/api.js';

/** A 429 in the envelope with Retry-After and the RateLimit-* headers. */
export function expectRateLimited(res: Response, limit: number): void {
  expect(res.status, JSON.stringify(res.body)).toBe(429);
  expect(res.body).toMatchObject({ kind: 'api.result', code: 429, errors: {} });
  expect(res.body.message).toMatch(/^Too many .*Retry after \d+ s\.$/);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
  expect(res.headers.get('ratelimit-reset')).toBe(String(retryAfter));
  expect(res.body.data).toMatchObject({ retryafter: retryAfter, limit });
  expect(res.headers.get('access-control-expose-headers')).toContain('retry-after');
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `send` until it answers 429 (at most `max` times); the statuses seen before. */
export async function untilLimited(send: () => Promise<Response<any>>, max: number): Promise<{ passed: number; limited: Response<any> }> {
  for (let passed = 0; passed < max; passed++) {
    const res = await send();
    if (res.status === 429) return { passed, limited: res };
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  throw new Error(`no 429 within ${max} requests`);
}
