import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { aliasKey } from "../domain/codecs.js";
import type { DomainError } from "../domain/errors.js";
import type { ConnectionHealth } from "../domain/health.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";
import type { HealthLedger } from "../ports/health-ledger.js";

/** Every connection's background health, sorted by alias ignoring case; `unknown` for one not checked yet. */
export const listConnectionsHealth =
  (deps: { readonly repository: ConnectionRepository; readonly ledger: HealthLedger }) =>
  (): TE.TaskEither<DomainError, readonly ConnectionHealth[]> =>
    pipe(
      TE.Do,
      TE.apS("connections", deps.repository.list()),
      TE.apS("health", deps.ledger.list()),
      TE.map(({ connections, health }) => {
        const byKey = new Map(health.map((entry) => [aliasKey(entry.alias), entry]));
        return [...connections]
          .sort((a, b) => aliasKey(a.alias).localeCompare(aliasKey(b.alias)))
          .map(({ alias }): ConnectionHealth => {
            const known = byKey.get(aliasKey(alias));
            return known === undefined ? { alias, state: "unknown", since: null, checks: [] } : { ...known, alias };
          });
      }),
    );
