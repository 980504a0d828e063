import type { DomainError } from "@sdwan-connections/core";
import type * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";

/** Runs tasks one at a time, in order (reloads and commits of one process never interleave). */
export const createSerialQueue = () => {
  let tail: Promise<unknown> = Promise.resolve();
  return <A>(task: () => Promise<A>): Promise<A> => {
    const result = tail.then(task, task);
    tail = result.catch(() => undefined);
    return result;
  };
};

export type SerialQueue = ReturnType<typeof createSerialQueue>;

/** The longest a resting group commit waits after a commit: what a caller may wait more while the writer is busy. */
const REST_MAX_MS = 100;

/**
 * Group commit: changes submitted while a commit is running wait for the
 * next one, and each commit takes every change waiting then (a thousand
 * concurrent adds cost a handful of writes). `commit` applies a batch and
 * answers one result per change, in order.
 *
 * With `rests`, a busy writer (changes arriving without a pause, as a background health round's) does not commit
 * back to back: each commit waits three times as long as the one before took, at most `REST_MAX_MS`, and what
 * arrives meanwhile joins it. A change that comes to an idle writer waits for nothing.
 */
export const createGroupCommit = <Change>(
  { serially, rests = false }: { readonly serially: SerialQueue; readonly rests?: boolean },
  commit: (batch: readonly Change[]) => Promise<readonly E.Either<DomainError, unknown>[]>,
) => {
  const pending: { readonly change: Change; readonly resolve: (result: E.Either<DomainError, unknown>) => void }[] = [];
  let draining: Promise<void> | undefined;
  let restUntil = 0;

  const commitWaiting = async (): Promise<void> => {
    const batch = pending.splice(0);
    if (batch.length === 0) return;
    const started = performance.now();
    const results = await commit(batch.map(({ change }) => change));
    if (rests) restUntil = performance.now() + Math.min(3 * (performance.now() - started), REST_MAX_MS);
    batch.forEach(({ resolve }, index) => resolve(results[index] as E.Either<DomainError, unknown>));
  };

  /** Settles once every change submitted so far is committed (or failed). */
  const drain = (): Promise<void> =>
    (draining ??= (async () => {
      while (pending.length > 0) {
        // Outside the queue: the writer's other tasks (reloads, a journal's appends) never wait for the rest.
        const rest = restUntil - performance.now();
        if (rest > 0) await new Promise((resume) => setTimeout(resume, rest));
        await serially(commitWaiting);
      }
      draining = undefined;
    })());

  return {
    /** Run, the task submits `change` and answers its result once a commit has taken it. */
    submit:
      <A>(change: Change): TaskEither<DomainError, A> =>
      () =>
        new Promise((resolve) => {
          pending.push({ change, resolve: resolve as (result: E.Either<DomainError, unknown>) => void });
          void drain();
        }),
    drain,
  };
};
