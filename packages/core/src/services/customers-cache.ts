import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import { aliasKey } from "../domain/codecs.js";
import type { StoredConnection } from "../domain/connection.js";
import type { CustomerList } from "../domain/customer-list.js";
import type { DomainError } from "../domain/errors.js";
import type { Clock } from "../ports/clock.js";

// The running load of a connection's customers, which later callers join (a promise: it is shared, and runs once).
type Flight = Promise<E.Either<DomainError, CustomerList>>;

/** How a lookup was answered: from the cache, by a new upstream call, or by joining one in flight. */
export type CacheOutcome = "hit" | "miss" | "shared";

/** What a cached list is of: a connection at one version (versions never repeat in a store, and change with its key or URL). */
type Listed = Pick<StoredConnection, "alias" | "version">;

export interface CustomersCache {
  /**
   * The customers of `connection` as it is now: cached if fresh and loaded at
   * the same version, else loaded by `load`, which runs once for all
   * concurrent callers of that version. Failures are shared by those callers
   * but never cached. Keyed by version, a list never outlives a change of the
   * connection, whatever process made it and whether or not it was announced.
   */
  get(connection: Listed, load: TaskEither<DomainError, CustomerList>): TaskEither<DomainError, CustomerList>;
  /** Forgets `alias`, including a load in flight: its answer may be about the old key. */
  drop(alias: string): void;
  /** Forgets every alias, loads in flight included (after changes may have been missed). */
  clear(): void;
}

export interface CustomersCacheOptions {
  /** How long an answer stays fresh; 0 caches nothing (concurrent calls still share one load). */
  readonly ttlMs: number;
  readonly clock: Clock;
  readonly onLookup?: (outcome: CacheOutcome) => void;
}

export const createCustomersCache = ({ ttlMs, clock, onLookup }: CustomersCacheOptions): CustomersCache => {
  const fresh = new Map<
    string,
    { readonly version: number; readonly customers: CustomerList; readonly expiresAt: number }
  >();
  const inFlight = new Map<string, { readonly version: number; readonly flight: Flight }>();

  const get =
    ({ alias, version }: Listed, load: TaskEither<DomainError, CustomerList>): TaskEither<DomainError, CustomerList> =>
    () => {
      const key = aliasKey(alias);
      const entry = fresh.get(key);
      if (entry?.version === version && entry.expiresAt > clock.now()) {
        onLookup?.("hit");
        return Promise.resolve(E.right(entry.customers));
      }
      const joined = inFlight.get(key);
      if (joined?.version === version) {
        onLookup?.("shared");
        return joined.flight;
      }
      onLookup?.("miss");
      const flight: Flight = load().then((result) => {
        // Store only if nobody dropped this alias, or loaded another version of it, while we were loading.
        if (inFlight.get(key)?.flight === flight) {
          inFlight.delete(key);
          if (result._tag === "Right" && ttlMs > 0)
            fresh.set(key, { version, customers: result.right, expiresAt: clock.now() + ttlMs });
        }
        return result;
      });
      inFlight.set(key, { version, flight });
      return flight;
    };

  return {
    get,
    drop: (alias) => {
      const key = aliasKey(alias);
      fresh.delete(key);
      inFlight.delete(key);
    },
    clear: () => {
      fresh.clear();
      inFlight.clear();
    },
  };
};
