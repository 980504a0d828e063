import * as E from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import type { ApiKey } from "./api-key.js";
import { ApiKeyCodec, brandedString, madeOnFirstUse, type Branded, type StringRule } from "./codecs.js";

/**
 * Keys kept elsewhere (SPEC §12): a reference, `file:NAME` (a file in SDWAN_APIKEY_DIR: a Kubernetes Secret or a
 * CSI mount) or `env:NAME` (a variable named SDWAN_APIKEY_…), read when the key is used and never stored.
 */
export type ApiKeyRef = Branded<"ApiKeyRef">;

/** The prefix every variable holding a key carries: a reference never reads a setting of the service (SDWAN_MASTER_KEY). */
export const KEY_VARIABLE_PREFIX = "SDWAN_APIKEY_";
/** The largest key file read (a key is at most a few hundred bytes). */
export const KEY_FILE_MAX_BYTES = 16 * 1024;
export const API_KEY_REF_MAX_LENGTH = 512;

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// A name inside the key directory: relative, no `.`/`..` step, no control or invisible character, no backslash.
const fileName = madeOnFirstUse(() => /^(?!\/)(?!.*(?:^|\/)\.{1,2}(?:\/|$))[^\\\p{Cc}\p{Cf}]+$/u);

export const apiKeyRefRule: StringRule = (value) => {
  if (value.length > API_KEY_REF_MAX_LENGTH) return `must be at most ${API_KEY_REF_MAX_LENGTH} characters`;
  if (value.startsWith("env:")) {
    const name = value.slice(4);
    if (!VARIABLE_NAME.test(name)) return "env:NAME must name an environment variable (letters, digits, '_')";
    return name.startsWith(KEY_VARIABLE_PREFIX) && name.length > KEY_VARIABLE_PREFIX.length
      ? undefined
      : `env:NAME must name a variable ${KEY_VARIABLE_PREFIX}… (only those hold keys, never a setting of the service)`;
  }
  if (value.startsWith("file:"))
    return fileName().test(value.slice(5))
      ? undefined
      : "file:NAME must name a file inside SDWAN_APIKEY_DIR (relative, without '.' or '..' steps)";
  return "must be file:NAME (a file in SDWAN_APIKEY_DIR) or env:NAME (a variable SDWAN_APIKEY_…)";
};

export const ApiKeyRefCodec = brandedString<ApiKeyRef>("ApiKeyRef", apiKeyRefRule);

/** A reference taken apart: where its key is read. */
export type KeyReference =
  { readonly kind: "env"; readonly name: string } | { readonly kind: "file"; readonly name: string };

export const keyReferenceOf = (reference: string): KeyReference =>
  reference.startsWith("env:") ? { kind: "env", name: reference.slice(4) } : { kind: "file", name: reference.slice(5) };

/** A key file's (or variable's) text as a key: trimmed (a Secret's file often ends with a line break), then an apiKey's rules. */
export const KeyText = new t.Type<ApiKey, string, unknown>(
  "KeyText",
  ApiKeyCodec.is,
  (input, context) =>
    typeof input === "string" ? ApiKeyCodec.validate(input.trim(), context) : t.failure(input, context, "must be text"),
  ApiKeyCodec.encode,
);

/** The key a text holds, or why it is not one (the rule broken, never the text). */
export const decodeKeyText = (text: string): E.Either<string, ApiKey> =>
  E.mapLeft((errors: t.Errors) => `does not hold a valid apiKey: ${errors[0]?.message ?? "invalid"}`)(
    KeyText.decode(text),
  );

// The bytes a text may stand for: its base64 decoding (how master.key and SDWAN_MASTER_KEY write a master key) or its hex one.
const bytesOf = (text: string): Uint8Array[] => [Buffer.from(text.trim(), "base64"), Buffer.from(text.trim(), "hex")];

/** The 32-byte master keys a text (a master key file's content) writes. */
export const masterKeysIn = (text: string): Uint8Array[] => bytesOf(text).filter((bytes) => bytes.length === 32);

/** Whether a key's text is, or decodes to, one of the master keys (a copy of master.key, SDWAN_MASTER_KEY's value, its hex). */
export const isMasterKeyText = (text: string, masterKeys: readonly Uint8Array[]): boolean =>
  bytesOf(text).some((bytes) => masterKeys.some((masterKey) => Buffer.from(masterKey).equals(bytes)));
