import type { ApiKey } from "../domain/api-key.js";
import type { Alias } from "../domain/codecs.js";

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
