/** How the pushes went wrong, counted per socket: a repeat on one socket never hides a miss on another. */
export interface DeliveryFaults {
  /** Acknowledged room events a socket never received, summed over the sockets. */
  misses: number;
  /** Events a socket received more than once (each extra receipt), summed over the sockets. */
  repeats: number;
  socketsMissing: number;
  socketsRepeating: number;
}

/** `sockets`: per socket, event id → times it arrived; `expected`: every acknowledged room event. */
export function deliveryFaults(expected: readonly string[], sockets: Iterable<ReadonlyMap<string, number>>): DeliveryFaults {
  const faults: DeliveryFaults = { misses: 0, repeats: 0, socketsMissing: 0, socketsRepeating: 0 };
  for (const received of sockets) {
    let misses = 0;
    let repeats = 0;
    for (const id of expected) if (!received.has(id)) misses++;
    for (const times of received.values()) repeats += times - 1;
    faults.misses += misses;
    faults.repeats += repeats;
    if (misses > 0) faults.socketsMissing++;
    if (repeats > 0) faults.socketsRepeating++;
  }
  return faults;
}

/** An acknowledged chat post: when its request was sent and when its answer came (ms, one clock). */
export interface AckedPost {
  sent: number;
  answered: number;
}

/** One fan polling `updates`: what its pages held (event id → times), from its first answer to its last request. */
export interface Poller {
  seen: Map<string, number>;
  firstAnswered: number;
  lastSent: number;
}

/**
 * What the polled pages got wrong: a post answered before a poller's last request and sent after
 * its first page came must be on one of its pages (`misses`), and no event on two (`repeats`).
 */
export function pollFaults(posts: ReadonlyMap<string, AckedPost>, pollers: Iterable<Poller>): { misses: number; repeats: number } {
  const faults = { misses: 0, repeats: 0 };
  for (const poller of pollers) {
    for (const [id, post] of posts) if (post.sent > poller.firstAnswered && post.answered < poller.lastSent && !poller.seen.has(id)) faults.misses++;
    for (const times of poller.seen.values()) faults.repeats += times - 1;
  }
  return faults;
}
