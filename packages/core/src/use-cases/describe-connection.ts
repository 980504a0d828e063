import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { AliasCodec } from "../domain/codecs.js";
import type { ConnectionSummary, KeyRenewal, StoredConnection } from "../domain/connection.js";
import { storedKeyExpiry, type KeyExpiry } from "../domain/key-expiry.js";
import { decodeInput } from "../domain/decode.js";
import type { DomainError } from "../domain/errors.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";
import type { KeyFingerprints } from "../ports/key-fingerprints.js";
import type { ConnectionDetails as DetailsAnswer } from "../wire/connections.js";

/**
 * What a store holds of one connection, shown without the key: its version, when the key was set, the key's
 * fingerprint, and when the key expires as far as it is known (declared, the key's own, or what the
 * orchestrator's token list told the key-expiry watch).
 */
export type ConnectionDetails = ConnectionSummary &
  Pick<StoredConnection, "version" | "apiKeySetAt" | "apiKeyRef"> & {
    readonly apiKeyFingerprint: string;
    readonly apiKeyExpiry: KeyExpiry | undefined;
    readonly keyRenewal: KeyRenewal;
  };

/** The expiry the orchestrator told of a connection's key, when the key-expiry watch asked it (`KeyExpiryWatch.learned`). */
export type LearnedExpiry = (connection: StoredConnection) => KeyExpiry | undefined;

export const detailsOf =
  (fingerprints: KeyFingerprints, learned?: LearnedExpiry) =>
  (connection: StoredConnection): ConnectionDetails => ({
    alias: connection.alias,
    orchestratorUrl: connection.orchestratorUrl,
    version: connection.version,
    apiKeySetAt: connection.apiKeySetAt,
    ...(connection.apiKeyRef === undefined ? {} : { apiKeyRef: connection.apiKeyRef }),
    apiKeyFingerprint: fingerprints.fingerprint(connection.alias, connection.apiKey),
    apiKeyExpiry: storedKeyExpiry(connection) ?? learned?.(connection),
    // Renewal is off for a key kept elsewhere (SPEC §12): its owner rotates it, whatever the connection says.
    keyRenewal: connection.apiKeyRef === undefined ? (connection.keyRenewal ?? "off") : "off",
  });

/** The details as the interface answers them (docs/interface.md §2, the wire's `ConnectionDetails`): unknown dates null. */
export const detailsAnswer = (details: ConnectionDetails): DetailsAnswer => ({
  alias: details.alias,
  orchestratorUrl: details.orchestratorUrl,
  version: details.version,
  apiKeySetAt: details.apiKeySetAt,
  apiKeyFingerprint: details.apiKeyFingerprint,
  apiKeyExpiresAt: details.apiKeyExpiry?.expiresAt ?? null,
  apiKeyExpirySource: details.apiKeyExpiry?.source ?? null,
  keyRenewal: details.keyRenewal,
  // Where the key is kept, when not in the store (SPEC §12): the reference, never the key.
  ...(details.apiKeyRef === undefined ? {} : { apiKeyRef: details.apiKeyRef }),
});

/**
 * One connection as stored, without asking the orchestrator: for a client that needs its version (an edit
 * form, `If-Match`) or its key's fingerprint, not a verdict on the key.
 */
export const describeConnection =
  (deps: {
    readonly repository: ConnectionRepository;
    readonly fingerprints: KeyFingerprints;
    readonly learnedExpiry?: LearnedExpiry;
  }) =>
  (rawAlias: string): TE.TaskEither<DomainError, ConnectionDetails> =>
    pipe(
      TE.fromEither(decodeInput(AliasCodec, "alias")(rawAlias)),
      TE.flatMap(deps.repository.get),
      TE.map(detailsOf(deps.fingerprints, deps.learnedExpiry)),
    );
