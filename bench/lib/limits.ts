import type { BenchApp } from './app.js';

/**
 * What the benches say about the server's rate limits: the defaults, unless this process's
 * environment (which spawnServer passes on) overrides some.
 */
export function rateLimitNote(): string {
  const overrides = Object.entries(process.env).filter(([name]) => name === 'RATE_LIMITS' || name.startsWith('RATE_LIMIT_'));
  if (overrides.length === 0) return 'rate limits: the defaults (load spread over many users)';
  return `rate limits: the defaults but ${overrides.map(([name, value]) => `${name}=${value}`).join(' ')} (from the environment)`;
}

/**
 * `count` users joined to the room. Posting round-robin over them keeps each well inside the
 * default per-user chat budget (RATE_LIMIT_CHAT, 30 per 10 s) up to count × 3 messages/s.
 */
export async function joinSpeakers(app: BenchApp, roomid: string, count: number): Promise<string[]> {
  const users = Array.from({ length: count }, (_, i) => `speaker${i}`);
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < users.length) {
        const userid = users[next++] as string;
        await app.call('POST', `chat/rooms/${roomid}/join`, { userid, displayname: userid });
      }
    }),
  );
  return users;
}
