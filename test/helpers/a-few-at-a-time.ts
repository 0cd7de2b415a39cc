/** Runs `work` on each of `items`, `concurrency` at once, each next item as one finishes; resolves when all have. */
export async function aFewAtATime<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}
