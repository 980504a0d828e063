import { describeError } from "@sdwan-connections/core";
import {
  createKeyring,
  decodeMasterKeyVariables,
  describeMasterKeyError,
  loadMasterKeys,
} from "@sdwan-connections/secrets";
import { openLowdbStorage } from "@sdwan-connections/storage-lowdb";
import * as E from "fp-ts/lib/Either.js";

/** What the composition root does with SDWAN_STORAGE=lowdb: a bad key or file stops the start with one clear line. */
export const openStorage = async (env: Readonly<Record<string, string | undefined>>) => {
  const dataDir = env.SDWAN_DATA_DIR ?? "./data";
  const variables = decodeMasterKeyVariables(env); // SDWAN_MASTER_KEY and SDWAN_MASTER_KEY_PREVIOUS
  if (E.isLeft(variables)) throw new Error(describeMasterKeyError(variables.left));
  const keys = await loadMasterKeys({ ...variables.right, dataDir })(); // or dataDir/master.key, generated at first start
  if (E.isLeft(keys)) throw new Error(describeMasterKeyError(keys.left));
  const storage = await openLowdbStorage({ dataDir, keyring: createKeyring(keys.right) })();
  if (E.isLeft(storage)) throw new Error(describeError(storage.left));
  return storage.right; // core's Storage: repository, changes, fingerprints, audit, health, failures, close
};

/** Step 3 of a key rotation: re-seal every apiKey with SDWAN_MASTER_KEY while SDWAN_MASTER_KEY_PREVIOUS still opens the old ones. */
export const rotateMasterKey = async (env: Readonly<Record<string, string | undefined>>) => {
  const storage = await openStorage(env);
  try {
    const rotated = await storage.repository.resealKeys()();
    if (E.isLeft(rotated)) throw new Error(`rotation failed: ${describeError(rotated.left)}`);
    return rotated.right; // { rotated, total }
  } finally {
    await storage.close();
  }
};
