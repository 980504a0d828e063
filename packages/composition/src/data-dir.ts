import { stat } from "node:fs/promises";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { StoreLocation } from "./stores.js";

const GROUP_OR_OTHERS_WRITE = 0o022;

/**
 * The data directory holds the store, the master key and the generated
 * admin: one that its group or others may write is refused, as a readable
 * `master.key` is. A missing directory is fine: it is created 0700.
 */
export const checkDataDirectory =
  (dataDir: string): TaskEither<string, void> =>
  async () => {
    try {
      const { mode } = await stat(dataDir);
      if ((mode & GROUP_OR_OTHERS_WRITE) === 0) return E.right(undefined);
      const octal = (mode & 0o777).toString(8).padStart(4, "0");
      return E.left(
        `SDWAN_DATA_DIR: ${dataDir} may be written by its group or others (mode ${octal}); make it private: chmod 700 ${dataDir}`,
      );
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === "ENOENT"
        ? E.right(undefined)
        : E.left(`SDWAN_DATA_DIR: cannot read ${dataDir} (${code ?? "unknown error"})`);
    }
  };

/** Where the embedded store was looked for, and how to point elsewhere: for a command that found none. */
export const describeMissingStore = (location: Extract<StoreLocation, { kind: "lowdb" }>): string =>
  `no store in ${location.dataDir} (${location.fromDefault ? "SDWAN_DATA_DIR is not set: ./data in the current directory" : "SDWAN_DATA_DIR"}); ` +
  "set SDWAN_DATA_DIR to the service's data directory (pnpm demo prints the line to export)";
