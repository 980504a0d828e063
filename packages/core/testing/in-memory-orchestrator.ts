import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import {
  admitsDestination,
  customerListOf,
  orchestratorRejected,
  type ApiToken,
  type Customer,
  type Identity,
  type Orchestrator,
  type OrchestratorError,
  type OrchestratorTarget,
} from "../src/index.js";

export interface InMemoryOrchestratorAccount {
  readonly apiKey: string;
  readonly identity: Identity;
  /** For partners: their customers. */
  readonly customers?: readonly Customer[];
  /** The API tokens its token list shows; without them, the key may not read that list (`OrchestratorRejected`). */
  readonly apiTokens?: readonly ApiToken[];
}

/** An orchestrator fake for the core's own tests, driven by the keys it knows. */
export interface InMemoryOrchestrator extends Orchestrator {
  /** Calls made so far, per method. */
  readonly calls: { identify: number; listPartnerCustomers: number; listApiTokens: number };
  /** Makes every call with `apiKey` fail with `error` (or succeed again with `undefined`). */
  failWith(apiKey: string, error: OrchestratorError | undefined): void;
  /** Accepts `apiKey` from now on as `account` (or refuses it again with `undefined`). */
  setAccount(apiKey: string, account: InMemoryOrchestratorAccount | undefined): void;
  /** Holds every call until `release()`, to test concurrency. */
  pause(): { release(): void };
}

export const createInMemoryOrchestrator = (
  accounts: readonly InMemoryOrchestratorAccount[] = [],
): InMemoryOrchestrator => {
  const byKey = new Map(accounts.map((account) => [account.apiKey, account]));
  const failures = new Map<string, OrchestratorError>();
  const calls = { identify: 0, listPartnerCustomers: 0, listApiTokens: 0 };
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
      const { apiTokens } = result.right;
      return apiTokens !== undefined && JSON.stringify(result.right.identity) === JSON.stringify(identity)
        ? E.right(apiTokens)
        : E.left(orchestratorRejected("The key is not allowed to read the API tokens."));
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
