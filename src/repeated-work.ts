/**
 * Work a process does again and again on its own (upkeep, watching): `work` runs `waitMs()`
 * after the last run ended (asked anew each time), never two at once; a run that fails is told to
 * `failed` and the next comes as usual. The timer holds no process open. Returns the stop: no run
 * starts after it, and it settles once a run under way has ended (what the work uses may then close).
 */
export function repeatWork(waitMs: () => number, work: () => Promise<void>, failed: (err: unknown) => void): () => Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const schedule = () => {
    timer = setTimeout(() => {
      running = work()
        .catch(failed)
        .finally(() => {
          running = undefined;
          if (timer !== undefined) schedule();
        });
    }, waitMs());
    timer.unref();
  };
  schedule();
  return async () => {
    clearTimeout(timer);
    timer = undefined;
    await running;
  };
}
