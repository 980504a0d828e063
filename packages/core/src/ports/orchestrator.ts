import type { Either } from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { Identity, OrchestratorTarget } from "../domain/connection.js";
import type { CustomerList } from "../domain/customer-list.js";
import type { OrchestratorError } from "../domain/errors.js";
import type { ApiToken } from "../domain/key-expiry.js";

/**
 * When one request's orchestrator work must be over (docs/interface.md §4): every call,
 * attempt and wait of that request fits before `expiresAt` (ms since the
 * epoch). The adapter makes it, since it knows the configured timeout.
 */
export interface Deadline {
  readonly expiresAt: number;
}

/**
 * The remote SD-WAN orchestrator. Each call uses exactly the target's key and
 * sends it nowhere but that target. No error it returns contains the key.
 *
 * A call given no deadline starts its own; a use case that makes several
 * calls for one request starts one deadline and passes it to each.
 */
export interface Orchestrator {
  /** A deadline for one request's orchestrator work, starting now. */
  startDeadline(): Deadline;
  /**
   * Whether this service may ever connect to `orchestratorUrl`, or why not:
   * link-local and cloud-metadata destinations are refused unless the
   * adapter's configuration names that host explicitly. Checked when a
   * connection is added or updated, forced or not; an adapter checks again
   * when it connects (a name may resolve to such an address).
   */
  admits(orchestratorUrl: string): Either<string, void>;
  /**
   * Asks the orchestrator whose key this is, as a partner's or else as a
   * customer's; a key accepted as neither is `OrchestratorRejected`.
   */
  identify(target: OrchestratorTarget, deadline?: Deadline): TaskEither<OrchestratorError, Identity>;
  /** The customers (enterprises) of the partner `partnerId`, as `identify` found it. */
  listPartnerCustomers(
    target: OrchestratorTarget,
    partnerId: number,
    deadline?: Deadline,
  ): TaskEither<OrchestratorError, CustomerList>;
  /**
   * The API tokens of the partner or customer `identity` names (as `identify` found it), for the expiry of
   * the key among them (docs/interface.md §10). A key without the right to read them is `OrchestratorRejected`.
   */
  listApiTokens(
    target: OrchestratorTarget,
    identity: Identity,
    deadline?: Deadline,
  ): TaskEither<OrchestratorError, readonly ApiToken[]>;
}
