import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { AliasCodec } from "../domain/codecs.js";
import type { Customer } from "../domain/customer.js";
import { decodeInput } from "../domain/decode.js";
import { notAPartner, type DomainError } from "../domain/errors.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";
import type { Orchestrator } from "../ports/orchestrator.js";
import type { CustomersCache } from "../customers-cache.js";

/**
 * The customers behind a partner connection, through the customers cache:
 * identify the key (it must be a partner's), then list that partner's
 * enterprises, both within one orchestrator deadline. A customer key is
 * `NotAPartner`.
 */
export const listPartnerCustomers =
  (deps: {
    readonly repository: ConnectionRepository;
    readonly orchestrator: Orchestrator;
    readonly customersCache: CustomersCache;
  }) =>
  (rawAlias: string): TE.TaskEither<DomainError, readonly Customer[]> =>
    pipe(
      TE.fromEither(decodeInput(AliasCodec, "alias")(rawAlias)),
      TE.flatMap(deps.repository.get),
      TE.flatMap((connection) =>
        deps.customersCache.get(connection.alias, () => {
          // Both calls share one deadline, started when the cache really asks the orchestrator.
          const deadline = deps.orchestrator.startDeadline();
          return pipe(
            deps.orchestrator.identify(connection, deadline),
            TE.mapLeft((error): DomainError => error),
            TE.flatMap((identity) =>
              identity.kind === "partner"
                ? deps.orchestrator.listPartnerCustomers(connection, identity.partnerId, deadline)
                : TE.left(notAPartner(connection.alias)),
            ),
          )();
        }),
      ),
    );
