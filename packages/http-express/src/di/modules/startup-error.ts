/** Stops the start with one line for the operator (a bad file, a missing adapter); never carries a secret. */
export class StartupError extends Error {
  override readonly name = "StartupError";
}
