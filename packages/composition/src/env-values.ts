import * as E from "fp-ts/lib/Either.js";
import * as t from "io-ts";

// The building blocks of the configuration's codecs: each variable is a string (or unset) decoded to a value, and a
// failure says what is wrong without repeating the value (it may be a secret).

/** A codec from an environment string (or undefined) to a value; failures carry what is wrong. */
export type EnvCodec<A> = t.Type<A, unknown, unknown>;

export const envValue = <A>(
  name: string,
  parse: (raw: string) => E.Either<string, A>,
  fallback: () => E.Either<string, A>,
): EnvCodec<A> =>
  new t.Type<A, unknown, unknown>(
    name,
    (_u): _u is A => true,
    (input, context) => {
      const result =
        input === undefined || input === ""
          ? fallback()
          : typeof input === "string"
            ? parse(input)
            : E.left("must be a string");
      return E.isRight(result) ? t.success(result.right) : t.failure(input, context, result.left);
    },
    (a) => a,
  );

export const withDefault =
  <A>(value: A) =>
  (): E.Either<string, A> =>
    E.right(value);
export const optional = (): E.Either<string, undefined> => E.right(undefined);

export const integer = (min: number, max: number) => (raw: string) =>
  /^\d+$/.test(raw) && Number(raw) >= min && Number(raw) <= max
    ? E.right(Number(raw))
    : E.left(`must be an integer from ${min} to ${max}`);

export const text = (raw: string): E.Either<string, string> => E.right(raw);

export const oneOf =
  <V extends string>(values: readonly V[]) =>
  (raw: string): E.Either<string, V> =>
    (values as readonly string[]).includes(raw) ? E.right(raw as V) : E.left(`must be one of ${values.join(", ")}`);

export const list = (raw: string): E.Either<string, readonly string[]> =>
  E.right(
    raw
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== ""),
  );
