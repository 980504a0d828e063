import {
  AliasCodec,
  aliasKey,
  ApiKey,
  IsoTimeCodec,
  StoredRenewalIntentCodec,
  type RenewalIntent,
  type RenewalLedger,
  type RenewalRecord,
} from "@sdwan-connections/core";
import type { Keyring } from "@sdwan-connections/secrets";
import * as E from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import { openSharedJsonFile } from "./shared-json-file.js";

/** Name of the key renewals' file inside the data directory (SPEC §12): intents in flight, a new key sealed. */
export const RENEWALS_FILE = "renewals.json";

/** `sealedKey`: the new key sealed by the keyring for this alias (never in the clear). */
const IntentCodec = t.intersection([StoredRenewalIntentCodec, t.partial({ sealedKey: t.string })]);
const EntryCodec = t.type({
  alias: AliasCodec,
  owner: t.union([t.string, t.null]),
  leaseUntil: t.union([IsoTimeCodec, t.null]),
  failures: t.number,
  retryAt: t.union([IsoTimeCodec, t.null]),
  intent: t.union([IntentCodec, t.null]),
});
type Entry = t.TypeOf<typeof EntryCodec>;
const RenewalsFileCodec = t.type({ renewals: t.array(EntryCodec) });

const associatedData = (alias: string) => `renewal:${aliasKey(alias)}`;

export interface LowdbRenewalLedgerOptions {
  /** The data directory, as for `openConnectionsFile`. */
  readonly dataDir: string;
  /** Seals a renewal's new key as the connections' keys are sealed. */
  readonly keyring: Keyring;
  /** As `openConnectionsFile`'s: after how long a dead process's lock is taken over (ms). */
  readonly lockStaleMs?: number;
}

/**
 * Key renewals in `renewals.json` beside `connections.json`, shared by every process over the data directory and
 * kept across restarts and kills (each change written and synced before it answers): a new key sealed by the
 * keyring. A key that no longer opens (sealed with a master key since rotated away) reads as lost: the renewal then
 * revokes its token.
 */
export const createLowdbRenewalLedger = ({
  dataDir,
  keyring,
  lockStaleMs,
}: LowdbRenewalLedgerOptions): RenewalLedger & { close(): Promise<void> } => {
  const file = openSharedJsonFile({
    dataDir,
    name: RENEWALS_FILE,
    codec: RenewalsFileCodec,
    empty: { renewals: [] },
    lockStaleMs,
  });
  const recordOf = ({ alias, failures, retryAt, intent }: Entry): RenewalRecord => {
    const { sealedKey, ...rest } = intent ?? { sealedKey: undefined };
    const opened = sealedKey === undefined ? undefined : keyring.open(sealedKey, associatedData(alias));
    const newKey = opened !== undefined && E.isRight(opened) ? { newKey: ApiKey.unsafeFrom(opened.right) } : {};
    return {
      alias,
      intent: intent === null ? undefined : ({ ...rest, ...newKey } as RenewalIntent),
      failures,
      retryAt: retryAt ?? undefined,
    };
  };
  const sealed = ({ newKey, ...intent }: RenewalIntent, alias: string) => ({
    ...intent,
    ...(newKey === undefined ? {} : { sealedKey: keyring.seal(newKey.reveal(), associatedData(alias)) }),
  });
  const change = <A>(next: (current: Entry[]) => { readonly renewals?: Entry[]; readonly answer: A }) =>
    file.change("writing", ({ renewals: current }) => {
      const { renewals, answer } = next(current);
      return { next: renewals === undefined ? undefined : { renewals }, answer };
    });
  const find = (entries: readonly Entry[], alias: string) =>
    entries.find((entry) => aliasKey(entry.alias) === aliasKey(alias));
  const replace = (entries: readonly Entry[], entry: Entry) => [
    ...entries.filter((one) => aliasKey(one.alias) !== aliasKey(entry.alias)),
    entry,
  ];

  return {
    acquire: (alias, owner, now, leaseUntil) =>
      change((current) => {
        const entry = find(current, alias) ?? {
          alias,
          owner: null,
          leaseUntil: null,
          failures: 0,
          retryAt: null,
          intent: null,
        };
        const held =
          entry.owner !== null && entry.owner !== owner && (entry.leaseUntil?.getTime() ?? 0) > now.getTime();
        if (held) return { answer: undefined };
        return { renewals: replace(current, { ...entry, owner, leaseUntil }), answer: recordOf(entry) };
      }),
    save: (record, owner) =>
      change((current) => {
        const entry = find(current, record.alias);
        if (entry?.owner !== owner) return { answer: false };
        const next: Entry = {
          ...entry,
          failures: record.failures,
          retryAt: record.retryAt ?? null,
          intent: record.intent === undefined ? null : sealed(record.intent, entry.alias),
        };
        return { renewals: replace(current, next), answer: true };
      }),
    release: (alias, owner) =>
      change((current) => {
        const entry = find(current, alias);
        if (entry?.owner !== owner) return { answer: undefined };
        // Nothing left to keep (no intent, no failures): the entry goes with its lease.
        const kept = entry.intent === null && entry.failures === 0;
        const rest = current.filter((one) => one !== entry);
        return { renewals: kept ? rest : [...rest, { ...entry, owner: null, leaseUntil: null }], answer: undefined };
      }),
    list: () =>
      file.read("reading", ({ renewals }) =>
        renewals.filter((entry) => entry.intent !== null || entry.failures > 0).map(recordOf),
      ),
    close: file.close,
  };
};
