import { ValueFamily } from './metrics/family.js';
import { registry } from './metrics/registry.js';

/** What a caller asks of an answer before it may share one already made. */
export interface Freshness {
  /** The revision counters the answer depends on, as the caller sees them now: an answer made at another version is not shared. */
  version: string;
  /**
   * When the caller's request began (performance.now()), for answers that must hold every change
   * acknowledged before it even where no version shows it (the feed's head): only an answer whose
   * read started at or after it is shared. Omit when the version says it all.
   */
  since?: number;
}

/**
 * At `version` where one is known for certain (heard before any change was answered); else shared
 * only with requests that began (performance.now()) before its read started.
 */
export function atVersionOrSince(version: string | undefined, began: number): Freshness {
  return version === undefined ? { version: '', since: began } : { version };
}

/**
 * The bytes a shared JSON piece of `bytes` takes while held: the piece, and the answer the HTTP
 * layer makes of it once and keeps as long as the piece (src/http/encoding.ts, answerOnce).
 */
export const withItsAnswer = (bytes: number) => bytes * 2;

export interface SharedAnswersOptions<V> {
  /** Names the cache in metrics (`engage_shared_answers_total{cache=…}`). */
  name: string;
  /** Bytes held at most; past it the least recently used answers go. */
  maxBytes: number;
  /** The bytes an answer holds (its serialised size is close enough). */
  sizeOf: (value: V) => number;
  /** When an answer changes by itself, with no write to move its version (Date.now() time: a mute ending); never when omitted. */
  expiresAt?: (value: V) => number;
}

/**
 * Makes an answer. `replaced` is the answer held for the same key before it (at another version,
 * or too old for the caller), settled: a read may build on it (a growing block reads only what
 * was added) when the read can tell from the value itself that it still holds.
 */
export type AnswerRead<V> = (replaced: V | undefined) => Promise<V>;

interface Entry<V> {
  version: string;
  /** performance.now() when its read began. */
  startedAt: number;
  value: Promise<V>;
  /** The value once the read succeeded. */
  made?: V;
  bytes: number;
  settled: boolean;
  /** Date.now() past which the answer is not shared. */
  expiresAt: number;
  /** A read queued behind this running one, for callers this one started too early for. */
  next?: Entry<V>;
}

const answers = new ValueFamily(registry, 'engage_shared_answers_total', 'Shared answers (catch-up pages, crowd reads): taken from memory (hit) or read (miss)', 'counter', ['cache', 'result']);

/**
 * Answers many callers ask for with the same parameters (a catch-up page, a room, a page of the
 * rooms list), read once per change and shared: key = what was asked, version = the revision
 * counters its writes bump. One read fills an entry (callers arriving meanwhile share it); a caller
 * whose request began after a running read started waits for the one read queued behind it, so a
 * crowd costs one read per read's duration, never one per caller. Bounded by bytes, least recently
 * used first out; a failed read is not kept.
 */
export class SharedAnswers<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private bytes = 0;
  private readonly hits;
  private readonly misses;

  constructor(private readonly options: SharedAnswersOptions<V>) {
    this.hits = answers.cell(options.name, 'hit');
    this.misses = answers.cell(options.name, 'miss');
  }

  /** The answer for `key` as fresh as `want` asks; `read` makes it when no held or running one will do. */
  take(key: string, want: Freshness, read: AnswerRead<V>): Promise<V> {
    const held = this.entries.get(key);
    if (held !== undefined && held.version === want.version && held.expiresAt > Date.now()) {
      if (want.since === undefined || held.startedAt >= want.since) return this.hit(key, held);
      if (!held.settled) {
        held.next ??= this.queued(key, held, read);
        this.hits.inc();
        return held.next.value;
      }
    }
    return this.start(key, want.version, read).value;
  }

  /** Forgets `key` (its running read still answers the callers it has). */
  drop(key: string): void {
    const held = this.entries.get(key);
    if (held === undefined) return;
    this.entries.delete(key);
    this.bytes -= held.bytes;
  }

  /** Forgets every answer. */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  /** Bytes held now (for tests and metrics). */
  get heldBytes(): number {
    return this.bytes;
  }

  private hit(key: string, held: Entry<V>): Promise<V> {
    this.hits.inc();
    // Most recently used last, so eviction takes the first.
    this.entries.delete(key);
    this.entries.set(key, held);
    return held.value;
  }

  private start(key: string, version: string, read: AnswerRead<V>): Entry<V> {
    this.misses.inc();
    const replaced = this.entries.get(key)?.made;
    this.drop(key);
    const entry: Entry<V> = { version, startedAt: performance.now(), value: read(replaced), bytes: 0, settled: false, expiresAt: Number.POSITIVE_INFINITY };
    this.entries.set(key, entry);
    entry.value.then(
      (value) => this.settled(key, entry, value),
      () => {
        entry.settled = true;
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry;
  }

  /** Starts `read` once `running` settles; callers share it meanwhile. */
  private queued(key: string, running: Entry<V>, read: AnswerRead<V>): Entry<V> {
    const placeholder: Entry<V> = {
      version: running.version,
      startedAt: Number.POSITIVE_INFINITY,
      value: undefined as unknown as Promise<V>,
      bytes: 0,
      settled: false,
      expiresAt: Number.POSITIVE_INFINITY,
    };
    placeholder.value = running.value.then(
      () => this.start(key, running.version, read).value,
      () => this.start(key, running.version, read).value,
    );
    return placeholder;
  }

  private settled(key: string, entry: Entry<V>, value: V): void {
    entry.settled = true;
    if (this.entries.get(key) !== entry) return;
    entry.made = value;
    entry.bytes = this.options.sizeOf(value);
    entry.expiresAt = this.options.expiresAt?.(value) ?? Number.POSITIVE_INFINITY;
    this.bytes += entry.bytes;
    for (const [oldest, held] of this.entries) {
      if (this.bytes <= this.options.maxBytes) break;
      if (!held.settled) continue;
      this.entries.delete(oldest);
      this.bytes -= held.bytes;
    }
  }
}
