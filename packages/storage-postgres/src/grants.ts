import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type pg from "pg";
import { decodeStored, type DomainError, type GrantStore } from "@sdwan-connections/core";
import { Grant as GrantRow } from "@sdwan-connections/core/wire";
import { databaseFailure } from "./database-errors.js";
import { listenChannel } from "./listen-channel.js";

/** The table of the grants' migration (12). */
export const GRANTS_TABLE = "sdwan_grants";
/** Where the migration's trigger announces every change of the table. */
export const GRANT_CHANGES_CHANNEL = "sdwan_grant_changes";

// A row of `sdwan_grants` is a grant; rows are outside input, so they are decoded.
const grantOf = decodeStored(GrantRow, "a grant");

export interface PostgresGrantStoreOptions {
  readonly pool: pg.Pool;
  /** How to open the dedicated LISTEN connection, e.g. `{ connectionString }` (else one client of `pool`, held). */
  readonly listener?: pg.ClientConfig | undefined;
  /** Reports a lost listener (never with secrets). */
  readonly onError?: (message: string) => void;
}

export interface PostgresGrantStore extends GrantStore {
  /** Stops listening and releases the LISTEN connection. */
  close(): Promise<void>;
}

/**
 * Core's GrantStore in `sdwan_grants`, shared by every instance: a change is told to this instance's
 * subscribers before it answers, and to every other's by the table's trigger (LISTEN/NOTIFY, within a second);
 * after a lost LISTEN connection listens again, subscribers are told too (changes may have been missed).
 * Resolves once LISTEN is in place.
 */
export const createPostgresGrantStore = ({
  pool,
  listener,
  onError = () => undefined,
}: PostgresGrantStoreOptions): TE.TaskEither<DomainError, PostgresGrantStore> => {
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const one of listeners) one();
  };
  const rows = (what: string, text: string, values: readonly unknown[] = []) =>
    TE.tryCatch(async () => (await pool.query(text, values as unknown[])).rows as unknown[], databaseFailure(what));
  return TE.tryCatch(async () => {
    const listening = await listenChannel({
      pool,
      listener,
      channel: GRANT_CHANGES_CHANNEL,
      onPayload: changed,
      onRestored: changed,
      onError,
    });
    return {
      list: () =>
        pipe(
          rows("listing grants", `select id, subject, pattern, verb from ${GRANTS_TABLE} order by position`),
          TE.chainEitherK(E.traverseArray(grantOf)),
        ),
      add: (grant) =>
        pipe(
          rows(
            "adding a grant",
            `insert into ${GRANTS_TABLE} (id, subject, pattern, verb) values ($1, $2, $3, $4) on conflict do nothing returning id`,
            [grant.id, grant.subject, grant.pattern, grant.verb],
          ),
          TE.map((inserted) => inserted.length === 1),
          TE.tap((added) => TE.right(added ? changed() : undefined)),
        ),
      remove: (id) =>
        pipe(
          rows("removing a grant", `delete from ${GRANTS_TABLE} where id = $1 returning id, subject, pattern, verb`, [
            id,
          ]),
          TE.chainEitherK((removed) => (removed[0] === undefined ? E.right(undefined) : grantOf(removed[0]))),
          TE.tap((removed) => TE.right(removed === undefined ? undefined : changed())),
        ),
      subscribe: (one) => {
        const wrapped = () => one();
        listeners.add(wrapped);
        return () => {
          listeners.delete(wrapped);
        };
      },
      close: listening.close,
    };
  }, databaseFailure("listening for grant changes"));
};
