import {
  createKeyring,
  decodeMasterKeyVariables,
  describeMasterKeyError,
  describeSecretError,
  loadMasterKeys,
} from "@sdwan-connections/secrets";
import * as E from "fp-ts/lib/Either.js";

/** Seal an apiKey for storage and open it again; the lowercase alias is the associated data. */
export const sealAndOpen = async (env: Readonly<Record<string, string | undefined>>, dataDir: string) => {
  const variables = decodeMasterKeyVariables(env); // SDWAN_MASTER_KEY and SDWAN_MASTER_KEY_PREVIOUS, decoded once
  if (E.isLeft(variables)) throw new Error(describeMasterKeyError(variables.left)); // names the variable, never the key
  const keys = await loadMasterKeys({ ...variables.right, dataDir })(); // the given key, or dataDir/master.key (generated 0600)
  if (E.isLeft(keys)) throw new Error(describeMasterKeyError(keys.left)); // names the file, never the key
  const keyring = createKeyring(keys.right);
  const sealed = keyring.seal("the-api-key", "lab"); // "v2.<keyId>.<iv>.<tag>.<ciphertext>"
  const opened = keyring.open(sealed, "lab");
  if (E.isLeft(opened)) throw new Error(describeSecretError(opened.left));
  return { sealed, opened: opened.right, needsRotation: keyring.needsRotation(sealed) };
};
