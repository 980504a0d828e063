import * as E from "fp-ts/lib/Either.js";
import { ApiKey } from "./api-key.js";
import { aliasKey, type Alias, type OrchestratorUrl } from "./codecs.js";
import { alreadyExists, notFound, versionMismatch, type DomainError } from "./errors.js";
import type { ApiKeyRef } from "./key-reference.js";

/** A named connection to one orchestrator, with the credential used there. */
export interface Connection {
  readonly alias: Alias;
  readonly orchestratorUrl: OrchestratorUrl;
  readonly apiKey: ApiKey;
  /** When the operator says the key expires (docs/interface.md §10); absent when not declared. A new key without one clears it. */
  readonly apiKeyExpiresAt?: Date;
  /** Whether the service renews the key before it expires (SPEC §12); absent on a request: `off`. */
  readonly keyRenewal?: KeyRenewal;
  /**
   * Where the key is kept instead of the store (SPEC §12), read when used: a store keeps this reference and never
   * the key; the key it answers is read by core (`readingKeyReferences`). A change that gives `apiKey` alone clears it.
   */
  readonly apiKeyRef?: ApiKeyRef;
}

/** Whether a connection's key is renewed by the service (`auto`) or left to its operator (`off`, the default). */
export const KEY_RENEWAL_MODES = ["auto", "off"] as const;
export type KeyRenewal = (typeof KEY_RENEWAL_MODES)[number];
/**
 * SPEC §12: renewal is off for a key kept elsewhere (its keeper rotates it), so a request for `auto` on one is
 * refused, naming `keyRenewal`, never answered as done and dropped.
 */
export const REFERENCE_NOT_RENEWED = "must be off for a key kept elsewhere (apiKeyRef): whoever keeps it rotates it";

/**
 * A connection as a store keeps it. `version` names one state of one connection's life: every write that
 * changes a connection (adding it included) gives it a new version, greater than any the store gave before,
 * so a writer can ask that nobody changed it since it read it, and a version read before a delete never
 * matches the alias added again. An update that changes nothing keeps the version. `apiKeySetAt` is when its
 * key was stored (null for a connection stored before keys were dated).
 */
export interface StoredConnection extends Connection {
  readonly version: number;
  /** As stored: `off` unless set to `auto`. */
  readonly keyRenewal: KeyRenewal;
  readonly apiKeySetAt: Date | null;
}

/** A write's precondition: the stored connection's version must be one of these (or the write fails with `VersionMismatch`). */
export type ExpectedVersions = readonly number[];

/** The stored connection `alias` names (by `aliasKey`), if at a version `expected` names: what every store checks a change against. */
export const atExpectedVersion = <S extends { readonly alias: string; readonly version: number }>(
  connections: ReadonlyMap<string, S>,
  alias: string,
  expected: ExpectedVersions | undefined,
): E.Either<DomainError, S> => {
  const existing = connections.get(aliasKey(alias));
  if (existing === undefined) return E.left(notFound(alias));
  return expected === undefined || expected.includes(existing.version)
    ? E.right(existing)
    : E.left(versionMismatch(existing.alias, existing.version));
};

/** Nothing when no stored connection has `alias` (case aside); else AlreadyExists, naming the one that has. */
export const aliasFreeIn = (connections: ReadonlyMap<string, { readonly alias: string }>, alias: string) => {
  const existing = connections.get(aliasKey(alias));
  return existing === undefined ? E.right(undefined) : E.left(alreadyExists(existing.alias));
};

/** What listing shows of a connection: never the key. */
export interface ConnectionSummary {
  readonly alias: Alias;
  readonly orchestratorUrl: OrchestratorUrl;
  /** Where its key is kept, when elsewhere (the watch of keys kept elsewhere lists them); the REST list never shows it. */
  readonly apiKeyRef?: ApiKeyRef;
}

/** The fields an update may change: all but the alias, which names the connection. */
export type ChangeableField = Exclude<keyof Connection, "alias">;

/** A change to a stored connection; an absent field keeps its stored value. */
export type ConnectionChange = Partial<Pick<Connection, ChangeableField>>;

/**
 * What `change` does to a stored connection, the one rule every store applies: whether it sets another key (another
 * reference, compared as written, never read; a key where a reference was; or another key); the declared expiry
 * after it (the one it gives, else none for a new key, which never inherits the old one's date); the renewal mode;
 * where the key is kept (a key given alone replaces a reference, a reference the key); and whether it changes
 * anything (an update to the same URL and key writes nothing and keeps the version).
 */
export const updateOf = (stored: StoredConnection, change: ConnectionChange) => {
  const newKey =
    change.apiKeyRef !== undefined
      ? change.apiKeyRef !== stored.apiKeyRef
      : change.apiKey !== undefined &&
        (stored.apiKeyRef !== undefined || change.apiKey.reveal() !== stored.apiKey.reveal());
  const newUrl = change.orchestratorUrl !== undefined && change.orchestratorUrl !== stored.orchestratorUrl;
  const expiresAt = change.apiKeyExpiresAt ?? (newKey ? undefined : stored.apiKeyExpiresAt);
  const keyRenewal = change.keyRenewal ?? stored.keyRenewal;
  const apiKeyRef = change.apiKeyRef ?? (change.apiKey === undefined ? stored.apiKeyRef : undefined);
  const changed = newKey || newUrl || !sameTime(expiresAt, stored.apiKeyExpiresAt) || keyRenewal !== stored.keyRenewal;
  return { newKey, newUrl, expiresAt, keyRenewal, apiKeyRef, changed };
};

/** What a store answers as the key of a connection whose key is kept elsewhere: core reads the reference in its place. */
export const REFERENCED_KEY_NOT_READ = ApiKey.unreadable("the key kept elsewhere was not read");

/** Whether two optional times are the same moment. */
export const sameTime = (a: Date | undefined, b: Date | undefined): boolean => a?.getTime() === b?.getTime();

/** Where a connection points and with what key: all the orchestrator port needs. */
export type OrchestratorTarget = Pick<Connection, "orchestratorUrl" | "apiKey">;

/** Whose key it is: a partner's (who has customers) or a single customer's. */
export const CONNECTION_KINDS = ["partner", "customer"] as const;
export type ConnectionKind = (typeof CONNECTION_KINDS)[number];

/** How the orchestrator identified a key it accepted. */
export type Identity =
  { readonly kind: "partner"; readonly partnerId: number } | { readonly kind: "customer"; readonly customerId: number };
