import { groupBy } from '../group-by.js';
import type { Logger } from '../logger.js';
import type { CommitMetrics } from '../metrics/registry.js';
import { failsEveryWrite } from './errors.js';
import { GroupCommit } from './group-commit.js';

interface Keyed<T> {
  key: string;
  item: T;
}

/** One item's outcome: a key's failure must not fail (or rewrite) the other keys of its batch. */
type Settled<R> = { out: R } | { err: unknown };

const MAX_BATCH = 2000;

/**
 * Group commit for writes that land on one row each (a comment's votes, a conversation's
 * reactions): the items of a group commit go to one `write` call per key with all of that key's
 * items (keys in parallel). `write` answers each item in order; every item is answered only after
 * its call returned (committed). When a call fails, its items are written one by one, so only an
 * item that fails alone fails its request (unless no write can succeed now, see failsEveryWrite: then every one would fail).
 */
export class KeyedBatcher<T, R> {
  private readonly commits: GroupCommit<Keyed<T>, Settled<R>>;

  constructor(
    private readonly write: (key: string, items: T[]) => Promise<R[]>,
    private readonly log: Logger,
    private readonly what: string,
    metrics: CommitMetrics,
  ) {
    this.commits = new GroupCommit((batch) => this.writeByKey(batch), log, what, metrics, MAX_BATCH);
  }

  async submit(key: string, item: T): Promise<R> {
    const settled = await this.commits.submit({ key, item });
    if ('err' in settled) throw settled.err;
    return settled.out;
  }

  private async writeByKey(batch: Keyed<T>[]): Promise<Settled<R>[]> {
    const settled = new Map<Keyed<T>, Settled<R>>();
    await Promise.all(
      [...groupBy(batch, (k) => k.key)].map(async ([key, group]) => {
        const outcomes = await this.writeGroup(
          key,
          group.map((k) => k.item),
        );
        group.forEach((k, i) => settled.set(k, outcomes[i] as Settled<R>));
      }),
    );
    return batch.map((k) => settled.get(k) as Settled<R>);
  }

  private async writeGroup(key: string, items: T[]): Promise<Settled<R>[]> {
    try {
      return (await this.write(key, items)).map((out) => ({ out }));
    } catch (err) {
      if (items.length === 1 || failsEveryWrite(err)) return items.map(() => ({ err }));
      this.log.warn({ err, key, items: items.length }, `${this.what} batch failed; writing its items one by one`);
      const outcomes: Settled<R>[] = [];
      for (const item of items) outcomes.push(await this.writeOne(key, item));
      return outcomes;
    }
  }

  private async writeOne(key: string, item: T): Promise<Settled<R>> {
    try {
      return { out: (await this.write(key, [item]))[0] as R };
    } catch (err) {
      return { err };
    }
  }
}
