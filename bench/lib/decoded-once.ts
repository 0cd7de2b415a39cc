/**
 * What the load generator's fans make of the bytes they are sent (inflated text, parsed frames),
 * made once for every fan sent the same bytes: a thousand fans get the same shared catch-up batch,
 * and decoding is a function of the bytes alone, so each fan still ends up with exactly what its
 * own decoding would give. A thousand phones would each decode on their own CPU; one process
 * decoding a thousand times over takes the CPU of the machine the server is measured on.
 */
export class DecodedOnce<T> {
  private readonly made = new Map<string, T>();

  /** `held`: decodings kept at most (all are let go past it; a catch-up's batches are a few dozen). */
  constructor(private readonly held = 512) {}

  /** What `decode` makes of the bytes `key` stands for (their text, or their latin1 string). */
  of(key: string, decode: () => T): T {
    let value = this.made.get(key);
    if (value === undefined) {
      if (this.made.size >= this.held) this.made.clear();
      value = decode();
      this.made.set(key, value);
    }
    return value;
  }
}
