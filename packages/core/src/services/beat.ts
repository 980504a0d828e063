/**
 * The beat the process's periodic looks share: every look whose period is a whole number of beats runs on one timer,
 * so an idle service wakes once a beat, not once per look at its own phase (issue 40: an idle service woke about 20
 * times a second, at about 150 µs of CPU a wake; the store's file polls, the webhook relay's poll and the user files'
 * each had a timer of their own). Another period (a test's few ms) keeps a timer of its own. The timer never keeps
 * the process alive.
 */
export const BEAT_MS = 250;

interface Look {
  readonly beats: number;
  /** Beats until its next run: the first comes `everyMs` after it began (within a beat), as its own timer's would. */
  left: number;
  readonly run: () => void;
}

const looks = new Set<Look>();
let timer: NodeJS.Timeout | undefined;

const beat = (): void => {
  for (const look of looks) {
    look.left -= 1;
    if (look.left > 0) continue;
    look.left = look.beats;
    look.run();
  }
};

/** Runs `run` every `everyMs` (on the shared beat when a multiple of it); returns what stops it. */
export const everyBeat = (everyMs: number, run: () => void): (() => void) => {
  if (everyMs <= 0 || everyMs % BEAT_MS !== 0) {
    const own = setInterval(run, everyMs);
    own.unref();
    return () => clearInterval(own);
  }
  const look: Look = { beats: everyMs / BEAT_MS, left: everyMs / BEAT_MS, run };
  looks.add(look);
  if (timer === undefined) {
    timer = setInterval(beat, BEAT_MS);
    timer.unref();
  }
  return () => {
    looks.delete(look);
    if (looks.size > 0 || timer === undefined) return;
    clearInterval(timer);
    timer = undefined;
  };
};
