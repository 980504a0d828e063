import * as t from "io-ts";
import { AliasCodec, IntegerCodec, IsoTimeCodec, OrchestratorUrlCodec } from "../domain/codecs.js";
import { CONNECTION_KINDS, KEY_RENEWAL_MODES } from "../domain/connection.js";
import { oneOf } from "../domain/decode.js";
import { GrantVerbCodec, SubjectCodec } from "../domain/grants.js";
import { ConnectionHealthCodec, HealthCheckCodec, HealthStateCodec } from "../domain/health.js";
import { KEY_EXPIRY_SOURCES } from "../domain/key-expiry.js";
import { ApiKeyRefCodec } from "../domain/key-reference.js";
import { Grant } from "./admin.js";

const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);

export const KeyRenewal = oneOf(KEY_RENEWAL_MODES, "KeyRenewal");
export type KeyRenewal = t.TypeOf<typeof KeyRenewal>;
export const KeyExpirySource = oneOf(KEY_EXPIRY_SOURCES, "KeyExpirySource");
export type KeyExpirySource = t.TypeOf<typeof KeyExpirySource>;
export const ConnectionKind = oneOf(CONNECTION_KINDS, "ConnectionKind");
export type ConnectionKind = t.TypeOf<typeof ConnectionKind>;

/** A connection as `GET /connections` lists it: never its key. */
export const ConnectionSummary = t.type(
  { alias: AliasCodec, orchestratorUrl: OrchestratorUrlCodec },
  "ConnectionSummary",
);
export type ConnectionSummary = t.TypeOf<typeof ConnectionSummary>;

const detailsProps = {
  alias: AliasCodec,
  orchestratorUrl: OrchestratorUrlCodec,
  version: IntegerCodec,
  /** When its key was stored; null for a connection stored before keys were dated. */
  apiKeySetAt: nullable(IsoTimeCodec),
  apiKeyFingerprint: t.string,
  /** When the key expires as far as it is known (docs/interface.md §10), and where that comes from; null when unknown. */
  apiKeyExpiresAt: nullable(IsoTimeCodec),
  apiKeyExpirySource: nullable(KeyExpirySource),
  keyRenewal: KeyRenewal,
};

/**
 * One connection as stored (`GET /connections/{alias}?stored=true`), without asking the orchestrator; `apiKeyRef`:
 * where its key is kept when not in the store (SPEC §12), the reference, never the key.
 */
export const ConnectionDetails = t.intersection(
  [t.type(detailsProps), t.partial({ apiKeyRef: ApiKeyRefCodec })],
  "ConnectionDetails",
);
export type ConnectionDetails = t.TypeOf<typeof ConnectionDetails>;

/** A validation (`GET /connections/{alias}`): the orchestrator asked now whether it accepts the stored key. */
export const Validation = t.type(
  { alias: AliasCodec, orchestratorUrl: OrchestratorUrlCodec, valid: t.boolean },
  "Validation",
);
export type Validation = t.TypeOf<typeof Validation>;

/** A verbose validation (`?verbose=true`): also the key's `type` when valid or the `reason` when not, and the details. */
export const VerboseValidation = t.intersection(
  [
    t.type({ valid: t.boolean, ...detailsProps }),
    t.partial({ type: ConnectionKind, reason: t.string, apiKeyRef: ApiKeyRefCodec }),
  ],
  "VerboseValidation",
);
export type VerboseValidation = t.TypeOf<typeof VerboseValidation>;

/** The answer of `POST /connections/{alias}/key-check`: whether the key given is the stored one. */
export const KeyCheck = t.type({ matches: t.boolean }, "KeyCheck");
export type KeyCheck = t.TypeOf<typeof KeyCheck>;

// A connection's health and its checks are the domain's codecs.
export const HealthState = HealthStateCodec;
export type HealthState = t.TypeOf<typeof HealthState>;
export const HealthCheck = HealthCheckCodec;
export type HealthCheck = t.TypeOf<typeof HealthCheck>;
export const ConnectionHealth = ConnectionHealthCodec;
export type ConnectionHealth = t.TypeOf<typeof ConnectionHealth>;

/** `GET /health/connections`: the checks' interval (null: no background checks) and each readable connection's health. */
export const Health = t.type(
  { intervalSeconds: nullable(IntegerCodec), connections: t.readonlyArray(ConnectionHealth) },
  "Health",
);
export type Health = t.TypeOf<typeof Health>;

/** Who may do what on a connection (`GET /connections/{alias}/access`): each subject's verbs, and the grants that give them. */
export const ConnectionAccess = t.type(
  {
    alias: AliasCodec,
    subjects: t.readonlyArray(
      t.type({ subject: SubjectCodec, verbs: t.readonlyArray(GrantVerbCodec) }, "SubjectAccess"),
    ),
    grants: t.readonlyArray(Grant),
  },
  "ConnectionAccess",
);
export type ConnectionAccess = t.TypeOf<typeof ConnectionAccess>;

/** The verbs a subject has on an alias (`GET /access/check`). */
export const AccessCheck = t.type(
  { subject: SubjectCodec, alias: AliasCodec, verbs: t.readonlyArray(GrantVerbCodec) },
  "AccessCheck",
);
export type AccessCheck = t.TypeOf<typeof AccessCheck>;

// The customer's 20 fields (`GET /partner/{alias}/customers`) are the domain's own codec.
export { Customer } from "../domain/customer.js";
