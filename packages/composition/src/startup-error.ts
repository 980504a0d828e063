/** Stops the start with one line for the operator (a bad file, a missing adapter); never carries a secret. */
export class StartupError extends Error {
  override readonly name = "StartupError";
}

/** The one line a failed start step gives the operator: a StartupError's own message, anything else named as an unexpected cause. */
export const startupFailure = (error: unknown): string =>
  error instanceof StartupError
    ? error.message
    : `cannot start: ${error instanceof Error ? error.message : String(error)}`;
