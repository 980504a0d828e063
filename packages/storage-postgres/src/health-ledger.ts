import * as A from "fp-ts/lib/Array.js";
import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import type { Pool } from "pg";
import { aliasKey, HEALTH_HISTORY, decodeStored, type HealthLedger, type HealthState } from "@sdwan-connections/core";
import { ConnectionHealth, HealthCheck } from "@sdwan-connections/core/wire";
import { databaseFailure } from "./database-errors.js";
import { DateCodec } from "./rows.js";
import { withDedicatedClient } from "./dedicated-client.js";

/**
 * A row of `connection_health`: a connection's health, `since` a timestamp, the checks JSON written with
 * `HealthCheck.encode`. Rows are outside input, so they are decoded.
 */
const HealthRow = t.type({ ...ConnectionHealth.props, since: t.union([DateCodec, t.null]) });

const decodeRow = decodeStored(HealthRow, "a connection's health");

/**
 * Core's HealthLedger in `connection_health`, shared by every instance. A
 * claim is one upsert that moves `claimed_window` forward only: of instances
 * claiming the same interval, the database lets exactly one through. A
 * record is one transaction: the row locked, the state before read, the check added.
 */
export const createPostgresHealthLedger = ({ pool }: { readonly pool: Pool }): HealthLedger => {
  const query = (what: string, text: string, values: readonly unknown[] = []) =>
    TE.tryCatch(
      async () => (await pool.query(text, values as unknown[])).rows as Record<string, unknown>[],
      databaseFailure(what),
    );

  return {
    claim: (alias, window) =>
      pipe(
        query(
          `claiming the health check of '${alias}'`,
          `insert into connection_health (alias_key, alias, state, claimed_window) values ($1, $2, 'unknown', $3)
           on conflict (alias_key) do update set claimed_window = excluded.claimed_window
            where connection_health.claimed_window < excluded.claimed_window
           returning alias_key`,
          [aliasKey(alias), alias, window],
        ),
        TE.map((rows) => rows.length === 1),
      ),

    // One statement: the alias's claims of other marks dropped, this one inserted unless it is there (the
    // primary key lets exactly one instance through).
    claimKeyWarning: (alias, mark, threshold) =>
      pipe(
        query(
          `claiming a key-expiry warning of '${alias}'`,
          `with dropped as (delete from key_expiry_warnings where alias_key = $1 and key_mark <> $2)
           insert into key_expiry_warnings (alias_key, key_mark, threshold) values ($1, $2, $3)
           on conflict do nothing
           returning alias_key`,
          [aliasKey(alias), mark, threshold],
        ),
        TE.map((rows) => rows.length === 1),
      ),

    // In one transaction: the row locked, its state read, then the check added.
    record: (alias, check) =>
      TE.tryCatch(
        () =>
          withDedicatedClient(pool, async (client) => {
            await client.query("begin");
            await client.query(
              "insert into connection_health (alias_key, alias, state) values ($1, $2, 'unknown') on conflict (alias_key) do nothing",
              [aliasKey(alias), alias],
            );
            const before = await client.query<{ state: HealthState }>(
              "select state from connection_health where alias_key = $1 for update",
              [aliasKey(alias)],
            );
            await client.query(
              `update connection_health set
                 state = $2,
                 since = case when state = $2 then coalesce(since, $3) else $3 end,
                 checks = (select coalesce(jsonb_agg(item order by position), '[]'::jsonb)
                             from jsonb_array_elements(jsonb_build_array($4::jsonb) || checks) with ordinality as elements(item, position)
                            where position <= $5)
               where alias_key = $1`,
              [aliasKey(alias), check.outcome, check.at, JSON.stringify(HealthCheck.encode(check)), HEALTH_HISTORY],
            );
            await client.query("commit");
            return before.rows[0]?.state ?? "unknown";
          }),
        databaseFailure(`recording the health of '${alias}'`),
      ),

    forget: (alias) =>
      pipe(
        query(
          `forgetting the health of '${alias}'`,
          "with warnings as (delete from key_expiry_warnings where alias_key = $1) delete from connection_health where alias_key = $1",
          [aliasKey(alias)],
        ),
        TE.map(() => undefined),
      ),

    list: () =>
      pipe(
        query(
          "reading the connections' health",
          "select alias, state, since, checks from connection_health where state <> 'unknown'",
        ),
        TE.chainEitherK((rows) => A.traverse(E.Applicative)(decodeRow)(rows)),
      ),
  };
};
