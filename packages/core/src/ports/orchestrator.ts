import type { Either } from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { ApiKey } from "../domain/api-key.js";
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

/** What a new API token is made with (`enterpriseProxy/createApiToken`): its name, and how long it lives, at most `MAX_API_TOKEN_LIFETIME_MS`. */
export interface ApiTokenRequest {
  readonly name: string;
  readonly lifetimeMs: number;
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
  /**
   * Renews a customer key (`enterprise/refreshApiToken {apiToken}`, docs/interface.md §12): the orchestrator's
   * answer is a token with extended validity, the new key. Whether the old key keeps working until its own expiry
   * is the orchestrator's choice. A key without the right (`UPDATE ENTERPRISE_TOKEN`) is `OrchestratorRejected`
   * with a reason that says it may not renew its key.
   */
  refreshApiToken(target: OrchestratorTarget, deadline?: Deadline): TaskEither<OrchestratorError, ApiKey>;
  /**
   * Makes a new API token for the user the partner key `target` belongs to (`enterpriseProxy/createApiToken`),
   * to be downloaded once with `downloadApiToken`; its `id` is the orchestrator's. A key without the right
   * (`CREATE PROXY_TOKEN`), or whose own user the orchestrator does not tell, is `OrchestratorRejected`.
   */
  createApiToken(
    target: OrchestratorTarget,
    identity: Identity,
    request: ApiTokenRequest,
    deadline?: Deadline,
  ): TaskEither<OrchestratorError, { readonly id: number }>;
  /**
   * The key of the token `id` (`enterpriseProxy/downloadApiToken`). A token is downloaded ONCE: a second
   * download is refused (`OrchestratorRejected`), so the caller must keep the key before anything else can fail.
   */
  downloadApiToken(
    target: OrchestratorTarget,
    identity: Identity,
    id: number,
    deadline?: Deadline,
  ): TaskEither<OrchestratorError, ApiKey>;
  /** Revokes the token `id` (`enterpriseProxy/revokeApiToken`): its key is refused from then on, by every call. */
  revokeApiToken(
    target: OrchestratorTarget,
    identity: Identity,
    id: number,
    deadline?: Deadline,
  ): TaskEither<OrchestratorError, void>;
}
