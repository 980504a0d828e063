import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import * as E from "fp-ts/lib/Either.js";

/** Length in bytes of an AES-256 key. */
export const MASTER_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The format new seals use; `v1` (unpadded) values still open. */
const FORMAT = "v2";
type Format = "v1" | "v2";
// Domain separation: a ciphertext made for another purpose or format cannot pass for a sealed apiKey.
const aadPrefix = (format: Format) => `sdwan-connections/sealed-secret/${format}\u0000`;
/** v2 pads the plaintext to a multiple of this many bytes, so a sealed key's length tells only its bucket (every key below 256 bytes seals alike). */
export const SEAL_PADDING_BYTES = 256;
const PAD_MARK = 0x80;

/** A master key and its public id (first 8 hex characters of the key's SHA-256). */
export interface MasterKey {
  readonly id: string;
  readonly key: Buffer;
}

/** The public id of a key: stable across restarts, and reveals nothing usable about the key. */
export const masterKeyId = (key: Buffer): string => createHash("sha256").update(key).digest("hex").slice(0, 8);

/** Wraps 32 key bytes with their id. Throws RangeError on any other length (a programming error: decode input first). */
export const masterKey = (key: Buffer): MasterKey => {
  if (key.length !== MASTER_KEY_BYTES) throw new RangeError(`a master key must be ${MASTER_KEY_BYTES} bytes`);
  return { id: masterKeyId(key), key };
};

/**
 * A sealed secret, one compact printable string:
 * `v2.<keyId>.<iv>.<tag>.<ciphertext>` with iv, tag and ciphertext in
 * base64url. AES-256-GCM, 12-byte random IV per seal, 16-byte tag. In v2 the
 * plaintext is padded first (a 0x80 byte, then zeros, to a multiple of
 * SEAL_PADDING_BYTES); v1, its unpadded predecessor, still opens.
 */
export type SealedSecret = string & { readonly __brand: "SealedSecret" };

const SEALED_PATTERN = /^(v[12])\.([0-9a-f]{8})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]*)$/;

/** True when `value` has the shape of a sealed secret (says nothing about whether it opens). */
export const isSealedSecret = (value: unknown): value is SealedSecret =>
  typeof value === "string" && SEALED_PATTERN.test(value);

/** The id of the key that sealed `sealed` (its shape was checked when it became a SealedSecret, e.g. by `isSealedSecret`). */
export const sealedKeyId = (sealed: SealedSecret): string =>
  (SEALED_PATTERN.exec(sealed) as RegExpExecArray)[2] as string;

// ISO/IEC 7816-4 padding: the mark, then zeros up to the next multiple (at least the mark is added).
const pad = (plaintext: Buffer): Buffer => {
  const padded = Buffer.alloc((Math.floor(plaintext.length / SEAL_PADDING_BYTES) + 1) * SEAL_PADDING_BYTES);
  plaintext.copy(padded);
  padded[plaintext.length] = PAD_MARK;
  return padded;
};

const unpad = (padded: Buffer): Buffer | undefined => {
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  return end >= 0 && padded[end] === PAD_MARK ? padded.subarray(0, end) : undefined;
};

/**
 * Why a sealed secret did not open. None of them carries the plaintext or a
 * key; `keyId` is public.
 */
export type SecretError =
  | { readonly _tag: "MalformedSecret" }
  | { readonly _tag: "UnknownKeyId"; readonly keyId: string }
  | { readonly _tag: "AuthenticationFailed"; readonly keyId: string };

export const describeSecretError = (error: SecretError): string => {
  switch (error._tag) {
    case "MalformedSecret":
      return "the sealed secret is malformed";
    case "UnknownKeyId":
      return `the secret was sealed with master key ${error.keyId}, which is not configured (wrong or missing master key?)`;
    case "AuthenticationFailed":
      return `the secret sealed with master key ${error.keyId} failed authentication (tampered, or moved from another record)`;
  }
};

/** Seals and opens secrets with a current master key; previous keys only open. */
export interface Keyring {
  /** Id of the key new seals use. */
  readonly currentKeyId: string;
  /** Ids of every key that can open, current first. */
  readonly keyIds: readonly string[];
  /** Encrypts `plaintext` under the current key, binding `associatedData` (e.g. the record's alias key). */
  seal(plaintext: string, associatedData: string): SealedSecret;
  /** Decrypts, failing when the key is unknown, the data was altered or `associatedData` differs. */
  open(sealed: string, associatedData: string): E.Either<SecretError, string>;
  /** True when `sealed` was not sealed with the current key, or in an older format (rotation should re-seal it). */
  needsRotation(sealed: string): boolean;
  /**
   * A 32-byte key for another use (`purpose` names it), derived from the current master key with
   * HKDF-SHA-256: the same for every process with that master key, useless for opening secrets.
   */
  derivedKey(purpose: string): Buffer;
}

export interface KeyringOptions {
  readonly current: MasterKey;
  /** Keys that still open older secrets until a rotation re-seals them. */
  readonly previous?: readonly MasterKey[];
}

const aad = (format: Format, associatedData: string): Buffer => Buffer.from(aadPrefix(format) + associatedData, "utf8");

/**
 * A keyring over master keys. Throws RangeError when a key is not 32 bytes or
 * its id does not match it (programming errors: `loadMasterKeys` decodes input).
 */
export const createKeyring = ({ current, previous = [] }: KeyringOptions): Keyring => {
  const keys = new Map<string, Buffer>();
  for (const candidate of [current, ...previous]) {
    if (candidate.key.length !== MASTER_KEY_BYTES)
      throw new RangeError(`master key ${candidate.id} must be ${MASTER_KEY_BYTES} bytes`);
    if (masterKeyId(candidate.key) !== candidate.id)
      throw new RangeError(`master key id ${candidate.id} does not match its key`);
    if (!keys.has(candidate.id)) keys.set(candidate.id, Buffer.from(candidate.key));
  }
  const currentKey = keys.get(current.id) as Buffer;

  return {
    currentKeyId: current.id,
    keyIds: [...keys.keys()],
    seal: (plaintext, associatedData) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", currentKey, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(FORMAT, associatedData));
      const ciphertext = Buffer.concat([cipher.update(pad(Buffer.from(plaintext, "utf8"))), cipher.final()]);
      const tag = cipher.getAuthTag();
      return `${FORMAT}.${current.id}.${iv.toString("base64url")}.${tag.toString("base64url")}.${ciphertext.toString("base64url")}` as SealedSecret;
    },
    open: (sealed, associatedData) => {
      const parts = SEALED_PATTERN.exec(sealed);
      if (parts === null) return E.left({ _tag: "MalformedSecret" });
      const [, format, keyId, iv, tag, ciphertext] = parts as unknown as [
        string,
        Format,
        string,
        string,
        string,
        string,
      ];
      const key = keys.get(keyId);
      if (key === undefined) return E.left({ _tag: "UnknownKeyId", keyId });
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"), {
          authTagLength: TAG_BYTES,
        });
        decipher.setAAD(aad(format, associatedData));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        const opened = Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]);
        const plaintext = format === "v1" ? opened : unpad(opened);
        // Authenticated, so only a sealer that is not this one could have padded it wrongly.
        return plaintext === undefined ? E.left({ _tag: "MalformedSecret" }) : E.right(plaintext.toString("utf8"));
      } catch {
        // node:crypto says only "Unsupported state or unable to authenticate data"; nothing secret either way.
        return E.left({ _tag: "AuthenticationFailed", keyId });
      }
    },
    needsRotation: (sealed) =>
      !sealed.startsWith(`${FORMAT}.`) || !isSealedSecret(sealed) || sealedKeyId(sealed) !== current.id,
    derivedKey: (purpose) =>
      Buffer.from(hkdfSync("sha256", currentKey, Buffer.alloc(0), `sdwan-connections/${purpose}`, MASTER_KEY_BYTES)),
  };
};
