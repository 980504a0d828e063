import * as O from "fp-ts/lib/Option.js";
import * as t from "io-ts";
import { ApiKey } from "./api-key.js";

/** A check returning why a string is not acceptable, or undefined when it is. */
export type StringRule = (value: string) => string | undefined;

/** A string proven to follow the rules of `B` (a compile-time marker only). */
export type Branded<B extends string> = string & { readonly __brand: B };

/**
 * A codec for a string that must follow `rule`, producing `A` from it. Its
 * failures say which rule was broken and never carry the value into their
 * message, so the same helper is safe for secrets.
 */
const ruledString = <A>(
  name: string,
  rule: StringRule,
  is: (u: unknown) => u is A,
  make: (s: string) => A,
  encode: (a: A) => string,
) =>
  new t.Type<A, string, unknown>(
    name,
    is,
    (input, context) => {
      if (input === undefined) return t.failure(input, context, "is required");
      if (typeof input !== "string") return t.failure(input, context, "must be a string");
      const problem = rule(input);
      return problem === undefined ? t.success(make(input)) : t.failure(input, context, problem);
    },
    encode,
  );

export const brandedString = <A extends string>(name: string, rule: StringRule) =>
  ruledString<A>(
    name,
    rule,
    (u): u is A => typeof u === "string" && rule(u) === undefined,
    (s) => s as A,
    (a) => a,
  );

/** A connection's name: 1-64 characters, letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
export type Alias = Branded<"Alias">;
/** An absolute http(s) URL without user-info or fragment, kept exactly as given. */
export type OrchestratorUrl = Branded<"OrchestratorUrl">;

export const ALIAS_MAX_LENGTH = 64;
export const ORCHESTRATOR_URL_MAX_LENGTH = 2048;
export const API_KEY_MAX_LENGTH = 8192;

// The shapes below are also the OpenAPI document's patterns (http-express builds it from them),
// so they use only syntax that JSON Schema validators share with JavaScript (with the u flag).
export const ALIAS_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/u;
// A pattern with a Unicode property class (\p{…}, here and in grants.ts, key-reference.ts) is made when first used:
// making one builds ICU's tables, 5% of a whole `list` at a start, which a command testing none should not pay.
/** `make`'s value, made at the first call and the same at every later one. */
export const madeOnFirstUse = <A>(make: () => A): (() => A) => {
  let made: A | undefined;
  return () => (made ??= make());
};
/**
 * An absolute http(s) URL as written: scheme, "//", a host without
 * user-info, then path or query; no fragment, space, backslash, control
 * character or invisible format character (U+202E would show the URL
 * reversed in the console, the CLI and exports) anywhere. WHATWG parsing would quietly repair other forms
 * (`http:/host`, `http:\\host`), which must be refused, not stored. `refused`: what else no part may hold.
 */
const urlPattern = (refused: string): RegExp =>
  new RegExp(String.raw`^[Hh][Tt][Tt][Pp][Ss]?:\/\/[^/?#@\\${refused}]+(?:[/?][^#\\${refused}]*)?$`, "u");
export const orchestratorUrlPattern = madeOnFirstUse(() => urlPattern(String.raw`\s\p{Cc}\p{Cf}`));
/** No control character (C0, DEL, C1): none of them belong in a header value. */
const noControlCharacter = madeOnFirstUse(() => /^\P{Cc}*$/u);
/**
 * An apiKey is kept exactly as given, so only text that survives the trip
 * unchanged is accepted: not only whitespace, and no control character, no
 * invisible format character (U+200B, U+202E, U+FEFF…), no line or paragraph
 * separator, no lone surrogate, and no U+FFFD (what invalid UTF-8 in a body
 * decodes to: the key would be stored altered).
 */
export const apiKeyPattern = madeOnFirstUse(() => /^(?=[^]*\S)[^\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\uFFFD]*$/u);
const keyUnsafe = madeOnFirstUse(() => ({
  altered: /[\p{Cs}\uFFFD]/u,
  invisible: /[\p{Cf}\p{Zl}\p{Zp}]/u,
  control: /\p{Cc}/u,
}));
const WHITESPACE = /\s/;
const formatCharacter = madeOnFirstUse(() => /\p{Cf}/u);
// Printable ASCII, as URLs almost always are, holds no space, control or format character: no ICU table to ask.
const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;
// The URL's shape, once the rule has refused spaces, control and format characters.
const URL_SHAPE = urlPattern("");

export const aliasRule: StringRule = (value) => {
  if (value.length === 0) return "must not be empty";
  if (value.length > ALIAS_MAX_LENGTH) return `must be at most ${ALIAS_MAX_LENGTH} characters`;
  if (!ALIAS_PATTERN.test(value)) {
    return "must start with a letter or digit and contain only letters, digits, '.', '_' and '-'";
  }
  return undefined;
};

export const orchestratorUrlRule: StringRule = (value) => {
  if (value.length === 0) return "must not be empty";
  if (value.length > ORCHESTRATOR_URL_MAX_LENGTH) return `must be at most ${ORCHESTRATOR_URL_MAX_LENGTH} characters`;
  if (!PRINTABLE_ASCII.test(value)) {
    if (WHITESPACE.test(value) || !noControlCharacter().test(value))
      return "must not contain spaces or control characters";
    if (formatCharacter().test(value)) return "must not contain invisible format characters (such as U+202E or U+200B)";
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must use http or https";
  if (url.hostname === "") return "must name a host";
  if (url.username !== "" || url.password !== "") return "must not contain user information";
  if (value.includes("#")) return "must not contain a fragment";
  if (!URL_SHAPE.test(value)) return "must be written as http(s)://host/…, without a backslash";
  return undefined;
};

export const apiKeyRule: StringRule = (value) => {
  if (value.length === 0) return "must not be empty";
  if (value.length > API_KEY_MAX_LENGTH) return `must be at most ${API_KEY_MAX_LENGTH} characters`;
  const unsafe = keyUnsafe();
  if (unsafe.control.test(value)) return "must not contain control characters";
  if (unsafe.altered.test(value))
    return "must be valid UTF-8 text (it holds an invalid byte sequence or a lone surrogate)";
  if (unsafe.invisible.test(value)) return "must not contain invisible format characters or line separators";
  if (!apiKeyPattern().test(value)) return "must not be only whitespace";
  return undefined;
};

export const AliasCodec = brandedString<Alias>("Alias", aliasRule);
export const OrchestratorUrlCodec = brandedString<OrchestratorUrl>("OrchestratorUrl", orchestratorUrlRule);

export const ApiKeyCodec = ruledString<ApiKey>(
  "ApiKey",
  apiKeyRule,
  (u): u is ApiKey => u instanceof ApiKey,
  ApiKey.unsafeFrom,
  (key) => key.reveal(),
);

/**
 * Whether `id` is a UUID as `randomUUID` writes it (lower case, hyphenated), the form of every id the services give
 * (grants, service tokens, webhooks): anything else names none. A store whose ids are typed (PostgreSQL's `uuid`)
 * answers such an id as unknown without asking its database, which would refuse it, and matches only this form,
 * as the other stores' exact comparisons do.
 */
export const isUuid = (id: string): boolean =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id);

/** A whole number, typed as a plain number (io-ts's `t.Int` brands it, which every builder would then have to cast). */
export const IntegerCodec = t.refinement(t.number, Number.isInteger, "integer");

/** Two aliases name the same connection when they are equal ignoring case. */
export const aliasKey = (alias: string): string => alias.toLowerCase();

// Times have one codec, in ./time.ts (RFC 3339 in and out); re-exported here, where every other codec is.
export { IsoTimeCodec, Rfc3339TimeCodec } from "./time.js";

/** A connection's version written as text (an entity tag's, a command-line option's): a positive integer, else none. */
export const versionFromText = (text: string): O.Option<number> =>
  /^[1-9]\d{0,14}$/.test(text) ? O.some(Number(text)) : O.none;
