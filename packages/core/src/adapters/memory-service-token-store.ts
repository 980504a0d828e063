import * as E from "fp-ts/lib/Either.js";
import type { ServiceToken, ServiceTokenStore } from "../ports/service-token-store.js";

interface Entry {
  readonly token: ServiceToken;
  readonly hash: string;
  readonly previous?: { readonly hash: string; readonly until: Date };
}

/** Service tokens in this process's memory: for tests and the in-memory storage. A lookup is one map read. */
export const createInMemoryServiceTokenStore = (): ServiceTokenStore => {
  const entries = new Map<string, Entry>();
  // Each working secret's hash, current or previous, to its token's id.
  const ids = new Map<string, string>();
  const forget = (entry: Entry) => {
    ids.delete(entry.hash);
    if (entry.previous !== undefined) ids.delete(entry.previous.hash);
  };
  const put = (entry: Entry) => {
    entries.set(entry.token.id, entry);
    ids.set(entry.hash, entry.token.id);
    if (entry.previous !== undefined) ids.set(entry.previous.hash, entry.token.id);
  };
  return {
    create: (token, hash) => async () => {
      if ([...entries.values()].some((entry) => entry.token.name === token.name)) return E.right(false);
      put({ token, hash });
      return E.right(true);
    },
    list: () => async () => E.right([...entries.values()].map((entry) => entry.token)),
    find: (hash, now) => async () => {
      const entry = entries.get(ids.get(hash) ?? "");
      const proved =
        entry !== undefined &&
        (entry.hash === hash
          ? now < entry.token.expiresAt
          : entry.previous !== undefined && now < entry.previous.until);
      return E.right(proved ? entry.token : undefined);
    },
    renew:
      (id, { hash, expiresAt, previousUntil }) =>
      async () => {
        const entry = entries.get(id);
        if (entry === undefined) return E.right(undefined);
        forget(entry);
        const token = { ...entry.token, expiresAt };
        put({ token, hash, previous: { hash: entry.hash, until: previousUntil } });
        return E.right(token);
      },
    revoke: (id) => async () => {
      const entry = entries.get(id);
      if (entry !== undefined) forget(entry);
      return E.right(entries.delete(id));
    },
    touch: (id, at) => async () => {
      const entry = entries.get(id);
      if (entry !== undefined) entries.set(id, { ...entry, token: { ...entry.token, lastUsedAt: at } });
      return E.right(undefined);
    },
  };
};
