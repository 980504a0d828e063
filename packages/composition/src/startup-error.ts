/** Stops the start with one line for the operator (a bad file, a missing adapter); never carries a secret. */
export class StartupError extends Error {
  override readonly name = "StartupError";
}

/** The one line a failed start step gives the operator: a StartupError's own message, anything else named as an unexpected cause. */
export const startupFailure = (error: unknown): string =>
  error instanceof StartupError
    ? error.message
    : `cannot start: ${error instanceof Error ? error.message : String(error)}`;

/**
 * Why a start failed, in one line for the operator, and of which kind: the store itself failing or out of reach
 * (`storage`: the CLI's exit 7), or what the start was given (`configuration`: exit 2). Callers branch on the kind.
 */
export interface StartFailure {
  readonly kind: "configuration" | "storage";
  readonly message: string;
}

export const configurationFailure = (message: string): StartFailure => ({ kind: "configuration", message });
