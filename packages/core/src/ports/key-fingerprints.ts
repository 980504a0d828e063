import { createHmac, randomBytes } from "node:crypto";
import type { ApiKey } from "../domain/api-key.js";
import { aliasKey, type Alias } from "../domain/codecs.js";

/**
 * Keyed fingerprints of connections' apiKeys, to tell whether a stored key is
 * the one an operator holds without showing it. Within one deployment one
 * connection's key always gives the same fingerprint; the fingerprint cannot
 * be reversed, and nobody can compute it offline without the deployment's
 * secret (an HMAC whose key derives from the master key, never a plain hash
 * of the apiKey). Each connection has a key of its own: the same apiKey on
 * two connections gives two fingerprints, so fingerprints neither tell which
 * connections share a key nor let a guess stored on one connection (by an
 * admin, unthrottled) be compared with another's key.
 */
export interface KeyFingerprints {
  /** The fingerprint of `apiKey` as the key of the connection `alias` (in any case). */
  fingerprint(alias: Alias, apiKey: ApiKey): string;
}

const hmac = (key: Buffer, text: string): Buffer => createHmac("sha256", key).update(text, "utf8").digest();

/**
 * HMAC-SHA-256 of the key, base64url, under the connection's own key: an HMAC of its lower-cased alias under
 * `secret`. What the stores' master-key fingerprints compute too.
 */
export const hmacFingerprints = (secret: Buffer): KeyFingerprints => ({
  fingerprint: (alias, apiKey) => hmac(hmac(secret, aliasKey(alias)), apiKey.reveal()).toString("base64url"),
});

/** The stores' fingerprints: under a key derived from the master key (a keyring's `derivedKey`), the same for every instance of a deployment. */
export const masterKeyFingerprints = (keyring: { derivedKey(purpose: string): Buffer }): KeyFingerprints => hmacFingerprints(keyring.derivedKey("apiKey-fingerprint/v1"));

/** Fingerprints under a random secret of this process: for embedding core alone; they change at every start. */
export const createProcessKeyFingerprints = (): KeyFingerprints => hmacFingerprints(randomBytes(32));
