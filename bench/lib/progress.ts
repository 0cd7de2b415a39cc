const EVERY_MS = 5000;

/**
 * Runs `work`, writing `… label: 15 s of 30` to standard error every 5 s meanwhile, so a long
 * run shows that it is alive and how far it is; the figures stay alone on standard output.
 */
export async function withProgress<T>(label: string, totalSeconds: number | undefined, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const timer = setInterval(() => {
    const elapsed = Math.round((performance.now() - started) / 1000);
    process.stderr.write(`  … ${label}: ${elapsed} s${totalSeconds === undefined ? '' : ` of ${totalSeconds}`}\n`);
  }, EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
