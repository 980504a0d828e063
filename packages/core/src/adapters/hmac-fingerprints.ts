import { createHmac, randomBytes } from "node:crypto";
import { aliasKey } from "../domain/codecs.js";
import type { KeyFingerprints } from "../ports/key-fingerprints.js";

const hmac = (key: Buffer, text: string): Buffer => createHmac("sha256", key).update(text, "utf8").digest();

/**
 * HMAC-SHA-256 of the key, base64url, under the connection's own key: an HMAC of its lower-cased alias under
 * `secret`. What the stores' master-key fingerprints compute too.
 */
export const hmacFingerprints = (secret: Buffer): KeyFingerprints => ({
  fingerprint: (alias, apiKey) => hmac(hmac(secret, aliasKey(alias)), apiKey.reveal()).toString("base64url"),
});

/**
 * The stores' fingerprints: under a key derived from the master key (a keyring's `derivedKey`), the same for every
 * instance of a deployment. Derived at the first fingerprint: a command that shows none (the CLI's list) never does.
 */
export const masterKeyFingerprints = (keyring: { derivedKey(purpose: string): Buffer }): KeyFingerprints => {
  let fingerprints: KeyFingerprints | undefined;
  return {
    fingerprint: (alias, apiKey) =>
      (fingerprints ??= hmacFingerprints(keyring.derivedKey("apiKey-fingerprint/v1"))).fingerprint(alias, apiKey),
  };
};

/** Fingerprints under a random secret of this process: for embedding core alone; they change at every start. */
export const createProcessKeyFingerprints = (): KeyFingerprints => hmacFingerprints(randomBytes(32));
