import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import pg from "pg";
import { masterKeyFingerprints, type AuditRetention, type DomainError, type Storage } from "@sdwan-connections/core";
import { createPostgresFailureCounter } from "./failure-counter.js";
import { createPostgresHealthLedger } from "./health-ledger.js";
import { createPostgresWebhookStore } from "./webhooks.js";
import { createPostgresServiceTokenStore } from "./service-tokens.js";
import { createPostgresGrantStore } from "./grants.js";
import { createPostgresRenewalLedger } from "./renewals.js";
import { createPostgresAuditLog } from "./audit-log.js";
import type { Keyring } from "@sdwan-connections/secrets";
import { createPostgresConnectionChanges } from "./connection-changes.js";
import { createPostgresConnectionRepository } from "./connection-repository.js";
import { databaseFailure } from "./database-errors.js";
import { migrate } from "./migrations.js";
import { verifyMasterKeys } from "./rotate-keys.js";

export interface OpenPostgresStorageOptions {
  readonly databaseUrl: string;
  readonly keyring: Keyring;
  /** How long audit entries are kept (core's default when not given). */
  readonly auditRetention?: AuditRetention;
  /** The failed-login window (SDWAN_LOGIN_WINDOW_MS); a minute when not given. */
  readonly failureWindowMs?: number;
  /** Hears about lost connections and failed notifications (never fatal); one line each, never the URL. */
  readonly onError?: (line: string) => void;
}

/**
 * Whether the database at `databaseUrl` can be reached and signed in to (one connection, closed again): a failure
 * here is the store's (out of reach, refused), where a failure of `openPostgresStorage` after it is one of what it
 * was given (a wrong master key, a newer schema). Never the URL in the error.
 */
export const reachPostgres =
  (databaseUrl: string): TE.TaskEither<DomainError, void> =>
  async () => {
    const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
    client.on("error", () => undefined);
    const reached = await TE.tryCatch(async () => void (await client.connect()), databaseFailure("connecting"))();
    await client.end().catch(() => undefined);
    return reached;
  };

/**
 * Core's Storage port on PostgreSQL, everything `SDWAN_STORAGE=postgres` needs, ready to use: a pool, the schema
 * migrated, the master key checked against the stored rows, the repository, the change notifications, health
 * states and failure counts shared by the instances, the audit log. On failure the pool is closed again and the
 * error never contains the URL or its password. `close` stops listening, then ends the pool: call it after the
 * HTTP server has drained.
 */
export const openPostgresStorage =
  ({
    databaseUrl,
    keyring,
    auditRetention,
    failureWindowMs = 60_000,
    onError = () => undefined,
  }: OpenPostgresStorageOptions): TE.TaskEither<DomainError, Storage> =>
  async () => {
    const pool = new pg.Pool({
      connectionString: databaseUrl,
      max: 10,
      connectionTimeoutMillis: 5_000,
      query_timeout: 10_000,
    });
    // An idle client dying (database restart) must not crash the process; the pool opens a new one.
    pool.on("error", () => onError("an idle PostgreSQL connection was lost"));
    const changes = await pipe(
      // Reached first: a database out of reach is said to be, not a migration that failed (a read migrates nothing).
      TE.tryCatch(() => pool.query("select 1"), databaseFailure("connecting")),
      TE.flatMap(() => migrate(pool)),
      TE.flatMap(() => verifyMasterKeys(pool, keyring)),
      TE.flatMap(() => createPostgresConnectionChanges({ pool, listener: { connectionString: databaseUrl }, onError })),
    )();
    if (E.isLeft(changes)) {
      await pool.end().catch(() => undefined);
      return changes;
    }
    const grants = await createPostgresGrantStore({ pool, listener: { connectionString: databaseUrl }, onError })();
    if (E.isLeft(grants)) {
      await changes.right.close();
      await pool.end().catch(() => undefined);
      return grants;
    }
    const audit = createPostgresAuditLog({
      pool,
      listener: { connectionString: databaseUrl },
      onError,
      ...(auditRetention === undefined ? {} : { retention: auditRetention }),
    });
    return E.right({
      repository: createPostgresConnectionRepository({
        pool,
        keyring,
        ...(auditRetention === undefined ? {} : { auditRetention }),
      }),
      changes: changes.right,
      fingerprints: masterKeyFingerprints(keyring),
      audit,
      health: createPostgresHealthLedger({ pool }),
      renewals: createPostgresRenewalLedger({ pool, keyring }),
      failures: createPostgresFailureCounter({ pool, windowMs: failureWindowMs }),
      serviceTokens: createPostgresServiceTokenStore({ pool }),
      grants: grants.right,
      webhooks: createPostgresWebhookStore({ pool, keyring }),
      close: async () => {
        await changes.right.close();
        await grants.right.close();
        await audit.close();
        await pool.end();
      },
    });
  };
