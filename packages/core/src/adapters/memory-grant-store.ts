import * as E from "fp-ts/lib/Either.js";
import { grantRules, type Grant } from "../domain/grants.js";
import type { StoredChange } from "../domain/stored-change.js";
import type { GrantStore } from "../ports/grant-store.js";

/** Grants in this process's memory: for tests and the in-memory storage. */
export const createInMemoryGrantStore = (): GrantStore => {
  let grants: readonly Grant[] = [];
  const listeners = new Set<() => void>();
  const apply =
    <A>(rule: (current: readonly Grant[]) => StoredChange<readonly Grant[], A>) =>
    async () => {
      const { next, answer } = rule(grants);
      if (next !== undefined) {
        grants = next;
        for (const listener of listeners) listener();
      }
      return E.right(answer);
    };
  return {
    list: () => async () => E.right(grants),
    add: (grant) => apply(grantRules.add(grant)),
    remove: (id) => apply(grantRules.remove(id)),
    subscribe: (listener) => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
};
