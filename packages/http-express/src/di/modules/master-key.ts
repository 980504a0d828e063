import { createKeyring, describeMasterKeyError, loadMasterKeys, type Keyring } from "@sdwan-connections/secrets";
import type { Config } from "../../config.js";
import { StartupError } from "./startup-error.js";

/** The keyring sealing apiKeys: SDWAN_MASTER_KEY (+ _PREVIOUS), or the key generated into the data directory. */
export const loadKeyring = async (config: Config): Promise<Keyring> => {
  const keys = await loadMasterKeys({
    env: { SDWAN_MASTER_KEY: config.masterKey?.toString("base64"), SDWAN_MASTER_KEY_PREVIOUS: config.previousMasterKeys },
    dataDir: config.dataDir,
  });
  if (keys._tag === "Left") throw new StartupError(describeMasterKeyError(keys.left));
  return createKeyring({ current: keys.right.current, previous: keys.right.previous });
};
