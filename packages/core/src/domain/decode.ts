import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as t from "io-ts";
import { invalidInput, storageFailure, type DomainError, type FieldError } from "./errors.js";

/**
 * Turns io-ts errors into one FieldError per bad field, named by its path
 * (`apiKey`, `body`). Only the codec's message is used, never the value, so
 * nothing secret can be echoed.
 */
export const toFieldErrors = (errors: t.Errors, root: string): readonly FieldError[] => {
  const seen = new Map<string, string>();
  for (const error of errors) {
    const path = error.context
      .map((entry) => entry.key)
      .filter((key) => key !== "" && !/^\d+$/.test(key))
      .join(".");
    const field = path === "" ? root : path;
    if (!seen.has(field)) seen.set(field, error.message ?? describeExpected(error));
  }
  return [...seen].map(([field, message]) => ({ field, message }));
};

/**
 * What a store reports when what it holds does not decode (a row, a file): `what` named, each bad field named by its
 * path under `root`, never a value; `advice`, what the operator can do, after them. The one wording of every store.
 */
export const invalidStored = (what: string, errors: t.Errors, root = "row", advice?: string): DomainError =>
  storageFailure(
    `Storage failure: ${what} is invalid (${toFieldErrors(errors, root)
      .map((error) => `${error.field} ${error.message}`)
      .join("; ")})${advice === undefined ? "" : `; ${advice}`}.`,
  );

/** A stored record (a row) decoded by `codec`, or the store's failure naming `what` and the bad fields (`invalidStored`). */
export const decodeStored =
  <A>(codec: t.Decoder<unknown, A>, what: string) =>
  (input: unknown): E.Either<DomainError, A> =>
    E.mapLeft((errors: t.Errors) => invalidStored(what, errors))(codec.decode(input));

const describeExpected = (error: t.ValidationError): string => {
  const last = error.context[error.context.length - 1];
  if (error.value === undefined) return "is required";
  return `must be ${last === undefined ? "valid" : expected(last.type)}`;
};

// io-ts's own codecs by what they accept, as the codecs with messages of their own say it ("must be a string").
const KINDS: Readonly<Record<string, string>> = {
  StringType: "a string",
  NumberType: "a number",
  BooleanType: "true or false",
  InterfaceType: "a JSON object",
  PartialType: "a JSON object",
  ExactType: "a JSON object",
  DictionaryType: "a JSON object",
  ArrayType: "a list",
  ReadonlyArrayType: "a list",
};

// What a codec accepts in the user's words: an enum's values and a kind of value, not a codec's name (`GrantVerb`,
// `"auto" | "off"`, `string`, `PatternGrant`). By `_tag`, not `instanceof`: a bundle may hold another copy of io-ts.
const expected = (type: t.Decoder<unknown, unknown>): string => {
  const described = type as { readonly _tag?: string; readonly keys?: object; readonly value?: unknown };
  if (described._tag === "KeyofType") return `one of ${Object.keys(described.keys ?? {}).join(", ")}`;
  if (described._tag === "LiteralType") return JSON.stringify(described.value);
  return KINDS[described._tag ?? ""] ?? type.name;
};

/** Decodes untrusted input, failing with InvalidInput that names each bad field. */
export const decodeInput =
  <A, O>(codec: t.Type<A, O, unknown>, root: string) =>
  (input: unknown): E.Either<DomainError, A> =>
    pipe(
      codec.decode(input),
      E.mapLeft((errors) => invalidInput(toFieldErrors(errors, root))),
    );

/** A query string's errors: each bad option named `query.NAME` (the query as a whole, `query`), as every query's are. */
export const queryFieldErrors = (errors: t.Errors): readonly FieldError[] =>
  toFieldErrors(errors, "query").map((error) =>
    error.field === "query" ? error : { ...error, field: `query.${error.field}` },
  );

/** Decodes an untrusted query string, failing with InvalidInput that names each bad option (`queryFieldErrors`). */
export const decodeQuery =
  <A, O>(codec: t.Type<A, O, unknown>) =>
  (input: unknown): E.Either<DomainError, A> =>
    E.mapLeft((errors: t.Errors) => invalidInput(queryFieldErrors(errors)))(codec.decode(input));

/**
 * A codec that decodes as `base` does and checks more, with its own messages (`validate`): a refinement of `base`, so
 * what it accepts is described by `base` (the OpenAPI document reads it) and what `base` cannot say by the document's
 * notes.
 */
export const checked = <C extends t.Mixed>(name: string, base: C, validate: t.Validate<unknown, t.TypeOf<C>>) =>
  new t.RefinementType<C, t.TypeOf<C>, t.OutputOf<C>, unknown>(name, base.is, validate, base.encode, base, (value) =>
    E.isRight(validate(value, [])),
  );

/**
 * An object codec that refuses keys it does not know (a typo such as `apikey`
 * must never be silently dropped) and returns only the known ones.
 */
export const strictObject = <P extends t.Props, C extends t.Mixed>(name: string, props: P, codec: C) =>
  checked(name, codec, (input, context) => {
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      return t.failure(input, context, "must be a JSON object");
    }
    const unknownKeys = Object.keys(input).filter((key) => !Object.hasOwn(props, key));
    if (unknownKeys.length > 0) {
      return t.failures(
        unknownKeys.map((key) => ({
          value: undefined,
          context: [...context, { key, type: t.never, actual: undefined }],
          message: "is not a known field",
        })),
      );
    }
    return codec.validate(input, context);
  });

/** A codec of one of `values` (string literals), named `name` when given (the wire's enums: OpenAPI names them so). */
export const oneOf = <K extends string>(values: readonly K[], name?: string) =>
  t.keyof(Object.fromEntries(values.map((value) => [value, null])) as Record<K, null>, name);

/**
 * The first name an object of JSON `text` gives twice, if any, as a path of names (`connections.alias`: array indices
 * left out, as `toFieldErrors` names fields): `JSON.parse` keeps the last one silently, so `{"apiKey": "a", "apiKey":
 * "b"}` could be read one way by a proxy in front and another here. Names are compared as JSON reads them (`"a"` and
 * `"\u0061"` are one). Text that is not JSON answers what it can; its parse says the rest.
 */
export const repeatedName = (text: string): string | undefined => {
  // Per open container: its path, and an object's names so far (none for an array) and the last of them.
  const open: { readonly path: string; readonly names: Set<string> | undefined; last: string }[] = [];
  let nameNext = false;
  const enter = (names: Set<string> | undefined): void => {
    const parent = open[open.length - 1];
    const path =
      parent === undefined || parent.names === undefined ? (parent?.path ?? "") : pathOf(parent.path, parent.last);
    open.push({ path, names, last: "" });
  };
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      let end = i + 1;
      while (end < text.length && text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c ? 2 : 1;
      const container = open[open.length - 1];
      if (nameNext && container?.names !== undefined) {
        const name = E.toUnion(E.parseJSON(text.slice(i, end + 1), () => undefined));
        if (typeof name !== "string") return undefined;
        if (container.names.has(name)) return pathOf(container.path, name);
        container.names.add(name);
        container.last = name;
        nameNext = false;
      }
      i = end;
    } else if (code === 0x7b) {
      enter(new Set());
      nameNext = true;
    } else if (code === 0x5b) {
      enter(undefined);
      nameNext = false;
    } else if (code === 0x7d || code === 0x5d) {
      open.pop();
      nameNext = false;
    } else if (code === 0x2c) nameNext = open[open.length - 1]?.names !== undefined;
  }
  return undefined;
};

const pathOf = (path: string, name: string): string => (path === "" ? name : `${path}.${name}`);
