import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import {
  admitsDestination,
  ApiKey,
  customerListOf,
  MAX_API_TOKEN_LIFETIME_MS,
  orchestratorRejected,
  tokenUuidOf,
  type ApiToken,
  type Customer,
  type Identity,
  type Orchestrator,
  type OrchestratorError,
  type OrchestratorTarget,
} from "../src/index.js";
import { aJwt } from "./builders.js";

export interface InMemoryOrchestratorAccount {
  readonly apiKey: string;
  readonly identity: Identity;
  /** For partners: their customers. */
  readonly customers?: readonly Customer[];
  /** The API tokens its token list shows; without them, the key may not read that list (`OrchestratorRejected`). */
  readonly apiTokens?: readonly ApiToken[];
  /** Whether the key may renew itself (refresh, or create, download and revoke tokens); it may by default. */
  readonly mayRenew?: boolean;
}

/** The calls of key renewal (docs/interface.md §12), counted apart from the others. */
export interface RenewalCalls {
  refreshApiToken: number;
  createApiToken: number;
  downloadApiToken: number;
  revokeApiToken: number;
}

/** A token this fake made (by refresh or create): its key once downloaded, and whether it was revoked. */
export interface IssuedToken {
  readonly id: number;
  readonly tokenUuid: string;
  readonly identity: Identity;
  readonly expiresAt: Date;
  state: "created" | "downloaded" | "revoked";
  /** The key, once downloaded (a refreshed token is downloaded at once). */
  key: string | undefined;
}

export interface InMemoryOrchestratorOptions {
  /** The time new tokens' expiry counts from (ms since the epoch); `Date.now` by default. */
  readonly now?: () => number;
  /** Whether a refresh makes the refreshed key refused; by default it works on (as the simulator's default). */
  readonly refreshRevokesPredecessor?: boolean;
}

/** An orchestrator fake for the core's own tests, driven by the keys it knows. */
export interface InMemoryOrchestrator extends Orchestrator {
  /** Calls made so far, per method. */
  readonly calls: { identify: number; listPartnerCustomers: number; listApiTokens: number };
  readonly renewalCalls: RenewalCalls;
  /** The tokens made by refresh or create, in order. */
  readonly issued: readonly IssuedToken[];
  /** Makes every call with `apiKey` fail with `error` (or succeed again with `undefined`). */
  failWith(apiKey: string, error: OrchestratorError | undefined): void;
  /** Accepts `apiKey` from now on as `account` (or refuses it again with `undefined`). */
  setAccount(apiKey: string, account: InMemoryOrchestratorAccount | undefined): void;
  /** Holds every call until `release()`, to test concurrency. */
  pause(): { release(): void };
}

export const createInMemoryOrchestrator = (
  accounts: readonly InMemoryOrchestratorAccount[] = [],
  { now = Date.now, refreshRevokesPredecessor = false }: InMemoryOrchestratorOptions = {},
): InMemoryOrchestrator => {
  const byKey = new Map(accounts.map((account) => [account.apiKey, account]));
  const failures = new Map<string, OrchestratorError>();
  const calls = { identify: 0, listPartnerCustomers: 0, listApiTokens: 0 };
  const renewalCalls: RenewalCalls = { refreshApiToken: 0, createApiToken: 0, downloadApiToken: 0, revokeApiToken: 0 };
  const issued: IssuedToken[] = [];
  const sameIdentity = (a: Identity, b: Identity) => JSON.stringify(a) === JSON.stringify(b);
  const listedOf = (account: InMemoryOrchestratorAccount): readonly ApiToken[] | undefined =>
    account.apiTokens === undefined
      ? undefined
      : [
          ...account.apiTokens,
          ...issued
            .filter((token) => token.state !== "revoked" && sameIdentity(token.identity, account.identity))
            .map(({ id, tokenUuid, expiresAt }) => ({ id, tokenUuid, expiresAt })),
        ];
  const mayRenew = (account: InMemoryOrchestratorAccount, identity: Identity, kind: Identity["kind"]) =>
    account.mayRenew !== false && account.identity.kind === kind && sameIdentity(account.identity, identity);
  const NO_RIGHT = "The key lacks the right to renew its API token.";
  /** A new token of `account`'s user, its key accepted as that account from its download on. */
  const issue = (account: InMemoryOrchestratorAccount, lifetimeMs: number): IssuedToken => {
    const id = 9000 + issued.length + 1;
    const tokenUuid = `00000000-0000-4000-9000-${String(id).padStart(12, "0")}`;
    const expiresAt = new Date(now() + lifetimeMs);
    const token: IssuedToken = {
      id,
      tokenUuid,
      identity: account.identity,
      expiresAt,
      state: "created",
      key: undefined,
    };
    issued.push(token);
    return token;
  };
  const download = (token: IssuedToken, account: InMemoryOrchestratorAccount): string => {
    const key = aJwt({ tokenUuid: token.tokenUuid, exp: Math.floor(token.expiresAt.getTime() / 1000) });
    token.state = "downloaded";
    token.key = key;
    byKey.set(key, { ...account, apiKey: key });
    return key;
  };
  let gate: Promise<void> = Promise.resolve();

  const answer =
    <A>(
      target: OrchestratorTarget,
      work: (account: InMemoryOrchestratorAccount) => A,
    ): TaskEither<OrchestratorError, A> =>
    async () => {
      await gate;
      const key = target.apiKey.reveal();
      const failure = failures.get(key);
      if (failure !== undefined) return E.left(failure);
      const account = byKey.get(key);
      return account === undefined
        ? E.left(orchestratorRejected("The orchestrator refused the API key."))
        : E.right(work(account));
    };

  return {
    calls,
    renewalCalls,
    issued,
    startDeadline: () => ({ expiresAt: Number.POSITIVE_INFINITY }),
    // The same fence as a real adapter with no host allowed explicitly.
    admits: (orchestratorUrl) =>
      admitsDestination(URL.canParse(orchestratorUrl) ? new URL(orchestratorUrl).hostname : ""),
    identify: (target) => () => {
      calls.identify += 1;
      return answer(target, (account) => account.identity)();
    },
    listPartnerCustomers: (target, partnerId) => async () => {
      calls.listPartnerCustomers += 1;
      const result = await answer(target, (account) => account)();
      if (E.isLeft(result)) return result;
      const { identity, customers = [] } = result.right;
      return identity.kind === "partner" && identity.partnerId === partnerId
        ? E.right(customerListOf(customers))
        : E.left(orchestratorRejected("The key is not allowed to list this partner's customers."));
    },
    listApiTokens: (target, identity) => async () => {
      calls.listApiTokens += 1;
      const result = await answer(target, (account) => account)();
      if (E.isLeft(result)) return result;
      const apiTokens = listedOf(result.right);
      return apiTokens !== undefined && sameIdentity(result.right.identity, identity)
        ? E.right(apiTokens)
        : E.left(orchestratorRejected("The key is not allowed to read the API tokens."));
    },
    refreshApiToken: (target) => async () => {
      renewalCalls.refreshApiToken += 1;
      const result = await answer(target, (account) => account)();
      if (E.isLeft(result)) return result;
      const account = result.right;
      if (!mayRenew(account, account.identity, "customer")) return E.left(orchestratorRejected(NO_RIGHT));
      const key = download(issue(account, MAX_API_TOKEN_LIFETIME_MS), account);
      if (refreshRevokesPredecessor) byKey.delete(target.apiKey.reveal());
      return E.right(ApiKey.unsafeFrom(key));
    },
    createApiToken:
      (target, identity, { lifetimeMs }) =>
      async () => {
        renewalCalls.createApiToken += 1;
        const result = await answer(target, (account) => account)();
        if (E.isLeft(result)) return result;
        if (!mayRenew(result.right, identity, "partner")) return E.left(orchestratorRejected(NO_RIGHT));
        if (!(Number.isInteger(lifetimeMs) && lifetimeMs > 0 && lifetimeMs <= MAX_API_TOKEN_LIFETIME_MS))
          return E.left(orchestratorRejected("The token lifetime must be at most 12 months."));
        return E.right({ id: issue(result.right, lifetimeMs).id });
      },
    downloadApiToken: (target, identity, id) => async () => {
      renewalCalls.downloadApiToken += 1;
      const result = await answer(target, (account) => account)();
      if (E.isLeft(result)) return result;
      if (!mayRenew(result.right, identity, "partner")) return E.left(orchestratorRejected(NO_RIGHT));
      const token = issued.find((one) => one.id === id && sameIdentity(one.identity, identity));
      return token?.state === "created"
        ? E.right(ApiKey.unsafeFrom(download(token, result.right)))
        : E.left(orchestratorRejected("The token does not exist or was already downloaded."));
    },
    revokeApiToken: (target, identity, id) => async () => {
      renewalCalls.revokeApiToken += 1;
      const result = await answer(target, (account) => account)();
      if (E.isLeft(result)) return result;
      if (!mayRenew(result.right, identity, "partner")) return E.left(orchestratorRejected(NO_RIGHT));
      const token = issued.find((one) => one.id === id && sameIdentity(one.identity, identity));
      const listed = (listedOf(result.right) ?? []).find((one) => one.id === id);
      if (token === undefined && listed === undefined) return E.left(orchestratorRejected("No such token."));
      if (token !== undefined) token.state = "revoked";
      // Its key, whichever account holds it, is refused from now on.
      const uuid = token?.tokenUuid ?? listed?.tokenUuid;
      for (const key of [...byKey.keys()]) if (tokenUuidOf(ApiKey.unsafeFrom(key)) === uuid) byKey.delete(key);
      return E.right(undefined);
    },
    failWith: (apiKey, error) => {
      if (error === undefined) failures.delete(apiKey);
      else failures.set(apiKey, error);
    },
    setAccount: (apiKey, account) => {
      if (account === undefined) byKey.delete(apiKey);
      else byKey.set(apiKey, account);
    },
    pause: () => {
      let release = (): void => undefined;
      gate = new Promise((resolve) => {
        release = () => {
          gate = Promise.resolve();
          resolve();
        };
      });
      return { release: () => release() };
    },
  };
};
