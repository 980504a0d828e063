const REDACTED = "[redacted]";

/**
 * An orchestrator credential. The value is held in a private field and only
 * `reveal()` hands it out, so a key that reaches `JSON.stringify`, a template
 * string, `console.log` or a logger by accident prints `[redacted]`.
 */
export class ApiKey {
  readonly #value: string;
  /** Why a key kept elsewhere (`apiKeyRef`) could not be read: such a key is never sent anywhere (see `ApiKey.unreadable`). */
  readonly problem: string | undefined;

  private constructor(value: string, problem?: string) {
    this.#value = value;
    this.problem = problem;
  }

  /** The key of a reference that could not be read, and why (a reason written by us, never the key): no orchestrator is asked with it. */
  static unreadable(problem: string): ApiKey {
    return new ApiKey("", problem);
  }

  /** Wraps a string already known to satisfy the ApiKey rules (use the `ApiKeyCodec` for input). */
  static unsafeFrom(value: string): ApiKey {
    return new ApiKey(value);
  }

  /** The secret itself: call only where it must leave (an Authorization header, an encryption). */
  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return REDACTED;
  }

  toString(): string {
    return REDACTED;
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `ApiKey(${REDACTED})`;
  }
}
