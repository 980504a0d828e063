import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { AliasCodec } from "../domain/codecs.js";
import type { Identity, OrchestratorTarget, StoredConnection } from "../domain/connection.js";
import type { CustomerList } from "../domain/customer-list.js";
import { decodeInput } from "../domain/decode.js";
import { notAPartner, type DomainError } from "../domain/errors.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";
import type { Deadline, Orchestrator } from "../ports/orchestrator.js";

/**
 * The customers behind a partner connection, through the customers cache,
 * within one orchestrator deadline. A key whose partner identity is
 * remembered (`identities`) is listed at once: one round trip; if that
 * listing is refused, the identity is forgotten and the key identified again.
 * Any other key is identified first (it must be a partner's), then listed.
 * A customer key is `NotAPartner`.
 */
export const listPartnerCustomers =
  (deps: {
    readonly repository: ConnectionRepository;
    /** Remembering its identifications in `identities` (`IdentityMemory.remembering`). */
    readonly orchestrator: Orchestrator;
    readonly identities: {
      recall(target: OrchestratorTarget): Identity | undefined;
      forget(target: OrchestratorTarget): void;
    };
    /** The customers cache (`CustomersCache`): `load` runs when it has no fresh list. */
    readonly customersCache: {
      get(
        connection: StoredConnection,
        load: TE.TaskEither<DomainError, CustomerList>,
      ): TE.TaskEither<DomainError, CustomerList>;
    };
  }) =>
  (rawAlias: string): TE.TaskEither<DomainError, CustomerList> => {
    const identifyThenList = (
      connection: StoredConnection,
      deadline: Deadline,
    ): TE.TaskEither<DomainError, CustomerList> =>
      pipe(
        deps.orchestrator.identify(connection, deadline),
        TE.mapLeft((error): DomainError => error),
        TE.flatMap((identity) =>
          identity.kind === "partner"
            ? deps.orchestrator.listPartnerCustomers(connection, identity.partnerId, deadline)
            : TE.left(notAPartner(connection.alias)),
        ),
      );
    const list = (connection: StoredConnection): TE.TaskEither<DomainError, CustomerList> => {
      // One deadline for all the calls, started when the cache really asks the orchestrator.
      const deadline = deps.orchestrator.startDeadline();
      const known = deps.identities.recall(connection);
      if (known?.kind !== "partner") return identifyThenList(connection, deadline);
      return pipe(
        deps.orchestrator.listPartnerCustomers(connection, known.partnerId, deadline),
        TE.orElse((error): TE.TaskEither<DomainError, CustomerList> => {
          if (error._tag !== "OrchestratorRejected") return TE.left(error);
          deps.identities.forget(connection);
          return identifyThenList(connection, deadline);
        }),
      );
    };
    // Written out rather than piped: every warm request takes this path, and fp-ts's flatMap (`dual`) copies its
    // arguments at each call (profile of the 304 answer: fp-ts 8 µs of this use case's 10 per request).
    return async () => {
      const alias = decodeInput(AliasCodec, "alias")(rawAlias);
      if (E.isLeft(alias)) return alias;
      const connection = await deps.repository.get(alias.right)();
      if (E.isLeft(connection)) return connection;
      return deps.customersCache.get(connection.right, () => list(connection.right)())();
    };
  };
