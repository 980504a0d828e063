import {
  createInMemoryFailureCounter,
  createInProcessConnectionChanges,
  masterKeyFingerprints,
  storageFailure,
  type AuditRetention,
  type DomainError,
  type Storage,
} from "@sdwan-connections/core";
import type { Keyring } from "@sdwan-connections/secrets";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import { createLowdbAuditLog } from "./audit-file.js";
import { createLowdbConnectionRepository } from "./connection-repository.js";
import { openConnectionsFile } from "./connections-file.js";
import { describeConnectionsFileError } from "./errors.js";
import { createLowdbHealthLedger } from "./health-file.js";
import { createLowdbServiceTokenStore } from "./tokens-file.js";
import { createLowdbGrantStore } from "./grants-file.js";
import { createLowdbRenewalLedger } from "./renewals-file.js";
import { createLowdbWebhookStore } from "./webhooks-file.js";

export interface OpenLowdbStorageOptions {
  /** The data directory (SDWAN_DATA_DIR); created with mode 0700 when missing. */
  readonly dataDir: string;
  /** Seals and opens apiKeys; see `@sdwan-connections/secrets`. */
  readonly keyring: Keyring;
  /** How long audit entries are kept (core's default when not given). */
  readonly auditRetention?: AuditRetention;
  /** The failed-login window (SDWAN_LOGIN_WINDOW_MS); a minute when not given. */
  readonly failureWindowMs?: number;
  /**
   * After how long a lock left by a dead process is taken over (ms, at least 2000; default 10000). Waiting for
   * a lock gives up after twice as long.
   */
  readonly lockStaleMs?: number;
  /** Told of what an operator should know but that stops nothing (lines of the audit trail skipped as damaged): a line safe to log. */
  readonly onWarning?: (message: string) => void;
  /**
   * The opener only reads (a CLI `list`): what a crash left at the audit trail's end is left for the next writer,
   * which mends it before it appends anyway (readers skip it meanwhile). By default a start mends it at once.
   */
  readonly readsOnly?: boolean;
}

/**
 * Core's Storage port in the data directory (`SDWAN_STORAGE=lowdb`): `connections.json` with its apiKeys sealed
 * by the keyring, the audit trail beside it (`audit.jsonl`), whose entries the file appends with its
 * changes, the health states (`health.json`), the service tokens (`tokens.json`), the grants (`grants.json`), the key renewals (`renewals.json`) and the webhooks (`webhooks.json`, `webhook-deliveries.json`). Fails, touching nothing, when the file is unreadable, corrupt, of a newer schema or sealed with
 * another master key. `close` flushes pending writes and releases the locks.
 */
export const openLowdbStorage =
  ({
    dataDir,
    keyring,
    auditRetention,
    failureWindowMs = 60_000,
    lockStaleMs,
    onWarning,
    readsOnly = false,
  }: OpenLowdbStorageOptions): TaskEither<DomainError, Storage> =>
  async () => {
    const locking = lockStaleMs === undefined ? {} : { lockStaleMs };
    // The trail's appends name the webhooks each event goes to (the outbox); the webhook store reads those lines
    // from the trail's file.
    const webhooks = createLowdbWebhookStore({
      dataDir,
      keyring,
      ...locking,
    });
    const audit = createLowdbAuditLog({
      dataDir,
      webhooks: webhooks.current,
      outboxCursor: webhooks.cursor,
      ...locking,
      ...(auditRetention === undefined ? {} : { retention: auditRetention }),
      ...(onWarning === undefined ? {} : { onWarning }),
    });
    const health = createLowdbHealthLedger({ dataDir, ...locking });
    const serviceTokens = createLowdbServiceTokenStore({ dataDir, ...locking });
    const grants = createLowdbGrantStore({ dataDir, ...locking });
    const renewals = createLowdbRenewalLedger({ dataDir, keyring, ...locking });
    // The file appends its changes' audit entries through the trail's journal, in each write's group commit.
    const file = await openConnectionsFile({ dataDir, keyring, audit: audit.journal, ...locking })();
    if (E.isLeft(file)) {
      await Promise.all([
        audit.close(),
        health.close(),
        serviceTokens.close(),
        grants.close(),
        renewals.close(),
        webhooks.close(),
      ]);
      return E.left(storageFailure(describeConnectionsFileError(file.left)));
    }
    // What a full disk or a crash left at the trail's end goes before anything is appended (and lists skip it meanwhile).
    if (!readsOnly) await audit.repair();
    return E.right({
      repository: createLowdbConnectionRepository(file.right),
      changes: createInProcessConnectionChanges(),
      fingerprints: masterKeyFingerprints(keyring),
      audit,
      // Shared by every process over the directory (a CLI `validate` included) and kept across restarts.
      health,
      // One service process per data directory: its failure counts live in its memory (forgotten at a restart).
      failures: createInMemoryFailureCounter({ windowMs: failureWindowMs }),
      // Shared by every process over the directory, and kept across restarts.
      serviceTokens,
      grants,
      // Shared by every process over the directory, and kept across restarts and kills.
      renewals,
      // Shared by every process over the directory; the outbox is the trail's own lines.
      webhooks,
      close: async () => {
        await file.right.close();
        await audit.close();
        await health.close();
        await serviceTokens.close();
        await grants.close();
        await renewals.close();
        await webhooks.close();
      },
    });
  };
