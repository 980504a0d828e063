import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  describeConnectionRepositoryContract,
  describeHealthLedgerContract,
  describeServiceTokenStoreContract,
  describeGrantStoreContract,
  describeStorageContract,
  describeRenewalLedgerContract,
  describeWebhookStoreContract,
} from "@sdwan-connections/core/contract";
import { expectRight } from "@sdwan-connections/core/testing";
import { createLowdbAuditLog } from "../src/audit-file.js";
import type { ConnectionsFile } from "../src/connections-file.js";
import { createLowdbHealthLedger } from "../src/health-file.js";
import { openLowdbStorage } from "../src/open-lowdb-storage.js";
import { createLowdbServiceTokenStore } from "../src/tokens-file.js";
import { createLowdbGrantStore } from "../src/grants-file.js";
import { createLowdbRenewalLedger, RENEWALS_FILE } from "../src/renewals-file.js";
import { keyringOf, openOrThrow, temporaryDirectory } from "./support.js";
import { createLowdbConnectionRepository } from "../src/connection-repository.js";

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

const healthDirectory = await temporaryDirectory();
let healthDir = healthDirectory.path;
const ledgers: { close(): Promise<void> }[] = [];

describeHealthLedgerContract("LowdbHealthLedger", {
  // Each ledger over the same health.json, as another process's would be.
  make: async () => {
    const ledger = createLowdbHealthLedger({ dataDir: healthDir, lockStaleMs: 2000 });
    ledgers.push(ledger);
    return ledger;
  },
  reset: async () => {
    generation += 1;
    healthDir = join(healthDirectory.path, `store-${generation}`);
    await mkdir(healthDir);
  },
  close: async () => {
    await Promise.all(ledgers.map((ledger) => ledger.close()));
    await rm(healthDirectory.path, { recursive: true, force: true });
  },
});

const tokensDirectory = await temporaryDirectory();
let tokensDir = tokensDirectory.path;
const tokenStores: { close(): Promise<void> }[] = [];

describeServiceTokenStoreContract("LowdbServiceTokenStore", {
  // Each store over the same tokens.json, as another process's would be.
  make: async () => {
    const tokens = createLowdbServiceTokenStore({ dataDir: tokensDir, lockStaleMs: 2000 });
    tokenStores.push(tokens);
    return tokens;
  },
  reset: async () => {
    generation += 1;
    tokensDir = join(tokensDirectory.path, `store-${generation}`);
    await mkdir(tokensDir);
  },
  peek: () => readFile(join(tokensDir, "tokens.json"), "utf8"),
  close: async () => {
    await Promise.all(tokenStores.map((tokens) => tokens.close()));
    await rm(tokensDirectory.path, { recursive: true, force: true });
  },
});

const grantsDirectory = await temporaryDirectory();
let grantsDir = grantsDirectory.path;
const grantStores: { close(): Promise<void> }[] = [];

describeGrantStoreContract("LowdbGrantStore", {
  // Each store over the same grants.json, as another process's would be.
  make: async () => {
    const grants = createLowdbGrantStore({ dataDir: grantsDir, lockStaleMs: 2000 });
    grantStores.push(grants);
    return grants;
  },
  reset: async () => {
    generation += 1;
    grantsDir = join(grantsDirectory.path, `store-${generation}`);
    await mkdir(grantsDir);
  },
  close: async () => {
    await Promise.all(grantStores.map((grants) => grants.close()));
    await rm(grantsDirectory.path, { recursive: true, force: true });
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

const webhooksDirectory = await temporaryDirectory();
let webhooksDataDir = webhooksDirectory.path;
describeWebhookStoreContract("LowdbWebhookStore", {
  open: async () =>
    expectRight(openLowdbStorage({ dataDir: webhooksDataDir, keyring: keyringOf(), lockStaleMs: 2000 })),
  reset: async () => {
    storages += 1;
    webhooksDataDir = join(webhooksDirectory.path, `store-${storages}`);
  },
  // Every file of the data directory (the webhooks', their deliveries', the audit trail's, its segments').
  peek: async () => {
    const names = await readdir(webhooksDataDir, { recursive: true, withFileTypes: true });
    const files = names.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
    return (await Promise.all(files.map((file) => readFile(file, "utf8")))).join("\n");
  },
  close: () => rm(webhooksDirectory.path, { recursive: true, force: true }),
});

const renewalsDirectory = await temporaryDirectory();
let renewalsDir = renewalsDirectory.path;
const renewalLedgers: { close(): Promise<void> }[] = [];

describeRenewalLedgerContract("LowdbRenewalLedger", {
  // Each ledger over the same renewals.json, as another process's (or a restarted one's) would be.
  make: async () => {
    const ledger = createLowdbRenewalLedger({ dataDir: renewalsDir, keyring: keyringOf(), lockStaleMs: 2000 });
    renewalLedgers.push(ledger);
    return ledger;
  },
  persisted: () => readFile(join(renewalsDir, RENEWALS_FILE), "utf8"),
  reset: async () => {
    generation += 1;
    renewalsDir = join(renewalsDirectory.path, `store-${generation}`);
    await mkdir(renewalsDir);
  },
  close: async () => {
    await Promise.all(renewalLedgers.map((ledger) => ledger.close()));
    await rm(renewalsDirectory.path, { recursive: true, force: true });
  },
});
