import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as t from "io-ts";
import {
  AliasCodec,
  ApiKeyCodec,
  ApiKeyRefCodec,
  REFERENCED_KEY_NOT_READ,
  OrchestratorUrlCodec,
  aliasKey,
  storageFailure,
  invalidStored,
  type StoredConnection,
  type ConnectionSummary,
  type DomainError,
} from "@sdwan-connections/core";
import { describeSecretError, type Keyring } from "@sdwan-connections/secrets";

/** A row of `connections` as selected by the repository; rows are outside input, so they are decoded. */
const isDate = (input: unknown): input is Date => input instanceof Date && !Number.isNaN(input.getTime());
/** A timestamptz column as the driver gives it: a valid Date. */
export const DateCodec = new t.Type<Date, Date, unknown>(
  "Date",
  isDate,
  (input, context) => (isDate(input) ? t.success(input) : t.failure(input, context, "must be a time")),
  (value) => value,
);

// Absent in a row read before migration 17 (the tests' rows): as null.
const referenceColumn = t.partial({ api_key_ref: t.union([ApiKeyRefCodec, t.null]) });

export const ConnectionRow = t.intersection([
  t.type({
    alias: AliasCodec,
    orchestrator_url: OrchestratorUrlCodec,
    api_key: t.union([t.string, t.null]),
    version: t.Int,
    api_key_set_at: t.union([DateCodec, t.null]),
    api_key_expires_at: t.union([DateCodec, t.null]),
    key_renewal: t.keyof({ auto: null, off: null }),
  }),
  referenceColumn,
]);
export type ConnectionRow = t.TypeOf<typeof ConnectionRow>;

export const SummaryRow = t.intersection([
  t.type({ alias: AliasCodec, orchestrator_url: OrchestratorUrlCodec }),
  referenceColumn,
]);

// The codecs' messages never quote the value, so naming the bad columns is safe.
const badRow = (errors: t.Errors): DomainError => invalidStored("a stored connection", errors);

export const decodeSummary = (row: unknown): E.Either<DomainError, ConnectionSummary> =>
  pipe(
    SummaryRow.decode(row),
    E.bimap(badRow, ({ alias, orchestrator_url, api_key_ref }) =>
      api_key_ref === null || api_key_ref === undefined
        ? { alias, orchestratorUrl: orchestrator_url }
        : { alias, orchestratorUrl: orchestrator_url, apiKeyRef: api_key_ref },
    ),
  );

/**
 * A stored row as a Connection: decoded, then its sealed apiKey opened with
 * the alias key as associated data (so a sealed key copied onto another row
 * does not open). Failures name the alias and the reason, never the key.
 */
export const decodeConnection =
  (keyring: Keyring) =>
  (row: unknown): E.Either<DomainError, StoredConnection> =>
    pipe(
      ConnectionRow.decode(row),
      E.mapLeft(badRow),
      E.chain(
        ({ alias, orchestrator_url, api_key, api_key_ref, version, api_key_set_at, api_key_expires_at, key_renewal }) =>
          pipe(
            // A key kept elsewhere is not here: core reads its reference (SPEC §12).
            api_key === null ? E.right(undefined) : keyring.open(api_key, aliasKey(alias)),
            E.mapLeft((error) =>
              storageFailure(
                `Storage failure: the apiKey of connection '${alias}' cannot be opened: ${describeSecretError(error)}.`,
              ),
            ),
            E.chain((plaintext) =>
              pipe(
                plaintext === undefined ? E.right(REFERENCED_KEY_NOT_READ) : ApiKeyCodec.decode(plaintext),
                E.mapLeft(() =>
                  storageFailure(`Storage failure: the apiKey of connection '${alias}' is not a valid apiKey.`),
                ),
              ),
            ),
            E.map((apiKey) => ({
              alias,
              orchestratorUrl: orchestrator_url,
              apiKey,
              ...(api_key_ref === null || api_key_ref === undefined ? {} : { apiKeyRef: api_key_ref }),
              version,
              apiKeySetAt: api_key_set_at,
              ...(api_key_expires_at === null ? {} : { apiKeyExpiresAt: api_key_expires_at }),
              keyRenewal: key_renewal,
            })),
          ),
      ),
    );
