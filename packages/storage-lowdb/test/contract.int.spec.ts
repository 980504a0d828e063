import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { describeConnectionRepositoryContract, describeStorageContract } from "@sdwan-connections/core/contract";
import { expectRight } from "@sdwan-connections/core/testing";
import { createLowdbAuditLog } from "../src/audit-file.js";
import type { ConnectionsFile } from "../src/connections-file.js";
import { createLowdbConnectionRepository } from "../src/lowdb-connection-repository.js";
import { openLowdbStorage } from "../src/open-lowdb-storage.js";
import { keyringOf, openOrThrow, temporaryDirectory } from "./support.js";

const directory = await temporaryDirectory();
let dataDir = directory.path;
let generation = 0;
const opened: { close(): Promise<void> }[] = [];
const auditLog = () => {
  const log = createLowdbAuditLog({ dataDir, lockStaleMs: 2000 });
  opened.push(log);
  return log;
};

describeConnectionRepositoryContract("LowdbConnectionRepository", {
  // Each call opens the file and its audit trail anew, as a second process would: the suite checks they see each other's writes.
  make: async () => {
    const file: ConnectionsFile = await openOrThrow({ dataDir, audit: auditLog().journal });
    opened.push(file);
    return createLowdbConnectionRepository(file);
  },
  audit: async () => auditLog(),
  reset: async () => {
    generation += 1;
    dataDir = join(directory.path, `store-${generation}`);
  },
  peek: () => readFile(join(dataDir, "connections.json"), "utf8"),
  close: async () => {
    await Promise.all(opened.map((file) => file.close()));
    await rm(directory.path, { recursive: true, force: true });
  },
});

const storageDirectory = await temporaryDirectory();
let storageDataDir = storageDirectory.path;
let storages = 0;
describeStorageContract("openLowdbStorage", {
  open: async () => expectRight(openLowdbStorage({ dataDir: storageDataDir, keyring: keyringOf(), lockStaleMs: 2000 })),
  reset: async () => {
    storages += 1;
    storageDataDir = join(storageDirectory.path, `store-${storages}`);
  },
  close: () => rm(storageDirectory.path, { recursive: true, force: true }),
});
