import { randomBytes } from "node:crypto";
import * as E from "fp-ts/lib/Either.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  createKeyring,
  describeSecretError,
  isSealedSecret,
  masterKey,
  masterKeyId,
  SEAL_PADDING_BYTES,
  sealedKeyId,
  type SealedSecret,
  type SecretError,
} from "./keyring.js";

const KEY_A = masterKey(Buffer.alloc(32, 1));
const KEY_B = masterKey(Buffer.alloc(32, 2));
const SECRET = "sEcReT-kEy/with+base64=chars-ünïcødé-✓";

const opened = (result: E.Either<SecretError, string>): string => {
  if (E.isLeft(result)) throw new Error(`expected to open, got ${result.left._tag}`);
  return result.right;
};
const failure = (result: E.Either<SecretError, string>): SecretError => {
  if (E.isRight(result)) throw new Error("expected a failure");
  return result.left;
};

/** Flips one bit of the base64url field `field` (2 iv, 3 tag, 4 ciphertext) of a sealed secret. */
const tamper = (sealed: string, field: number): string => {
  const parts = sealed.split(".");
  const bytes = Buffer.from(parts[field] as string, "base64url");
  bytes[0] = (bytes[0] as number) ^ 0x01;
  parts[field] = bytes.toString("base64url");
  return parts.join(".");
};

describe("createKeyring", () => {
  const keyring = createKeyring({ current: KEY_A });

  it("opens what it sealed, with the same associated data", () => {
    const sealed = keyring.seal(SECRET, "lab");
    expect(isSealedSecret(sealed)).toBe(true);
    expect(sealed.startsWith(`v2.${KEY_A.id}.`)).toBe(true);
    expect(opened(keyring.open(sealed, "lab"))).toBe(SECRET);
  });

  it("uses a fresh IV for every seal", () => {
    const seals = new Set(Array.from({ length: 100 }, () => keyring.seal(SECRET, "lab").split(".")[2]));
    expect(seals.size).toBe(100);
  });

  it("never shows the plaintext, nor its base64 or hex", () => {
    const sealed = keyring.seal(SECRET, "lab");
    for (const encoding of ["base64", "base64url", "hex"] as const)
      expect(sealed).not.toContain(Buffer.from(SECRET).toString(encoding));
    expect(sealed).not.toContain(SECRET);
  });

  it.each([
    ["iv", 2],
    ["tag", 3],
    ["ciphertext", 4],
  ])("detects a tampered %s", (_name, field) => {
    expect(failure(keyring.open(tamper(keyring.seal(SECRET, "lab"), field), "lab"))).toEqual({
      _tag: "AuthenticationFailed",
      keyId: KEY_A.id,
    });
  });

  it("refuses a secret moved to another record (associated data differs)", () => {
    const sealedForLab = keyring.seal(SECRET, "lab");
    expect(failure(keyring.open(sealedForLab, "prod"))._tag).toBe("AuthenticationFailed");
  });

  it("tells a secret sealed with an unknown key from a tampered one", () => {
    const other = createKeyring({ current: KEY_B });
    expect(failure(keyring.open(other.seal(SECRET, "lab"), "lab"))).toEqual({ _tag: "UnknownKeyId", keyId: KEY_B.id });
  });

  it("reports a wrong key claiming a known id as an authentication failure", () => {
    const forged = keyring.seal(SECRET, "lab").replace(KEY_A.id, KEY_B.id);
    const withB = createKeyring({ current: KEY_B });
    expect(failure(withB.open(forged, "lab"))).toEqual({ _tag: "AuthenticationFailed", keyId: KEY_B.id });
  });

  it.each([
    "",
    "v1",
    "v3.00000000.aaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaa.aa",
    `v1.${KEY_A.id}.short.tag.ct`,
    "plain text",
  ])("refuses a malformed secret %j", (value) => {
    expect(failure(keyring.open(value, "lab"))).toEqual({ _tag: "MalformedSecret" });
  });

  it("describes failures without any secret", () => {
    const errors: SecretError[] = [
      { _tag: "MalformedSecret" },
      { _tag: "UnknownKeyId", keyId: KEY_B.id },
      { _tag: "AuthenticationFailed", keyId: KEY_A.id },
    ];
    for (const error of errors) {
      const text = describeSecretError(error);
      expect(text).not.toContain(KEY_A.key.toString("base64"));
      expect(text).not.toContain(KEY_B.key.toString("base64"));
    }
    expect(describeSecretError({ _tag: "UnknownKeyId", keyId: "abcd0123" })).toMatch(
      /abcd0123.*wrong or missing master key/,
    );
  });

  it("refuses keys of the wrong size or with a wrong id", () => {
    expect(() => masterKey(Buffer.alloc(16))).toThrow(RangeError);
    expect(() => createKeyring({ current: { id: KEY_B.id, key: KEY_A.key } })).toThrow(RangeError);
  });
});

describe("sealed length", () => {
  const keyring = createKeyring({ current: KEY_A });
  // Sealed by the v1 format's own code (before padding) under KEY_A for "lab": stores hold values like it.
  const SEALED_V1 =
    "v1.72cd6e84.I524D3rRxKeWIHV9.DfVSOtHjTY8iJRdZ7NKGHw.d7XzKLffy8rBqAuvyXo8DmarjaO5zRmNXd9zdeb21mjirfW8XoTGXcjFCAg" as SealedSecret;

  it("tells nothing about the key's length below one bucket: keys of 1 and 255 bytes seal to the same length", () => {
    const lengths = new Set(
      ["k", "k".repeat(100), SECRET, "k".repeat(SEAL_PADDING_BYTES - 1)].map((key) => keyring.seal(key, "lab").length),
    );
    expect(lengths.size).toBe(1);
    expect(keyring.seal("k".repeat(SEAL_PADDING_BYTES), "lab").length).toBeGreaterThan([...lengths][0] as number);
    expect(keyring.seal(SECRET, "lab")).toMatch(/^v2\./);
  });

  it("still opens a v1 value, which rotation re-seals into the padded format", () => {
    expect(isSealedSecret(SEALED_V1)).toBe(true);
    expect(sealedKeyId(SEALED_V1)).toBe(KEY_A.id);
    expect(opened(keyring.open(SEALED_V1, "lab"))).toBe(SECRET);
    expect(keyring.needsRotation(SEALED_V1)).toBe(true);
    expect(keyring.needsRotation(keyring.seal(SECRET, "lab"))).toBe(false);
  });

  it("never opens a v2 value relabelled v1, nor the reverse (each format has its own associated data)", () => {
    const sealed = keyring.seal(SECRET, "lab");
    expect(failure(keyring.open(sealed.replace(/^v2/, "v1"), "lab"))._tag).toBe("AuthenticationFailed");
    expect(failure(keyring.open(SEALED_V1.replace(/^v1/, "v2"), "lab"))._tag).toBe("AuthenticationFailed");
  });
});

describe("key ids", () => {
  it("are the first 8 hex characters of the key's SHA-256, stable across calls", () => {
    expect(KEY_A.id).toMatch(/^[0-9a-f]{8}$/);
    expect(masterKeyId(Buffer.alloc(32, 1))).toBe(KEY_A.id);
    expect(KEY_A.id).not.toBe(KEY_B.id);
  });
});

describe("rotation", () => {
  it("opens secrets of previous keys, seals with the current one and says what needs re-sealing", () => {
    const before = createKeyring({ current: KEY_A });
    const old = before.seal(SECRET, "lab");
    const after = createKeyring({ current: KEY_B, previous: [KEY_A] });
    expect(after.keyIds).toEqual([KEY_B.id, KEY_A.id]);
    expect(after.needsRotation(old)).toBe(true);
    expect(opened(after.open(old, "lab"))).toBe(SECRET);
    const resealed = after.seal(opened(after.open(old, "lab")), "lab");
    expect(sealedKeyId(resealed)).toBe(KEY_B.id);
    expect(after.needsRotation(resealed)).toBe(false);
    // Once the old key is dropped, only re-sealed secrets still open.
    const only = createKeyring({ current: KEY_B });
    expect(opened(only.open(resealed, "lab"))).toBe(SECRET);
    expect(failure(only.open(old, "lab"))._tag).toBe("UnknownKeyId");
  });
});

describe("properties", () => {
  const anyKey = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => masterKey(Buffer.from(bytes)));

  it("round-trips any text under any key and associated data", () => {
    fc.assert(
      fc.property(
        anyKey,
        fc.string({ unit: "grapheme", maxLength: 200 }),
        fc.string({ maxLength: 64 }),
        (key, plaintext, ad) => {
          const keyring = createKeyring({ current: key });
          expect(opened(keyring.open(keyring.seal(plaintext, ad), ad))).toBe(plaintext);
        },
      ),
    );
  });

  it("never opens under different associated data", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 50 }),
        fc.string({ maxLength: 64 }),
        fc.string({ maxLength: 64 }),
        (plaintext, ad, other) => {
          fc.pre(ad !== other);
          const keyring = createKeyring({ current: KEY_A });
          expect(failure(keyring.open(keyring.seal(plaintext, ad), other))._tag).toBe("AuthenticationFailed");
        },
      ),
    );
  });

  it("never opens after any single bit of iv, tag or ciphertext flips", () => {
    const keyring = createKeyring({ current: KEY_A });
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 50 }), fc.nat(), fc.nat(7), (plaintext, position, bit) => {
        const [version, keyId, ...rest] = keyring.seal(plaintext, "lab").split(".");
        const fields = rest.map((field) => Buffer.from(field, "base64url"));
        const total = fields.reduce((sum, field) => sum + field.length, 0);
        let at = position % total;
        const field = fields.findIndex((candidate) =>
          at < candidate.length ? true : ((at -= candidate.length), false),
        );
        const target = fields[field] as Buffer;
        target[at] = (target[at] as number) ^ (1 << bit);
        const tampered = [version, keyId, ...fields.map((candidate) => candidate.toString("base64url"))].join(".");
        expect(keyring.open(tampered, "lab")._tag).toBe("Left");
      }),
    );
  });
});

describe("random keys", () => {
  it("work end to end", () => {
    const keyring = createKeyring({ current: masterKey(randomBytes(32)) });
    expect(opened(keyring.open(keyring.seal(SECRET, "x"), "x"))).toBe(SECRET);
  });
});

describe("derivedKey", () => {
  it("is the same for one master key and purpose, different for another of either, and never the master key", () => {
    const [one, again, other] = [
      createKeyring({ current: KEY_A }),
      createKeyring({ current: KEY_A, previous: [KEY_B] }),
      createKeyring({ current: KEY_B }),
    ];
    expect(one.derivedKey("fingerprint")).toEqual(again.derivedKey("fingerprint"));
    expect(one.derivedKey("fingerprint")).toHaveLength(32);
    expect(one.derivedKey("fingerprint")).not.toEqual(one.derivedKey("something else"));
    expect(one.derivedKey("fingerprint")).not.toEqual(other.derivedKey("fingerprint"));
    expect(one.derivedKey("fingerprint")).not.toEqual(KEY_A.key);
  });
});
