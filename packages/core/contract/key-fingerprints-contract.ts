import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ApiKey, type Alias, type KeyFingerprints } from "../src/index.js";

export interface KeyFingerprintsContractOptions {
  /** Fingerprints of one deployment: every call gives a new instance over the same secret (another process of it). */
  make(): KeyFingerprints;
  /** Fingerprints of another deployment (another secret). */
  makeElsewhere(): KeyFingerprints;
}

const KEYS = ["sEcReT-kEy/with+base64=chars-ünïcødé-✓", "k", "k".repeat(8192)];
const LAB = "Lab" as Alias;

/** The behaviour every KeyFingerprints adapter must show; run it from the adapter's own tests. */
export const describeKeyFingerprintsContract = (name: string, options: KeyFingerprintsContractOptions): void => {
  describe(`${name} satisfies the KeyFingerprints contract`, () => {
    it("gives one connection's key the same fingerprint in every instance of a deployment, and different keys different ones", () => {
      const [one, two] = [options.make(), options.make()];
      const fingerprints = KEYS.map((key) => one.fingerprint(LAB, ApiKey.unsafeFrom(key)));
      expect(KEYS.map((key) => two.fingerprint(LAB, ApiKey.unsafeFrom(key)))).toEqual(fingerprints);
      expect(new Set(fingerprints).size).toBe(KEYS.length);
    });

    // Regression: equal keys had equal fingerprints on every connection, so viewers could tell which connections share a
    // key, and an admin could store guesses on one connection (unthrottled) and compare them with another's fingerprint.
    it("gives two connections with the same key different fingerprints; one connection, in any case of its alias, the same", () => {
      const [one, two] = [options.make(), options.make()];
      for (const key of KEYS.map((key) => ApiKey.unsafeFrom(key))) {
        const lab = one.fingerprint(LAB, key);
        expect(two.fingerprint("LAB" as Alias, key)).toBe(lab);
        expect(two.fingerprint("lab" as Alias, key)).toBe(lab);
        const others = ["lab2", "Lab.", "ab", "other"].map((alias) => one.fingerprint(alias as Alias, key));
        expect(new Set([lab, ...others]).size).toBe(5);
      }
    });

    it("gives fingerprints of one length whatever the key (so they compare in constant time)", () => {
      const fingerprints = options.make();
      expect(new Set(KEYS.map((key) => fingerprints.fingerprint(LAB, ApiKey.unsafeFrom(key)).length)).size).toBe(1);
    });

    it("is keyed: another deployment's fingerprint differs, and none is a plain hash of the key or holds it", () => {
      const [here, elsewhere] = [options.make(), options.makeElsewhere()];
      for (const key of KEYS) {
        const fingerprint = here.fingerprint(LAB, ApiKey.unsafeFrom(key));
        expect(elsewhere.fingerprint(LAB, ApiKey.unsafeFrom(key))).not.toBe(fingerprint);
        for (const algorithm of ["sha1", "sha256", "sha512"]) {
          for (const encoding of ["hex", "base64", "base64url"] as const) {
            expect(fingerprint).not.toContain(createHash(algorithm).update(key).digest(encoding).slice(0, 16));
          }
        }
        // (A one-character key may well appear in any text by chance.)
        if (key.length < 8) continue;
        for (const encoding of ["utf8", "base64", "base64url", "hex"] as const) {
          expect(fingerprint).not.toContain(Buffer.from(key).toString(encoding).slice(0, 16));
        }
      }
    });
  });
};
