import type { BenchApp } from './app.js';
import { grown, type StoreSize } from './grow-store.js';

/**
 * The settings of the server the cold reads are measured on: no user, room or room effect kept,
 * and shared answers only under 1 KiB (the least CROWD_READS_CACHE takes). On the small store,
 * whose 50 articles every load reads round and round, each read then costs what reading an
 * object nobody read recently does, as on the large one.
 */
export const COLD_ENV = { USER_CACHE_ENTRIES: '0', ROOM_CACHE_ENTRIES: '0', CROWD_READS_CACHE: '1kb' };

/** Objects of one kind in a random order: the path of the next one, and how many requests may still read one not read before (undefined: any number). */
export interface Objects {
  next(): string;
  left(): number | undefined;
}

/** A store with fewer objects of a kind than this is read round and round (each object many times, as a hot one is); a larger one never twice. */
const ROUND_AND_ROUND_BELOW = 2_000;

function shuffled(count: number, pathOf: (i: number) => string): Objects {
  const order = Array.from({ length: count }, (_, i) => i + 1);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  let next = 0;
  return { next: () => pathOf(order[next++ % count] as number), left: () => (count < ROUND_AND_ROUND_BELOW ? undefined : Math.max(0, count - next)) };
}

/** A read of one object by id, each request another one (see `shuffled`); `path` names the kind (its first object). */
export interface ColdRead {
  name: string;
  method: 'GET';
  path: string;
  objects: Objects;
}

/** The cold reads of a grown store of `size` (bench/lib/grow-store.ts), through `app`. */
export function coldReads(app: BenchApp, size: StoreSize): ColdRead[] {
  const cold = (name: string, count: number, path: (i: number) => string): ColdRead => ({
    name: `cold: ${name}`,
    method: 'GET',
    path: path(1),
    objects: shuffled(count, (i) => {
      const url = new URL(app.url(path(i)));
      return url.pathname + url.search;
    }),
  });
  return [
    cold('room details', size.rooms, (i) => `chat/rooms/${grown.room(i)}`),
    cold('room by custom id', size.rooms, (i) => `chat/roomsbycustomid/${grown.roomCustomId(i)}`),
    cold('updates without cursor', size.rooms, (i) => `chat/rooms/${grown.room(i)}/updates`),
    cold('conversation', size.rooms, (i) => `comment/conversations/${grown.conversation(i)}`),
    cold('conversation by custom id', size.rooms, (i) => `comment/find/conversation/bycustomid?customid=${grown.conversationCustomId(i)}`),
    cold('first comment page', size.rooms, (i) => `comment/conversations/${grown.conversation(i)}/comments`),
    cold('user', size.users, (i) => `user/users/${grown.user(i)}`),
    cold('poll standings', size.rooms, (i) => `poll/poll/${grown.poll(i)}/standings`),
  ];
}
