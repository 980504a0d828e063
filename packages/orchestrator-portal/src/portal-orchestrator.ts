import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import {
  orchestratorGarbage,
  orchestratorRejected,
  type CustomerList,
  type Deadline,
  type Identity,
  type Orchestrator,
  type OrchestratorError,
  type OrchestratorTarget,
} from "@sdwan-connections/core";
import { admitsHost } from "@sdwan-connections/outbound-http";
import { createApiTokenCalls } from "./api-tokens.js";
import {
  readCustomersByEnterprise,
  scanCustomersJson,
  type CustomersBound,
  type Refusal,
} from "./customers-json/scanner.js";
import { identityOf, partnerIdOf } from "./identity.js";
import type { PortalOrchestratorOptions } from "./options.js";
import {
  couldNotConnect,
  createPortalTransport,
  describeAnswer,
  isArrayText,
  readJson,
  tooLarge,
  type ListReader,
} from "./transport.js";
import { portalUrl } from "./url.js";
import { PARSE_LIMIT_BYTES } from "./wire.js";

export type { CallOutcome, FetchLike, FetchResponse, PortalCallEvent, PortalOrchestratorOptions } from "./options.js";
export { defaultFetch } from "./transport.js";

/** core's Orchestrator port, plus `close()` to free the keep-alive sockets. */
export interface PortalOrchestrator extends Orchestrator {
  close(): void;
}

/** How long a customer check no longer needed (the key is a partner's) may still take before it is cancelled. */
const CUSTOMER_GRACE_MS = 1_000;
/**
 * docs/interface.md §6: 100,000 enterprises (twice the largest partner benchmarked) and 32 MiB of customers'
 * JSON (50,000 customers as the simulator makes them take 22.5 MiB), so a cold listing at the bound stays well
 * within the deployment's 512 MiB (docs/benchmarks.md, "customers bound").
 */
export const DEFAULT_CUSTOMERS_BOUND: CustomersBound = { enterprises: 100_000, replyBytes: 32 * 1024 * 1024 };

/** Why a listing is refused: over a bound (which one, and the setting that sets it; never a value from the answer), or not a list of enterprises (io-ts's reason, field names only). */
const refused = (refusal: Refusal, bound: CustomersBound): OrchestratorError =>
  orchestratorGarbage(
    refusal === "enterprises"
      ? `The orchestrator's answer to getEnterpriseProxyEnterprises lists more than ${bound.enterprises} enterprises, the bound SDWAN_CUSTOMERS_MAX_ENTERPRISES sets.`
      : refusal === "replyBytes"
        ? `The customers of the orchestrator's answer to getEnterpriseProxyEnterprises take more than ${bound.replyBytes} bytes of JSON, the bound SDWAN_CUSTOMERS_MAX_REPLY_BYTES sets.`
        : `The orchestrator's answer to getEnterpriseProxyEnterprises is not a list of enterprises: ${refusal.invalid}.`,
  );

const LISTING = "enterpriseProxy/getEnterpriseProxyEnterprises";
const ENTERPRISES = "a list of enterprises";

/**
 * core's Orchestrator over the portal REST API v1.
 *
 * - Every call is `POST {orchestratorUrl}/portal/rest/{method}` with
 *   `Authorization: Token <key>`, over a keep-alive agent; redirects are not
 *   followed (they could carry the key elsewhere). TLS is always verified;
 *   `ca` adds private CAs to Node's roots.
 * - One deadline (`timeoutMs`) bounds all the work of one request: each
 *   attempt is aborted when it runs out, and a retry (429, any 5xx, a
 *   dropped connection; jittered exponential
 *   backoff, `Retry-After` honoured, a bare 429 meaning the vendor's 5 s
 *   penalty) happens only when its wait and one more attempt as long as the
 *   last fit before it. A wait that does not fit fails at once, passing the
 *   wait on (`retryAfterSeconds`).
 * - Identification asks the partner check and the customer check at once,
 *   as the original plugin does (`identityOf`).
 * - Answers are decoded; reasons name statuses, codes and field names, never
 *   the key, a header or a value from the answer.
 * - The token calls (list, refresh, create, download, revoke) are `api-tokens.ts`'s; the transport (attempts,
 *   retries, deadline) is `transport.ts`'s. A call that makes or hands out a token is never repeated on an unknown
 *   outcome (only after a 429).
 */
export const createPortalOrchestrator = (options: PortalOrchestratorOptions = {}): PortalOrchestrator => {
  const customersBound = options.customersBound ?? DEFAULT_CUSTOMERS_BOUND;
  const transport = createPortalTransport(options);
  const { startDeadline, call, close } = transport;
  const tokens = createApiTokenCalls(transport);
  /**
   * A listing's answer: the byte scanner first, as the answer arrives; when it declines, the general path (an
   * enterprise at a time: JSON.parse, io-ts, toCustomer) decides.
   */
  const readCustomers: ListReader<CustomerList> = {
    start: (expectedBytes) => {
      const scan = scanCustomersJson(customersBound, expectedBytes);
      return {
        more: scan.more,
        end: (bytes) => {
          if (!isArrayText(bytes))
            return E.left(
              orchestratorGarbage(
                "The orchestrator's answer to getEnterpriseProxyEnterprises is not a list of enterprises: the answer is not an array.",
              ),
            );
          const scanned = scan.end(bytes);
          const read =
            E.isRight(scanned) && O.isNone(scanned.right) ? readCustomersByEnterprise(bytes, customersBound) : scanned;
          if (E.isLeft(read)) return E.left(refused(read.left, customersBound));
          // Neither read it, so it is not JSON: as any answer that is not, too large to parse whole or not the API.
          return E.fromOption(() =>
            bytes.length > PARSE_LIMIT_BYTES
              ? tooLarge(LISTING, PARSE_LIMIT_BYTES, ` and not ${ENTERPRISES}`)
              : couldNotConnect(LISTING),
          )(read.right);
        },
      };
    },
  };

  const identify =
    (target: OrchestratorTarget, deadline: Deadline = startDeadline()): TaskEither<OrchestratorError, Identity> =>
    async () => {
      // Both checks at once (a customer's key costs one round trip); the partner check shares the customer check's
      // signal, which is only ever aborted once the partner check has answered.
      const customerNotNeeded = new AbortController();
      const asked = call(
        target,
        { method: "enterpriseProxy/getEnterpriseProxyProperty", body: {} },
        deadline,
        customerNotNeeded.signal,
        readJson,
      );
      const customer = call(
        target,
        { method: "enterprise/getEnterprise", body: {} },
        deadline,
        customerNotNeeded.signal,
        readJson,
      );
      const partner = await asked;
      const partnerId = partnerIdOf(partner);
      if (partnerId === undefined) return identityOf(partner, await customer);
      // A partner's id settles it. The customer check's answer, not needed, is usually on its way: it is let arrive
      // for a moment, not aborted at once, since an abort destroys its keep-alive socket (a new connection and an
      // AbortError per identification: a third of a health round's CPU in its profile, issue 40).
      const grace = setTimeout(() => customerNotNeeded.abort(), CUSTOMER_GRACE_MS).unref();
      const settled = () => clearTimeout(grace);
      void customer.then(settled, settled);
      return E.right({ kind: "partner", partnerId });
    };

  const listPartnerCustomers =
    (
      target: OrchestratorTarget,
      partnerId: number,
      deadline: Deadline = startDeadline(),
    ): TaskEither<OrchestratorError, CustomerList> =>
    async () => {
      const answer = await call(
        target,
        { method: LISTING, body: { enterpriseProxyId: partnerId }, list: ENTERPRISES },
        deadline,
        new AbortController().signal,
        readCustomers,
      );
      if (E.isLeft(answer)) return answer;
      const { right } = answer;
      if (right.kind === "ok") return E.right(right.value);
      // A success status with an error member contradicts itself: garbage. Otherwise it is a refusal.
      return right.status < 300
        ? E.left(
            orchestratorGarbage(
              `The orchestrator answered getEnterpriseProxyEnterprises with HTTP ${right.status} and an error member (code ${right.code}).`,
            ),
          )
        : E.left(
            orchestratorRejected(
              `The orchestrator refused to list partner ${partnerId}'s customers (${describeAnswer(right)}).`,
            ),
          );
    };

  return {
    startDeadline,
    admits: (orchestratorUrl) => {
      const url = portalUrl(orchestratorUrl, "enterprise/getEnterprise");
      return E.isLeft(url) ? E.left(url.left.reason) : admitsHost(url.right.hostname, options.allowedHosts);
    },
    identify,
    listPartnerCustomers,
    ...tokens,
    close,
  };
};
