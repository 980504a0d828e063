import * as E from "fp-ts/lib/Either.js";
import {
  listedToken,
  provenToken,
  tokenRules,
  tokensByHash,
  type StoredServiceToken,
} from "../domain/service-token.js";
import type { StoredChange } from "../domain/stored-change.js";
import type { ServiceTokenStore } from "../ports/service-token-store.js";

/** Service tokens in this process's memory: for tests and the in-memory storage. A lookup is one map read. */
export const createInMemoryServiceTokenStore = (): ServiceTokenStore => {
  let tokens: readonly StoredServiceToken[] = [];
  let byHash = tokensByHash(tokens);
  const apply =
    <A>(rule: (current: readonly StoredServiceToken[]) => StoredChange<readonly StoredServiceToken[], A>) =>
    async () => {
      const { next, answer } = rule(tokens);
      if (next !== undefined) [tokens, byHash] = [next, tokensByHash(next)];
      return E.right(answer);
    };
  return {
    create: (token, hash) => apply(tokenRules.create(token, hash)),
    list: () => async () => E.right(tokens.map(listedToken)),
    find: (hash, now) => async () => E.right(provenToken(byHash, hash, now)),
    renew: (id, renewal) => apply(tokenRules.renew(id, renewal)),
    revoke: (id) => apply(tokenRules.revoke(id)),
    touch: (id, at) => apply(tokenRules.touch(id, at)),
  };
};
