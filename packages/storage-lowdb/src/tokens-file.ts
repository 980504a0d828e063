import {
  IsoTimeCodec,
  listedToken,
  provenToken,
  tokenRules,
  tokensByHash,
  type ServiceTokenStore,
  type StoredChange,
  type StoredServiceToken,
} from "@sdwan-connections/core";
import { ServiceToken } from "@sdwan-connections/core/wire";
import * as t from "io-ts";
import { openSharedJsonFile } from "./shared-json-file.js";

/** Name of the service tokens' file inside the data directory. */
export const TOKENS_FILE = "tokens.json";

// A token as listed, with its lifetime and the SHA-256 of its current secret (never the secret).
const EntryCodec = t.intersection([
  ServiceToken,
  t.type({ lifetimeDays: t.number, hash: t.string }),
  /** After a renewal: the secret before it, working until `until`. */
  t.partial({ previous: t.type({ hash: t.string, until: IsoTimeCodec }) }),
]);
type Entry = t.TypeOf<typeof EntryCodec>;
const TokensFileCodec = t.type({ tokens: t.array(EntryCodec) });

export interface LowdbServiceTokenStoreOptions {
  /** The data directory, as for `openConnectionsFile`. */
  readonly dataDir: string;
  /** As `openConnectionsFile`'s: after how long a dead process's lock is taken over (ms). */
  readonly lockStaleMs?: number;
}

/**
 * Service tokens in `tokens.json` beside `connections.json`, shared by every process over the data directory
 * (`openSharedJsonFile`): a revocation is seen by every process within a second.
 */
export const createLowdbServiceTokenStore = ({
  dataDir,
  lockStaleMs,
}: LowdbServiceTokenStoreOptions): ServiceTokenStore & { close(): Promise<void> } => {
  const file = openSharedJsonFile({
    dataDir,
    name: TOKENS_FILE,
    codec: TokensFileCodec,
    empty: { tokens: [] },
    lockStaleMs,
  });
  // Each working secret's hash to its token, for the tokens last read: a lookup is one map read.
  let indexed: { readonly of: readonly Entry[]; readonly byHash: ReturnType<typeof tokensByHash> } | undefined;
  const byHashOf = (tokens: readonly Entry[]) => {
    if (indexed?.of !== tokens) indexed = { of: tokens, byHash: tokensByHash(tokens) };
    return indexed.byHash;
  };
  const apply = <A>(rule: (current: readonly Entry[]) => StoredChange<readonly StoredServiceToken[], A>) =>
    file.change("writing", ({ tokens: current }) => {
      const { next, answer } = rule(current);
      return { next: next === undefined ? undefined : { tokens: [...next] }, answer };
    });

  return {
    create: (token, hash) => apply(tokenRules.create(token, hash)),
    list: () => file.read("reading", ({ tokens }) => tokens.map(listedToken)),
    find: (hash, now) => file.read("reading", ({ tokens }) => provenToken(byHashOf(tokens), hash, now)),
    renew: (id, renewal) => apply(tokenRules.renew(id, renewal)),
    revoke: (id) => apply(tokenRules.revoke(id)),
    touch: (id, at) => apply(tokenRules.touch(id, at)),
    close: file.close,
  };
};
