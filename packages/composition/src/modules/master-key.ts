import { createKeyring, describeMasterKeyError, loadMasterKeys, type Keyring } from "@sdwan-connections/secrets";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { Config } from "../config.js";

/** The keyring sealing apiKeys: SDWAN_MASTER_KEY (+ _PREVIOUS), decoded by the configuration, or the key generated into the data directory. */
export const loadKeyring = (config: Config): TE.TaskEither<string, Keyring> =>
  TE.bimap(describeMasterKeyError, createKeyring)(
    loadMasterKeys({ current: config.masterKey, previous: config.previousMasterKeys, dataDir: config.dataDir }),
  );
