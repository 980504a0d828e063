import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";

/** Runs a task that must succeed and returns its value (test helper). */
export const expectRight = async <L, A>(task: TaskEither<L, A>): Promise<A> => {
  const result = await task();
  if (E.isLeft(result)) throw new Error(`expected success, got ${JSON.stringify(result.left)}`);
  return result.right;
};

/** Runs a task that must fail and returns its error (test helper). */
export const expectLeft = async <L, A>(task: TaskEither<L, A>): Promise<L> => {
  const result = await task();
  if (E.isRight(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`);
  return result.left;
};
