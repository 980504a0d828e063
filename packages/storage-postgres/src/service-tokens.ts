import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import type { Pool } from "pg";
import { decodeStored, type DomainError, type ServiceToken, type ServiceTokenStore } from "@sdwan-connections/core";
import { ServiceToken as ListedToken } from "@sdwan-connections/core/wire";
import { databaseFailure } from "./database-errors.js";
import { DateCodec } from "./rows.js";

/** The table of the service tokens' migration. */
export const SERVICE_TOKENS_TABLE = "sdwan_service_tokens";

const COLUMNS = "id, name, role, lifetime_days, expires_at, last_used_at, created_by, created_at";

/** A row of `sdwan_service_tokens` (its listed columns); rows are outside input, so they are decoded. */
const TokenRow = t.type({
  id: t.string,
  name: t.string,
  role: ListedToken.props.role,
  lifetime_days: t.number,
  expires_at: DateCodec,
  last_used_at: t.union([DateCodec, t.null]),
  created_by: t.string,
  created_at: DateCodec,
});

const tokenOf = (row: unknown): E.Either<DomainError, ServiceToken> =>
  E.map((decoded: t.TypeOf<typeof TokenRow>) => ({
    id: decoded.id,
    name: decoded.name,
    role: decoded.role,
    lifetimeDays: decoded.lifetime_days,
    expiresAt: decoded.expires_at,
    lastUsedAt: decoded.last_used_at,
    createdBy: decoded.created_by,
    createdAt: decoded.created_at,
  }))(decodeStored(TokenRow, "a service token")(row));

/** The first row as a token, or undefined when there is none. */
const firstToken = (rows: readonly unknown[]): E.Either<DomainError, ServiceToken | undefined> =>
  rows[0] === undefined ? E.right(undefined) : tokenOf(rows[0]);

/**
 * Core's ServiceTokenStore in `sdwan_service_tokens`, shared by every instance: each lookup is one query on a
 * unique index of the secrets' hashes (current and previous), so a revocation or a renewal's end of overlap is
 * seen by the next lookup of every instance.
 */
export const createPostgresServiceTokenStore = ({ pool }: { readonly pool: Pool }): ServiceTokenStore => {
  const query = (what: string, text: string, values: readonly unknown[] = []) =>
    TE.tryCatch(async () => (await pool.query(text, values as unknown[])).rows as unknown[], databaseFailure(what));
  const count = (what: string, text: string, values: readonly unknown[]) =>
    TE.tryCatch(async () => (await pool.query(text, values as unknown[])).rowCount ?? 0, databaseFailure(what));
  return {
    create: (token, hash) =>
      TE.map((inserted: number) => inserted === 1)(
        count(
          "creating a service token",
          `insert into ${SERVICE_TOKENS_TABLE} (${COLUMNS}, hash) values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict (name) do nothing`,
          [
            token.id,
            token.name,
            token.role,
            token.lifetimeDays,
            token.expiresAt,
            token.lastUsedAt,
            token.createdBy,
            token.createdAt,
            hash,
          ],
        ),
      ),
    list: () =>
      pipe(
        query("listing service tokens", `select ${COLUMNS} from ${SERVICE_TOKENS_TABLE} order by created_at, name`),
        TE.chainEitherK((rows) => E.traverseArray(tokenOf)(rows)),
      ),
    find: (hash, now) =>
      pipe(
        query(
          "reading a service token",
          `select ${COLUMNS} from ${SERVICE_TOKENS_TABLE} where (hash = $1 and expires_at > $2) or (previous_hash = $1 and previous_until > $2)`,
          [hash, now],
        ),
        TE.chainEitherK(firstToken),
      ),
    renew: (id, { hash, expiresAt, previousUntil }) =>
      pipe(
        query(
          "renewing a service token",
          `update ${SERVICE_TOKENS_TABLE} set previous_hash = hash, previous_until = $4, hash = $2, expires_at = $3 where id = $1 returning ${COLUMNS}`,
          [id, hash, expiresAt, previousUntil],
        ),
        TE.chainEitherK(firstToken),
      ),
    revoke: (id) =>
      TE.map((deleted: number) => deleted === 1)(
        count("revoking a service token", `delete from ${SERVICE_TOKENS_TABLE} where id = $1`, [id]),
      ),
    touch: (id, at) =>
      TE.map(() => undefined)(
        count("recording a service token's use", `update ${SERVICE_TOKENS_TABLE} set last_used_at = $2 where id = $1`, [
          id,
          at,
        ]),
      ),
  };
};
