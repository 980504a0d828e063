import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import { aliasKey } from "./domain/codecs.js";
import type { CustomerList } from "./domain/customer-list.js";
import type { DomainError } from "./domain/errors.js";
import type { Clock } from "./ports/clock.js";

type Customers = CustomerList;
// The running load of a connection's customers, which later callers join (a promise: it is shared, and runs once).
type Flight = Promise<E.Either<DomainError, Customers>>;

/** How a lookup was answered: from the cache, by a new upstream call, or by joining one in flight. */
export type CacheOutcome = "hit" | "miss" | "shared";

export interface CustomersCache {
  /**
   * The customers of connection `alias`: cached if fresh, else loaded by
   * `load`, which runs once for all concurrent callers. Failures are shared
   * by those callers but never cached.
   */
  get(alias: string, load: TaskEither<DomainError, Customers>): TaskEither<DomainError, Customers>;
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
  const fresh = new Map<string, { readonly customers: Customers; readonly expiresAt: number }>();
  const inFlight = new Map<string, Flight>();

  const get =
    (alias: string, load: TaskEither<DomainError, Customers>): TaskEither<DomainError, Customers> =>
    () => {
      const key = aliasKey(alias);
      const entry = fresh.get(key);
      if (entry !== undefined && entry.expiresAt > clock.now()) {
        onLookup?.("hit");
        return Promise.resolve(E.right(entry.customers));
      }
      const joined = inFlight.get(key);
      if (joined !== undefined) {
        onLookup?.("shared");
        return joined;
      }
      onLookup?.("miss");
      const flight: Flight = load().then((result) => {
        // Store only if nobody dropped this alias while we were loading.
        if (inFlight.get(key) === flight) {
          inFlight.delete(key);
          if (result._tag === "Right" && ttlMs > 0) fresh.set(key, { customers: result.right, expiresAt: clock.now() + ttlMs });
        }
        return result;
      });
      inFlight.set(key, flight);
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
