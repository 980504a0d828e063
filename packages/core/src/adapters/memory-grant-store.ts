import * as E from "fp-ts/lib/Either.js";
import { sameGrant, type Grant } from "../domain/grants.js";
import type { GrantStore } from "../ports/grant-store.js";

/** Grants in this process's memory: for tests and the in-memory storage. */
export const createInMemoryGrantStore = (): GrantStore => {
  let grants: readonly Grant[] = [];
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };
  return {
    list: () => async () => E.right(grants),
    add: (grant) => async () => {
      if (grants.some((one) => sameGrant(one, grant))) return E.right(false);
      grants = [...grants, grant];
      changed();
      return E.right(true);
    },
    remove: (id) => async () => {
      const removed = grants.find((one) => one.id === id);
      if (removed === undefined) return E.right(undefined);
      grants = grants.filter((one) => one !== removed);
      changed();
      return E.right(removed);
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
};
