import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import type { Pool } from "pg";
import {
  AliasCodec,
  aliasKey,
  ApiKey,
  decodeStored,
  StoredRenewalIntentCodec,
  type DomainError,
  type RenewalIntent,
  type RenewalLedger,
  type RenewalRecord,
} from "@sdwan-connections/core";
import type { Keyring } from "@sdwan-connections/secrets";
import { databaseFailure } from "./database-errors.js";
import { DateCodec } from "./rows.js";

/** A row of `sdwan_key_renewals` (outside input: decoded). */
const RenewalRow = t.type({
  alias: AliasCodec,
  failures: t.number,
  retry_at: t.union([DateCodec, t.null]),
  intent: t.union([StoredRenewalIntentCodec, t.null]),
  sealed_key: t.union([t.string, t.null]),
});
const COLUMNS = "alias, failures, retry_at, intent, sealed_key";

const associatedData = (alias: string) => `renewal:${aliasKey(alias)}`;

/**
 * Core's RenewalLedger in `sdwan_key_renewals` (SPEC §12), shared by every instance: a lease is taken by one
 * upsert that only a free, ended or own lease lets through, so of instances racing, the database lets one in. A
 * renewal's new key is sealed by the keyring (its own row's alias bound in), never in the clear; one that no
 * longer opens reads as lost (the renewal then revokes its token).
 */
export const createPostgresRenewalLedger = ({
  pool,
  keyring,
}: {
  readonly pool: Pool;
  readonly keyring: Keyring;
}): RenewalLedger => {
  const query = (what: string, text: string, values: readonly unknown[] = []) =>
    TE.tryCatch(
      async () => (await pool.query(text, values as unknown[])).rows as Record<string, unknown>[],
      databaseFailure(what),
    );
  const recordOf = (row: unknown): E.Either<DomainError, RenewalRecord> =>
    E.map(({ alias, failures, retry_at, intent, sealed_key }: t.TypeOf<typeof RenewalRow>) => {
      const opened = sealed_key === null ? undefined : keyring.open(sealed_key, associatedData(alias));
      const newKey = opened !== undefined && E.isRight(opened) ? { newKey: ApiKey.unsafeFrom(opened.right) } : {};
      return {
        alias,
        failures,
        retryAt: retry_at ?? undefined,
        intent: intent === null ? undefined : ({ ...intent, ...newKey } as RenewalIntent),
      };
    })(decodeStored(RenewalRow, "a key renewal")(row));

  return {
    acquire: (alias, owner, now, leaseUntil) =>
      pipe(
        query(
          `taking the key renewal of '${alias}'`,
          `insert into sdwan_key_renewals (alias_key, alias, owner, lease_until) values ($1, $2, $3, $5)
           on conflict (alias_key) do update set owner = excluded.owner, lease_until = excluded.lease_until
             where sdwan_key_renewals.owner is null or sdwan_key_renewals.owner = excluded.owner
                or sdwan_key_renewals.lease_until <= $4
           returning ${COLUMNS}`,
          [aliasKey(alias), alias, owner, now, leaseUntil],
        ),
        TE.flatMapEither((rows) => (rows[0] === undefined ? E.right(undefined) : recordOf(rows[0]))),
      ),
    save: ({ alias, failures, retryAt, intent }, owner) => {
      const { newKey, ...rest } = intent ?? { newKey: undefined };
      return pipe(
        query(
          `recording the key renewal of '${alias}'`,
          `update sdwan_key_renewals set failures = $3, retry_at = $4, intent = $5, sealed_key = $6
            where alias_key = $1 and owner = $2 returning 1`,
          [
            aliasKey(alias),
            owner,
            failures,
            retryAt ?? null,
            intent === undefined ? null : JSON.stringify(StoredRenewalIntentCodec.encode(rest as RenewalIntent)),
            newKey === undefined ? null : keyring.seal(newKey.reveal(), associatedData(alias)),
          ],
        ),
        TE.map((rows) => rows.length === 1),
      );
    },
    release: (alias, owner) =>
      pipe(
        query(
          `releasing the key renewal of '${alias}'`,
          // Nothing left to keep (no intent, no failures): the row goes with its lease.
          `with gone as (
             delete from sdwan_key_renewals
              where alias_key = $1 and owner = $2 and intent is null and failures = 0 returning 1)
           update sdwan_key_renewals set owner = null, lease_until = null
            where alias_key = $1 and owner = $2 and not exists (select 1 from gone)`,
          [aliasKey(alias), owner],
        ),
        TE.map(() => undefined),
      ),
    list: () =>
      pipe(
        query(
          "listing the key renewals",
          `select ${COLUMNS} from sdwan_key_renewals where intent is not null or failures > 0 order by alias_key`,
        ),
        TE.flatMapEither((rows) => E.traverseArray(recordOf)(rows)),
      ),
  };
};
