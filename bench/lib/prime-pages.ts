import { parseSamples, total } from '../../test/operability/prometheus-text.js';
import type { BenchApp } from './app.js';
import { grown } from './grow-store.js';

/** Reads at once while priming. */
const WIDTH = 16;

/**
 * Reads the first comment page of each of a grown store's `articles` once, as a newsroom's
 * articles are read when they are published, and waits until the server has kept every one in
 * the database (StoredPages): the cold reads then measure an article read before, not recently.
 * A build that keeps no page (one before StoredPages, BENCH_ROOT) is not waited for.
 * `metricsUrl`: the server's /metrics (open: the bench servers set no METRICS_TOKEN).
 */
export async function primeFirstCommentPages(app: BenchApp, articles: number, metricsUrl: string): Promise<void> {
  const metrics = async () => await (await fetch(metricsUrl)).text();
  const kept = async () => total(parseSamples(await metrics()), 'engage_stored_comment_pages_total', { result: 'kept' });
  if (!(await metrics()).includes('engage_stored_comment_pages_total')) return;
  const before = await kept();
  let next = 1;
  const reader = async () => {
    while (next <= articles) await app.call('GET', `comment/conversations/${grown.conversation(next++)}/comments`);
  };
  await Promise.all(Array.from({ length: WIDTH }, reader));
  const deadline = Date.now() + 60_000;
  while ((await kept()) - before < articles) {
    if (Date.now() > deadline) throw new Error(`${(await kept()) - before} of ${articles} first comment pages kept after a minute`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
