import { createKeyring, describeMasterKeyError, loadMasterKeys } from "@sdwan-connections/secrets";
import { createLowdbConnectionRepository, describeConnectionsFileError, openConnectionsFile } from "@sdwan-connections/storage-lowdb";
import * as E from "fp-ts/lib/Either.js";

/** What the composition root does with SDWAN_STORAGE=lowdb: a bad key or file stops the start with one clear line. */
export const openLowdbStorage = async (env: Readonly<Record<string, string | undefined>>) => {
  const dataDir = env.SDWAN_DATA_DIR ?? "./data";
  const keys = await loadMasterKeys({ env, dataDir });
  if (E.isLeft(keys)) throw new Error(describeMasterKeyError(keys.left));
  const file = await openConnectionsFile({ dataDir, keyring: createKeyring(keys.right) })();
  if (E.isLeft(file)) throw new Error(describeConnectionsFileError(file.left));
  return { repository: createLowdbConnectionRepository(file.right), close: file.right.close };
};

/** Step 3 of a key rotation: re-seal every apiKey with SDWAN_MASTER_KEY while SDWAN_MASTER_KEY_PREVIOUS still opens the old ones. */
export const rotateMasterKey = async (env: Readonly<Record<string, string | undefined>>) => {
  const dataDir = env.SDWAN_DATA_DIR ?? "./data";
  const keys = await loadMasterKeys({ env, dataDir });
  if (E.isLeft(keys)) throw new Error(describeMasterKeyError(keys.left));
  const file = await openConnectionsFile({ dataDir, keyring: createKeyring(keys.right) })();
  if (E.isLeft(file)) throw new Error(describeConnectionsFileError(file.left));
  try {
    const rotated = await file.right.rotate()();
    if (E.isLeft(rotated)) throw new Error(`rotation failed: ${rotated.left._tag}`);
    return rotated.right; // { rotated, total }
  } finally {
    await file.right.close();
  }
};
