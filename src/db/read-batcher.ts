import { groupBy } from '../group-by.js';
import type { Logger } from '../logger.js';
import { commitMetrics } from '../metrics/registry.js';
import { GroupCommit } from './group-commit.js';

export interface ReadBatcherOptions<K, V> {
  /** The values of these keys (each key once), in one statement; a key with no value is left out. */
  read: (keys: K[]) => Promise<V[]>;
  /** A key as a string, the same for the same key. */
  keyOf: (key: K) => string;
  /** The key `value` answers (as keyOf writes it). */
  keyOfValue: (value: V) => string;
  log: Logger;
  /** Names the reads in logs and in the batch metrics (`engage_commit_batch_size{writer=…}`). */
  name: string;
}

/**
 * Reads of one row by key that arrive at the same moment (a crowd of new fans, a newsroom's readers
 * each opening another article), made by one statement for all of them: a statement's fixed cost
 * (on the embedded database, most of a read by key) is shared by the batch. Reads that arrive
 * while one runs go together in the next (GroupCommit), so each read starts after its request
 * began; a lone read waits for nothing.
 */
export class ReadBatcher<K, V> {
  private readonly batches: GroupCommit<K, V | undefined>;

  constructor(private readonly options: ReadBatcherOptions<K, V>) {
    this.batches = new GroupCommit((keys) => this.readAll(keys), options.log, `reading ${options.name}`, commitMetrics(options.name));
  }

  /** The value of `key`, or undefined when there is none. */
  get(key: K): Promise<V | undefined> {
    return this.batches.submit(key);
  }

  private async readAll(keys: K[]): Promise<(V | undefined)[]> {
    const { read, keyOf, keyOfValue } = this.options;
    const distinct = new Map(keys.map((key) => [keyOf(key), key]));
    const found = new Map((await read([...distinct.values()])).map((value) => [keyOfValue(value), value]));
    return keys.map((key) => found.get(keyOf(key)));
  }
}

/** The values of keys that name their scope (an app, a user pool): one `read` per scope, in parallel, their values together. */
export async function readByScope<K, V>(keys: K[], scopeOf: (key: K) => string, read: (scope: string, keys: K[]) => Promise<V[]>): Promise<V[]> {
  return (await Promise.all([...groupBy(keys, scopeOf)].map(([scope, ofScope]) => read(scope, ofScope)))).flat();
}
