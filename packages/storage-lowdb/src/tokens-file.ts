import { IsoTimeCodec, type ServiceToken, type ServiceTokenStore } from "@sdwan-connections/core";
import * as t from "io-ts";
import { openSharedJsonFile } from "./shared-json-file.js";

/** Name of the service tokens' file inside the data directory. */
export const TOKENS_FILE = "tokens.json";

const EntryCodec = t.intersection([
  t.type({
    id: t.string,
    name: t.string,
    role: t.union([t.keyof({ admin: null, viewer: null }), t.null]),
    lifetimeDays: t.number,
    expiresAt: IsoTimeCodec,
    lastUsedAt: t.union([IsoTimeCodec, t.null]),
    createdBy: t.string,
    createdAt: IsoTimeCodec,
    /** SHA-256 of the current secret (never the secret). */
    hash: t.string,
  }),
  /** After a renewal: the secret before it, working until `until`. */
  t.partial({ previous: t.type({ hash: t.string, until: IsoTimeCodec }) }),
]);
type Entry = t.TypeOf<typeof EntryCodec>;
const TokensFileCodec = t.type({ tokens: t.array(EntryCodec) });

const tokenOf = ({ hash: _hash, previous: _previous, ...token }: Entry): ServiceToken => token;

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
  // Each working secret's hash, current or previous, to its entry, for the entries last read: a lookup is one map read.
  let indexed: { readonly of: readonly Entry[]; readonly byHash: ReadonlyMap<string, Entry> } | undefined;
  const byHashOf = (entries: readonly Entry[]): ReadonlyMap<string, Entry> => {
    if (indexed?.of !== entries)
      indexed = {
        of: entries,
        byHash: new Map(
          entries.flatMap((entry) => [
            [entry.hash, entry] as const,
            ...(entry.previous === undefined ? [] : [[entry.previous.hash, entry] as const]),
          ]),
        ),
      };
    return indexed.byHash;
  };
  const change = <A>(next: (current: Entry[]) => { readonly tokens?: Entry[]; readonly answer: A }) =>
    file.change("writing", ({ tokens: current }) => {
      const { tokens, answer } = next(current);
      return { contents: tokens === undefined ? undefined : { tokens }, answer };
    });

  return {
    create: (token, hash) =>
      change((current) =>
        current.some((entry) => entry.name === token.name)
          ? { answer: false }
          : { tokens: [...current, { ...token, hash }], answer: true },
      ),
    list: () => file.read("reading", ({ tokens }) => tokens.map(tokenOf)),
    find: (hash, now) =>
      file.read("reading", ({ tokens }) => {
        const entry = byHashOf(tokens).get(hash);
        const proved =
          entry !== undefined &&
          (entry.hash === hash ? now < entry.expiresAt : entry.previous !== undefined && now < entry.previous.until);
        return proved ? tokenOf(entry) : undefined;
      }),
    renew: (id, { hash, expiresAt, previousUntil }) =>
      change((current) => {
        const entry = current.find((one) => one.id === id);
        if (entry === undefined) return { answer: undefined };
        const renewed: Entry = { ...entry, hash, expiresAt, previous: { hash: entry.hash, until: previousUntil } };
        return { tokens: current.map((one) => (one.id === id ? renewed : one)), answer: tokenOf(renewed) };
      }),
    revoke: (id) =>
      change((current) =>
        current.some((one) => one.id === id)
          ? { tokens: current.filter((one) => one.id !== id), answer: true }
          : { answer: false },
      ),
    touch: (id, at) =>
      change((current) =>
        current.some((one) => one.id === id)
          ? { tokens: current.map((one) => (one.id === id ? { ...one, lastUsedAt: at } : one)), answer: undefined }
          : { answer: undefined },
      ),
    close: file.close,
  };
};
