import type { EventMeta } from '../../client/dist/index.js';
import type { Client } from '../helpers/api.js';

/** What a subscription handed over, in order, and what is wrong with it. */
export class Received {
  readonly events: { data: { id: string; body?: string }; meta: EventMeta }[] = [];

  readonly onEvent = (data: unknown, meta: EventMeta) => {
    this.events.push({ data: data as { id: string }, meta });
  };

  ids(): string[] {
    return this.events.map((e) => e.data.id);
  }

  /** Events handed over more than once (same id and seq). */
  repeats(): number {
    const seen = new Set<string>();
    let repeats = 0;
    for (const { data, meta } of this.events) {
      const key = `${data.id}/${meta.seq ?? ''}`;
      if (seen.has(key)) repeats++;
      seen.add(key);
    }
    return repeats;
  }

  /** Events whose seq is not above the one before (among those that carry one). */
  outOfOrder(): number {
    let last = -1;
    let wrong = 0;
    for (const { meta } of this.events) {
      if (meta.seq === undefined) continue;
      if (meta.seq <= last) wrong++;
      last = meta.seq;
    }
    return wrong;
  }
}

/** The room's feed after `cursor`, as REST `updates` pages give it: the order every client must see. */
export async function feedAfter(api: Client, roomid: string, cursor: string): Promise<string[]> {
  const ids: string[] = [];
  for (let more = true; more; ) {
    const page = (await api.get(`chat/rooms/${roomid}/updates?limit=500&cursor=${encodeURIComponent(cursor)}`)).body.data;
    ids.push(...(page.events as { id: string }[]).map((e) => e.id));
    cursor = page.cursor;
    more = page.more;
  }
  return ids;
}

/** Items missing from `got` that `expected` has (a gap), by count. */
export function gaps(expected: string[], got: string[]): number {
  const have = new Set(got);
  return expected.filter((id) => !have.has(id)).length;
}

/** Posts `count` messages (bodies `{prefix}{i}`) from `users`, `concurrency` at a time; resolves once all are answered 200. */
export async function post(api: Client, roomid: string, users: string[], prefix: string, count: number, concurrency = 16): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const res = await api.post(`chat/rooms/${roomid}/command`, { userid: users[i % users.length], command: `${prefix}${i}` });
      if (res.status !== 200) throw new Error(`post ${i}: ${res.status} ${JSON.stringify(res.body)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export async function until(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
