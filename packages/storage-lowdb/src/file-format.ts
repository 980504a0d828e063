import {
  ApiKeyRefCodec,
  AliasCodec,
  aliasKey,
  OrchestratorUrlCodec,
  parseTime,
  strictObject,
  type Alias,
  type OrchestratorUrl,
  type ApiKeyRef,
} from "@sdwan-connections/core";
import { isSealedSecret, type SealedSecret } from "@sdwan-connections/secrets";
import * as E from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import type { ConnectionsFileError } from "./errors.js";

/**
 * The file format, version 5:
 *
 * ```json
 * {"format":"sdwan-connections/connections","version":5,"lastVersion":17,"connections":[
 * {"alias":"lab","orchestratorUrl":"https://vco.example.net/","sealedApiKey":"v2.1a2b3c4d.<iv>.<tag>.<ciphertext>","version":3,"apiKeySetAt":"2026-11-22T10:00:00.000Z","keyRenewal":"auto"}
 * ]}
 * ```
 *
 * One connection per line; `version` is the connection's, `apiKeySetAt` when
 * its key was stored (null: unknown), `apiKeyExpiresAt` (only when declared) when the operator says the key
 * expires, `keyRenewal` (only when `auto`) whether the service renews the key (SPEC §12). A connection whose key
 * is kept elsewhere has `apiKeyRef` (`file:NAME`, `env:NAME`) in place of `sealedApiKey` (SPEC §12: the key is never
 * stored). Version 4 had neither `keyRenewal` (read as `off`) nor `apiKeyRef`, version 3 no `apiKeyExpiresAt`.
 * `lastVersion` is the last version the
 * store gave (deleted connections' included): each write that changes a
 * connection gives it the next, so a re-added alias never repeats a version.
 * Version 2 had no `lastVersion`: it is read as the greatest version in the
 * file (a version of a connection deleted before the upgrade is not known).
 * Version 1 had no versions and no key dates; it is read as version 1 with an
 * unknown key date. A later version bumps `version` and adds a step to
 * `decodeState` below; a file whose version is newer than this code is refused.
 */
/** Name of the store's file inside the data directory. */
export const CONNECTIONS_FILE = "connections.json";
export const FILE_FORMAT = "sdwan-connections/connections";
export const SCHEMA_VERSION = 5;

/** What the file keeps of one connection. */
export interface ConnectionRecord {
  readonly alias: Alias;
  readonly orchestratorUrl: OrchestratorUrl;
  /** The key, sealed; absent when it is kept elsewhere (`apiKeyRef`). */
  readonly sealedApiKey?: SealedSecret | undefined;
  /** Where the key is kept instead (SPEC §12); absent when the key is sealed here. */
  readonly apiKeyRef?: ApiKeyRef;
  readonly version: number;
  /** ISO 8601, or null when unknown. */
  readonly apiKeySetAt: string | null;
  /** ISO 8601, only when declared. */
  readonly apiKeyExpiresAt?: string;
  /** Only when the key is renewed by the service; absent: `off`. */
  readonly keyRenewal?: "auto";
}

/** One stored connection, with its file line kept encoded so a write re-serializes nothing but what changed. */
export interface StoredConnection extends ConnectionRecord {
  /** The connection's line of the file, UTF-8. */
  readonly line: Buffer;
}

/** The whole store: connections by alias key (lowercase alias), in file order, and the last version given. */
export interface ConnectionsState {
  readonly connections: ReadonlyMap<string, StoredConnection>;
  /** Never below a stored connection's version; grows with each write that changes a connection. */
  lastVersion: number;
}

export const storedConnection = ({
  alias,
  orchestratorUrl,
  sealedApiKey,
  apiKeyRef,
  version,
  apiKeySetAt,
  apiKeyExpiresAt,
  keyRenewal,
}: ConnectionRecord): StoredConnection => {
  const record = {
    alias,
    orchestratorUrl,
    ...(apiKeyRef === undefined ? { sealedApiKey } : { apiKeyRef }),
    version,
    apiKeySetAt,
    ...(apiKeyExpiresAt === undefined ? {} : { apiKeyExpiresAt }),
    ...(keyRenewal === "auto" ? { keyRenewal } : {}),
  };
  return { ...record, line: Buffer.from(JSON.stringify(record), "utf8") };
};

export const emptyState = (): ConnectionsState => ({ connections: new Map(), lastVersion: 0 });

const header = (lastVersion: number) =>
  Buffer.from(
    `{"format":${JSON.stringify(FILE_FORMAT)},"version":${SCHEMA_VERSION},"lastVersion":${lastVersion},"connections":[`,
  );
const EMPTY_FOOTER = Buffer.from("]}\n");
const FIRST = Buffer.from("\n");
const SEPARATOR = Buffer.from(",\n");
const FOOTER = Buffer.from("\n]}\n");

/** How many bytes `serializeInto` writes for this state. */
export const serializedLength = ({ connections, lastVersion }: ConnectionsState): number => {
  const headerLength = header(lastVersion).length;
  if (connections.size === 0) return headerLength + EMPTY_FOOTER.length;
  let length = headerLength + FIRST.length + FOOTER.length + SEPARATOR.length * (connections.size - 1);
  for (const connection of connections.values()) length += connection.line.length;
  return length;
};

/**
 * Writes the file's bytes into `target` (exactly `serializedLength` long): the
 * cached line of every connection, nothing encoded again. A reused target
 * matters: copying into fresh memory costs ~3 ms at 10,000 connections in
 * page faults, into warm memory ~0.4 ms.
 */
export const serializeInto = ({ connections, lastVersion }: ConnectionsState, target: Buffer): Buffer => {
  const start = header(lastVersion);
  target.set(start, 0);
  let offset = start.length;
  if (connections.size === 0) {
    target.set(EMPTY_FOOTER, offset);
    return target;
  }
  let separator = FIRST;
  for (const connection of connections.values()) {
    target.set(separator, offset);
    offset += separator.length;
    target.set(connection.line, offset);
    offset += connection.line.length;
    separator = SEPARATOR;
  }
  target.set(FOOTER, offset);
  return target;
};

// A check as an io-ts codec whose failure message names the rule, never the value.
const checked = <A>(name: string, is: (input: unknown) => input is A, message: string): t.Type<A, A, unknown> =>
  new t.Type<A, A, unknown>(
    name,
    is,
    (input, context) => (is(input) ? t.success(input) : t.failure(input, context, message)),
    (value) => value,
  );

const SealedSecretCodec = checked(
  "SealedSecret",
  isSealedSecret,
  "must be a sealed secret (v2.<keyId>.<iv>.<tag>.<ciphertext>, or v1)",
);

const ISO_UTC_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
// Kept as text (the record's form), read by core's one time codec: RFC 3339, each field in range.
const IsoTimeCodec = checked(
  "IsoTime",
  (input): input is string => typeof input === "string" && ISO_UTC_TIME.test(input) && parseTime(input) !== undefined,
  "must be an ISO 8601 UTC time",
);
const VersionCodec = checked(
  "Version",
  (input): input is number => Number.isSafeInteger(input) && (input as number) >= 1,
  "must be a positive integer",
);
const LastVersionCodec = checked(
  "LastVersion",
  (input): input is number => Number.isSafeInteger(input) && (input as number) >= 0,
  "must be a whole number",
);

const RecordV1Props = { alias: AliasCodec, orchestratorUrl: OrchestratorUrlCodec, sealedApiKey: SealedSecretCodec };
const RecordV1Codec = strictObject("ConnectionV1", RecordV1Props, t.type(RecordV1Props));
const RecordProps = { ...RecordV1Props, version: VersionCodec, apiKeySetAt: t.union([IsoTimeCodec, t.null]) };
const RecordCodec = strictObject("Connection", RecordProps, t.type(RecordProps));
const RecordV4Props = { ...RecordProps, apiKeyExpiresAt: IsoTimeCodec };
const RecordV4Codec = strictObject(
  "Connection",
  RecordV4Props,
  t.intersection([t.type(RecordProps), t.partial({ apiKeyExpiresAt: IsoTimeCodec })]),
);

const FileV1Props = { format: t.literal(FILE_FORMAT), version: t.literal(1), connections: t.array(RecordV1Codec) };
const FileV1Codec = strictObject("ConnectionsFileV1", FileV1Props, t.type(FileV1Props));
const FileV2Props = { format: t.literal(FILE_FORMAT), version: t.literal(2), connections: t.array(RecordCodec) };
const FileV2Codec = strictObject("ConnectionsFileV2", FileV2Props, t.type(FileV2Props));
const FileV3Props = {
  format: t.literal(FILE_FORMAT),
  version: t.literal(3),
  lastVersion: LastVersionCodec,
  connections: t.array(RecordCodec),
};
const FileV3Codec = strictObject("ConnectionsFileV3", FileV3Props, t.type(FileV3Props));
const FileV4Props = { ...FileV3Props, version: t.literal(4), connections: t.array(RecordV4Codec) };
const FileV4Codec = strictObject("ConnectionsFileV4", FileV4Props, t.type(FileV4Props));
// Version 5: the key sealed, or where it is kept instead, exactly one of the two; `keyRenewal` only when `auto`.
const { sealedApiKey: _sealed, ...RecordV5Common } = RecordProps;
const RecordV5Optional = t.partial({ apiKeyExpiresAt: IsoTimeCodec, keyRenewal: t.literal("auto") });
const RecordV5Props = { ...RecordV4Props, keyRenewal: t.literal("auto"), apiKeyRef: ApiKeyRefCodec };
const RecordV5Either = t.union([
  t.intersection([t.type(RecordProps), RecordV5Optional]),
  t.intersection([t.type({ ...RecordV5Common, apiKeyRef: ApiKeyRefCodec }), RecordV5Optional]),
]);
const RecordV5Codec = strictObject(
  "Connection",
  RecordV5Props,
  new t.Type<t.TypeOf<typeof RecordV5Either>, unknown, unknown>(
    "ConnectionV5",
    RecordV5Either.is,
    (input, context) =>
      typeof input === "object" && input !== null && "sealedApiKey" in input && "apiKeyRef" in input
        ? t.failure(input, context, "has both sealedApiKey and apiKeyRef")
        : RecordV5Either.validate(input, context),
    RecordV5Either.encode,
  ),
);
const FileProps = {
  format: t.literal(FILE_FORMAT),
  version: t.literal(SCHEMA_VERSION),
  lastVersion: LastVersionCodec,
  connections: t.array(RecordV5Codec),
};
const FileCodec = strictObject("ConnectionsFile", FileProps, t.type(FileProps));

// Names the path of each problem and the codec's own message, never the offending value.
const describeDecodeErrors = (errors: t.Errors): string => {
  const problems = errors.slice(0, 3).map((error) => {
    const path = error.context
      .map((entry) => entry.key)
      .filter((key) => key !== "")
      .join(".");
    return `${path === "" ? "the document" : path} ${error.message ?? (error.value === undefined ? "is missing" : "has an unexpected value")}`;
  });
  return errors.length > 3 ? `${problems.join("; ")}; and ${errors.length - 3} more` : problems.join("; ");
};

// V8's JSON.parse messages quote the text around the error, which could be a secret: keep only the position.
const describeSyntaxError = (error: unknown): string => {
  const message = error instanceof Error ? error.message : "";
  const position = /position (\d+)/.exec(message)?.[1];
  return position === undefined ? "not valid JSON" : `not valid JSON near character ${position}`;
};

interface DecodedFile {
  readonly connections: readonly ConnectionRecord[];
  /** Absent before version 3. */
  readonly lastVersion?: number;
}

/** The connections (and last version) of a document at any known version: version 1's get version 1 and an unknown key date. */
const decodeFile = (document: { readonly version: number }): t.Validation<DecodedFile> => {
  if (document.version === 1)
    return E.map((v1: t.TypeOf<typeof FileV1Codec>) => ({
      connections: v1.connections.map((record) => ({ ...record, version: 1, apiKeySetAt: null })),
    }))(FileV1Codec.decode(document));
  if (document.version === 2) return FileV2Codec.decode(document);
  if (document.version === 3) return FileV3Codec.decode(document);
  return document.version === 4 ? FileV4Codec.decode(document) : FileCodec.decode(document);
};

/** Parses and checks the file's text. */
export const parseConnectionsFile = (text: string, path: string): E.Either<ConnectionsFileError, ConnectionsState> => {
  const corrupt = (reason: string): E.Either<ConnectionsFileError, never> =>
    E.left({ _tag: "FileCorrupt", path, reason });
  if (text.trim() === "") return corrupt("the file is empty");
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return corrupt(describeSyntaxError(error));
  }
  if (typeof document !== "object" || document === null || Array.isArray(document)) return corrupt("not a JSON object");
  const { format, version } = document as { format?: unknown; version?: unknown };
  if (format !== FILE_FORMAT) return corrupt(`not a connections file (format must be "${FILE_FORMAT}")`);
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1)
    return corrupt("version must be a positive integer");
  if (version > SCHEMA_VERSION) return E.left({ _tag: "FutureVersion", path, version, supported: SCHEMA_VERSION });
  const decoded = decodeFile(document as { version: number });
  if (E.isLeft(decoded)) return corrupt(describeDecodeErrors(decoded.left));
  const connections = new Map<string, StoredConnection>();
  let lastVersion = decoded.right.lastVersion ?? 0;
  for (const [index, record] of decoded.right.connections.entries()) {
    const key = aliasKey(record.alias);
    if (connections.has(key)) return corrupt(`connections.${index}.alias repeats an earlier alias`);
    connections.set(key, storedConnection(record));
    // Never below a stored version, whatever the file says: the next version given must be new.
    lastVersion = Math.max(lastVersion, record.version);
  }
  return E.right({ connections, lastVersion });
};
