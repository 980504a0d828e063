const REDACTED = "[redacted]";

/**
 * An orchestrator credential. The value is held in a private field and only
 * `reveal()` hands it out, so a key that reaches `JSON.stringify`, a template
 * string, `console.log` or a logger by accident prints `[redacted]`.
 */
export class ApiKey {
  readonly #value: string;

  private constructor(value: string) {
    this.#value = value;
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
