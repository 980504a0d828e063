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

/**
 * Group commit: changes submitted while a commit is running wait for the
 * next one, and each commit takes every change waiting then (a thousand
 * concurrent adds cost a handful of writes). `commit` applies a batch and
 * answers one result per change, in order. `rest`, when given, is awaited before each commit takes its batch:
 * what arrives meanwhile joins it.
 */
export const createGroupCommit = <Change>(
  serially: SerialQueue,
  commit: (batch: readonly Change[]) => Promise<readonly E.Either<DomainError, unknown>[]>,
  rest?: () => Promise<void>,
) => {
  const pending: { readonly change: Change; readonly resolve: (result: E.Either<DomainError, unknown>) => void }[] = [];
  let draining: Promise<void> | undefined;

  const commitWaiting = async (): Promise<void> => {
    await rest?.();
    const batch = pending.splice(0);
    if (batch.length === 0) return;
    const results = await commit(batch.map(({ change }) => change));
    batch.forEach(({ resolve }, index) => resolve(results[index] as E.Either<DomainError, unknown>));
  };

  /** Settles once every change submitted so far is committed (or failed). */
  const drain = (): Promise<void> =>
    (draining ??= (async () => {
      while (pending.length > 0) await serially(commitWaiting);
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
