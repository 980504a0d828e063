import { createHmac, randomBytes } from "node:crypto";
import type { ApiKey } from "../domain/api-key.js";

/**
 * Keyed fingerprints of apiKeys, to tell whether a stored key is the one an
 * operator holds without showing it. Within one deployment the same key
 * always gives the same fingerprint; the fingerprint cannot be reversed, and
 * nobody can compute it offline without the deployment's secret (an HMAC
 * whose key derives from the master key, never a plain hash of the apiKey).
 */
export interface KeyFingerprints {
  fingerprint(apiKey: ApiKey): string;
}

/** HMAC-SHA-256 under `secret`, base64url: what the stores' master-key fingerprints compute too. */
export const hmacFingerprints = (secret: Buffer): KeyFingerprints => ({
  fingerprint: (apiKey) => createHmac("sha256", secret).update(apiKey.reveal(), "utf8").digest("base64url"),
});

/** The stores' fingerprints: under a key derived from the master key (a keyring's `derivedKey`), the same for every instance of a deployment. */
export const masterKeyFingerprints = (keyring: { derivedKey(purpose: string): Buffer }): KeyFingerprints => hmacFingerprints(keyring.derivedKey("apiKey-fingerprint/v1"));

/** Fingerprints under a random secret of this process: for embedding core alone; they change at every start. */
export const createProcessKeyFingerprints = (): KeyFingerprints => hmacFingerprints(randomBytes(32));
