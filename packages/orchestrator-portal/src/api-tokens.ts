import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type * as t from "io-ts";
import {
  orchestratorGarbage,
  orchestratorRejected,
  tokenUuidOf,
  type ApiKey,
  type ApiToken,
  type ApiTokenRequest,
  type Deadline,
  type Identity,
  type OrchestratorError,
  type OrchestratorTarget,
} from "@sdwan-connections/core";
import {
  couldNotConnect,
  describeAnswer,
  parseJson,
  type CallResult,
  type createPortalTransport,
  type PortalRequest,
  type ReadAnswer,
} from "./transport.js";
import type { PortalMethod } from "./url.js";
import {
  ApiTokens,
  describeDecodeFailure,
  DownloadedToken,
  InsertionConfirmation,
  RowsModified,
  toApiTokens,
} from "./wire.js";

type Transport = ReturnType<typeof createPortalTransport>;

/** An answer decoded with `codec` (bytes that are not JSON are not the orchestrator's API); reasons name fields, never values. */
const decoded =
  <A>(method: PortalMethod, codec: t.Decoder<unknown, A>, what: string): ReadAnswer<A> =>
  (bytes) => {
    const parsed = parseJson(bytes);
    if (O.isNone(parsed)) return E.left(couldNotConnect(method));
    const result = codec.decode(parsed.value);
    return E.isRight(result)
      ? E.right(result.right)
      : E.left(
          orchestratorGarbage(
            `The orchestrator's answer to ${method} is not ${what} (${describeDecodeFailure(result.left)}).`,
          ),
        );
  };

/** The privilege each token method needs (the vendor Swagger's "Privileges required"), for reasons. */
const PRIVILEGES: Partial<Record<PortalMethod, string>> = {
  "enterprise/refreshApiToken": "UPDATE ENTERPRISE_TOKEN",
  "enterpriseProxy/getApiTokens": "READ PROXY_TOKEN",
  "enterpriseProxy/createApiToken": "CREATE PROXY_TOKEN",
  "enterpriseProxy/downloadApiToken": "READ PROXY_TOKEN",
  "enterpriseProxy/revokeApiToken": "UPDATE PROXY_TOKEN",
};

/**
 * One token call's outcome: its answer, or why not. A refusal that names a privilege says the key lacks the right
 * to renew (`what` is the act refused, for the reason).
 */
const settle = <A>(result: CallResult<A>, method: PortalMethod, what: string): E.Either<OrchestratorError, A> => {
  if (E.isLeft(result)) return result;
  const { right } = result;
  if (right.kind === "ok") return E.right(right.value);
  // A success status with an error member contradicts itself: garbage. Otherwise it is a refusal.
  if (right.status < 300)
    return E.left(
      orchestratorGarbage(
        `The orchestrator answered ${method} with HTTP ${right.status} and an error member (code ${right.code}).`,
      ),
    );
  const lacks =
    right.privilege === true
      ? `: the key lacks the right to renew API keys (${PRIVILEGES[method] ?? "a token privilege"})`
      : "";
  return E.left(orchestratorRejected(`The orchestrator refused to ${what} (${describeAnswer(right)})${lacks}.`));
};

const notAPartner = (what: string) =>
  E.left(orchestratorRejected(`Only a partner's key may ${what}; a customer's key is renewed by refresh.`));

/** The token calls of the portal client (docs/interface.md §10 and §12), over its transport. */
export const createApiTokenCalls = ({ call, startDeadline }: Transport) => {
  const send =
    <A>(
      target: OrchestratorTarget,
      request: PortalRequest,
      deadline: Deadline,
      read: ReadAnswer<A>,
      what: string,
    ): TaskEither<OrchestratorError, A> =>
    async () =>
      settle(await call(target, request, deadline, new AbortController().signal, read), request.method, what);

  const tokenListRequest = (identity: Identity): PortalRequest =>
    identity.kind === "partner"
      ? { method: "enterpriseProxy/getApiTokens", body: { enterpriseProxyId: identity.partnerId } }
      : { method: "enterprise/getApiTokens", body: { enterpriseId: identity.customerId } };
  const readTokens = (method: PortalMethod) => decoded(method, ApiTokens, "a list of API tokens");

  const listApiTokens =
    (
      target: OrchestratorTarget,
      identity: Identity,
      deadline: Deadline = startDeadline(),
    ): TaskEither<OrchestratorError, readonly ApiToken[]> =>
    async () => {
      const request = tokenListRequest(identity);
      const answer = await call(target, request, deadline, new AbortController().signal, readTokens(request.method));
      if (E.isRight(answer) && answer.right.kind === "refused" && answer.right.status >= 300)
        return E.left(
          orchestratorRejected(
            `The orchestrator refused to list the API tokens (${describeAnswer(answer.right)}); the key may not read them.`,
          ),
        );
      return E.map(toApiTokens)(settle(answer, request.method, "list the API tokens"));
    };

  const refreshApiToken =
    (target: OrchestratorTarget, deadline: Deadline = startDeadline()): TaskEither<OrchestratorError, ApiKey> =>
    async () => {
      const method = "enterprise/refreshApiToken";
      const answer = await send(
        target,
        { method, body: { apiToken: target.apiKey.reveal() }, once: true },
        deadline,
        decoded(method, DownloadedToken, "a token"),
        "refresh the API key",
      )();
      return E.map((downloaded: t.TypeOf<typeof DownloadedToken>) => downloaded.token)(answer);
    };

  /** The user the partner key `target` was made for, as its token list tells (by the key's `tokenUuid`). */
  const ownUserOf =
    (target: OrchestratorTarget, identity: Identity, deadline: Deadline): TaskEither<OrchestratorError, number> =>
    async () => {
      const request = tokenListRequest(identity);
      const listed = await send(target, request, deadline, readTokens(request.method), "list the API tokens")();
      if (E.isLeft(listed)) return listed;
      const uuid = tokenUuidOf(target.apiKey);
      const tokens = Array.isArray(listed.right) ? listed.right : [listed.right];
      const user =
        uuid === undefined ? undefined : tokens.find((token) => token.tokenUuid === uuid)?.createdForEnterpriseUserId;
      return typeof user === "number"
        ? E.right(user)
        : E.left(
            orchestratorRejected(
              "The orchestrator's token list does not name the user the API key was made for, so no new token can be made for it.",
            ),
          );
    };

  const createApiToken =
    (
      target: OrchestratorTarget,
      identity: Identity,
      { name, lifetimeMs }: ApiTokenRequest,
      deadline: Deadline = startDeadline(),
    ): TaskEither<OrchestratorError, { readonly id: number }> =>
    async () => {
      if (identity.kind !== "partner") return notAPartner("make an API token");
      const user = await ownUserOf(target, identity, deadline)();
      if (E.isLeft(user)) return user;
      const method = "enterpriseProxy/createApiToken";
      const answer = await send(
        target,
        { method, body: { enterpriseUserId: user.right, name, lifetimeMs }, once: true },
        deadline,
        decoded(method, InsertionConfirmation, "an insertion confirmation with an id"),
        "make an API token",
      )();
      return E.map(({ id }: t.TypeOf<typeof InsertionConfirmation>) => ({ id }))(answer);
    };

  const downloadApiToken =
    (
      target: OrchestratorTarget,
      identity: Identity,
      id: number,
      deadline: Deadline = startDeadline(),
    ): TaskEither<OrchestratorError, ApiKey> =>
    async () => {
      if (identity.kind !== "partner") return notAPartner("download an API token");
      const method = "enterpriseProxy/downloadApiToken";
      const answer = await send(
        target,
        { method, body: { id, enterpriseProxyId: identity.partnerId }, once: true },
        deadline,
        decoded(method, DownloadedToken, "a token"),
        `download API token ${id} (a token is downloaded once)`,
      )();
      return E.map((downloaded: t.TypeOf<typeof DownloadedToken>) => downloaded.token)(answer);
    };

  const revokeApiToken =
    (
      target: OrchestratorTarget,
      identity: Identity,
      id: number,
      deadline: Deadline = startDeadline(),
    ): TaskEither<OrchestratorError, void> =>
    async () => {
      if (identity.kind !== "partner") return notAPartner("revoke an API token");
      const method = "enterpriseProxy/revokeApiToken";
      // Revoking is the same act twice (a revoked token stays revoked): retried as any call.
      const answer = await send(
        target,
        { method, body: { id, enterpriseProxyId: identity.partnerId } },
        deadline,
        decoded(method, RowsModified, "a count of rows modified"),
        `revoke API token ${id}`,
      )();
      return E.map(() => undefined)(answer);
    };

  return { listApiTokens, refreshApiToken, createApiToken, downloadApiToken, revokeApiToken };
};
