import { hmacFingerprints, type KeyFingerprints } from "@sdwan-connections/core";
import { createKeyring, describeMasterKeyError, loadMasterKeys, type Keyring } from "@sdwan-connections/secrets";
import * as E from "fp-ts/lib/Either.js";
import type { Config } from "../config.js";

/** The keyring sealing apiKeys: SDWAN_MASTER_KEY (+ _PREVIOUS), or the key generated into the data directory. */
export const loadKeyring = async (config: Config): Promise<E.Either<string, Keyring>> => {
  const keys = await loadMasterKeys({
    env: { SDWAN_MASTER_KEY: config.masterKey?.toString("base64"), SDWAN_MASTER_KEY_PREVIOUS: config.previousMasterKeys },
    dataDir: config.dataDir,
  });
  return E.isLeft(keys) ? E.left(describeMasterKeyError(keys.left)) : E.right(createKeyring(keys.right));
};

/** apiKey fingerprints keyed by the master key: every instance of a deployment computes the same, nobody without the key can. */
export const masterKeyFingerprints = (keyring: Keyring): KeyFingerprints => hmacFingerprints(keyring.derivedKey("apiKey-fingerprint/v1"));
