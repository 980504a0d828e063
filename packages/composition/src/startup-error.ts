/** Stops the start with one line for the operator (a bad file, a missing adapter); never carries a secret. */
export class StartupError extends Error {
  override readonly name = "StartupError";
}

/** The value of a start step, or a StartupError with its message: module activations fail by throwing, and `compose` catches it. */
export const orFail = <A>(result: { readonly _tag: "Left"; readonly left: string } | { readonly _tag: "Right"; readonly right: A }): A => {
  if (result._tag === "Left") throw new StartupError(result.left);
  return result.right;
};

/** The one line a failed start step gives the operator: a StartupError's own message, anything else named as an unexpected cause. */
export const startupFailure = (error: unknown): string =>
  error instanceof StartupError ? error.message : `cannot start: ${error instanceof Error ? error.message : String(error)}`;
