/**
 * Runs `round` now and then again and again, each `delayMs()` after the last one ended, until stopped: the background
 * loop of the health monitor, the key renewals, the key references' watch and the key-expiry scans. Never two rounds
 * at once; the timer never keeps the process alive.
 */
export const repeatRounds = (round: () => Promise<void>, delayMs: () => number) => {
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | undefined;
  let stopped = true;
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      current = round().finally(schedule);
    }, delayMs());
    timer.unref();
  };
  return {
    /** A first round at once, then one after each delay. */
    start: (): void => {
      if (!stopped) return;
      stopped = false;
      current = round().finally(schedule);
    },
    /** No more rounds; waits for the one running. */
    stop: async (): Promise<void> => {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
};
