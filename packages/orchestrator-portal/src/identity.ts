import * as E from "fp-ts/lib/Either.js";
import {
  orchestratorGarbage,
  orchestratorRejected,
  type Identity,
  type OrchestratorError,
} from "@sdwan-connections/core";
import { describeAnswer, type CallResult } from "./transport.js";
import { EnterpriseIdentity, ProxyProperty } from "./wire.js";

export const partnerIdOf = (result: CallResult): number | undefined => {
  if (E.isLeft(result) || result.right.kind !== "ok") return undefined;
  const decoded = ProxyProperty.decode(result.right.value);
  return E.isRight(decoded) ? decoded.right.enterpriseProxyId : undefined;
};

/** One check's result in a few words, for a reason that names both checks. */
const describeCheck = (result: CallResult, expected: string): string => {
  if (E.isLeft(result)) return result.left.reason.replace(/\.$/, "");
  return result.right.kind === "refused" ? describeAnswer(result.right) : `HTTP 200 without ${expected}`;
};

/** A check that got no answer from the orchestrator's API: it timed out, could not connect, or the orchestrator failed. */
const gotNoAnswer = (result: CallResult): result is E.Left<OrchestratorError> =>
  E.isLeft(result) &&
  (result.left._tag === "OrchestratorTimedOut" ||
    result.left._tag === "OrchestratorUnreachable" ||
    result.left._tag === "OrchestratorFailed");

/**
 * The identity that the two checks' results give, as the original plugin
 * decides it (docs/interface.md §4; every case is in docs/orchestrator-compatibility.md):
 * - a partner, if the partner check gave a proxy id; any other answer of it
 *   only means "not a partner";
 * - else a customer, if the customer check gave an enterprise id;
 * - else rate limited, if either check was (its wait did not fit);
 * - if the customer check refused the key (as it refuses every partner key):
 *   the partner check's outcome when it got no answer (timed out, could not
 *   connect, the orchestrator failed), else rejected;
 * - else garbage, if the customer check succeeded without an id;
 * - else the customer check's error (timed out, could not connect, failed, garbage).
 * Every reason but a lone one names both checks' outcomes.
 */
export const identityOf = (partner: CallResult, customer: CallResult): E.Either<OrchestratorError, Identity> => {
  const partnerId = partnerIdOf(partner);
  if (partnerId !== undefined) return E.right({ kind: "partner", partnerId });
  if (E.isRight(customer) && customer.right.kind === "ok") {
    const decoded = EnterpriseIdentity.decode(customer.right.value);
    if (E.isRight(decoded)) return E.right({ kind: "customer", customerId: decoded.right.id });
  }
  const rateLimited = [customer, partner].flatMap((result) =>
    E.isLeft(result) && result.left._tag === "OrchestratorRateLimited" ? [result.left] : [],
  );
  if (rateLimited[0] !== undefined) return E.left(rateLimited[0]);
  const partnerCheck = `getEnterpriseProxyProperty: ${describeCheck(partner, "enterpriseProxyId")}`;
  const customerCheck = `getEnterprise: ${describeCheck(customer, "id")}`;
  const withoutStop = (error: OrchestratorError) => error.reason.replace(/\.$/, "");
  if (E.isRight(customer) && customer.right.kind === "refused") {
    if (gotNoAnswer(partner))
      return E.left({
        ...partner.left,
        reason: `${withoutStop(partner.left)}, so it is not known whether the API key is a partner's; the customer check (${customerCheck}) refused it, as it refuses every partner's key.`,
      });
    return E.left(
      orchestratorRejected(
        `The orchestrator accepts the API key neither as a partner's (${partnerCheck}) nor as a customer's (${customerCheck}).`,
      ),
    );
  }
  if (E.isRight(customer)) return E.left(orchestratorGarbage("The orchestrator's answer to getEnterprise lacks id."));
  // The customer check decides once the partner check said "not a partner"; with neither answered, the reason is the same whatever was met.
  if (E.isRight(partner))
    return E.left({
      ...customer.left,
      reason: `${withoutStop(customer.left)}, so it is not known whether the API key is a customer's; the partner check (${partnerCheck}) did not accept it as a partner's.`,
    });
  return customer;
};
