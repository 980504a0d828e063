const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** Where the indicator draws: standard error, so standard output stays the answer. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

export interface ProgressOptions {
  /** Nothing is drawn for calls quicker than this. */
  readonly delayMs?: number;
  readonly intervalMs?: number;
}

/**
 * Runs `work`, drawing a spinner with `label` on a terminal while it takes
 * longer than `delayMs` (a slow orchestrator), and erasing it afterwards.
 * Nothing is drawn when the stream is not a terminal (scripts, pipes).
 */
export const withProgress = async <A>(
  stream: ProgressStream,
  label: string,
  work: () => Promise<A>,
  options: ProgressOptions = {},
): Promise<A> => {
  if (stream.isTTY !== true) return work();
  let frame = 0;
  let drawn = false;
  let ticker: NodeJS.Timeout | undefined;
  const erase = () => stream.write("\r\x1b[2K");
  const draw = () => {
    stream.write(`\r${FRAMES[frame++ % FRAMES.length]} ${label}`);
    // Ctrl-C or SIGTERM ends the process at once (run.ts): the shell's prompt then starts on a clean line.
    if (!drawn) process.once("exit", erase);
    drawn = true;
  };
  const starter = setTimeout(() => {
    draw();
    ticker = setInterval(draw, options.intervalMs ?? 80);
  }, options.delayMs ?? 300);
  try {
    return await work();
  } finally {
    clearTimeout(starter);
    clearInterval(ticker);
    if (drawn) {
      process.removeListener("exit", erase);
      erase();
    }
  }
};
