import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { Identity, OrchestratorTarget } from "../domain/connection.js";
import type { Customer } from "../domain/customer.js";
import type { OrchestratorError } from "../domain/errors.js";

/**
 * The remote SD-WAN orchestrator. Each call uses exactly the target's key and
 * sends it nowhere but that target. No error it returns contains the key.
 */
export interface Orchestrator {
  /** Asks the orchestrator whose key this is; a refused key is `OrchestratorRejected`. */
  identify(target: OrchestratorTarget): TaskEither<OrchestratorError, Identity>;
  /** The customers (enterprises) of the partner `partnerId`, as `identify` found it. */
  listPartnerCustomers(target: OrchestratorTarget, partnerId: number): TaskEither<OrchestratorError, readonly Customer[]>;
}
