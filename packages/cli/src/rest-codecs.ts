import {
  AliasCodec,
  AliasPatternCodec,
  GrantVerbCodec,
  IsoTimeCodec,
  OrchestratorUrlCodec,
  SubjectCodec,
  type ConnectionDetails,
  type OrchestratorError,
} from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import * as t from "io-ts";

/** An answer of the service: its status and its body's text. */
export interface Answer {
  readonly status: number;
  readonly text: string;
}

// The io-ts codecs of every answer read.
export const Summary = t.type({ alias: AliasCodec, orchestratorUrl: OrchestratorUrlCodec });
// The key's expiry (SPEC §10) is optional: a service from before it answers without.
export const DetailsAnswer = t.intersection([
  t.type({
    alias: AliasCodec,
    orchestratorUrl: OrchestratorUrlCodec,
    version: t.number,
    apiKeySetAt: t.union([IsoTimeCodec, t.null]),
    apiKeyFingerprint: t.string,
  }),
  t.partial({
    apiKeyExpiresAt: t.union([IsoTimeCodec, t.null]),
    apiKeyExpirySource: t.union([t.keyof({ declared: null, token: null, orchestrator: null }), t.null]),
    // SPEC §12; a service from before it answers without (its connections are not renewed).
    keyRenewal: t.keyof({ auto: null, off: null }),
  }),
]);
// The details as core has them: the expiry as one value, when both of its fields are given.
export const Details = new t.Type<ConnectionDetails, unknown, unknown>(
  "ConnectionDetails",
  (input): input is ConnectionDetails => typeof input === "object" && input !== null && "apiKeyExpiry" in input,
  (input, context) =>
    E.map(({ apiKeyExpiresAt, apiKeyExpirySource, ...details }: t.TypeOf<typeof DetailsAnswer>): ConnectionDetails => ({
      ...details,
      keyRenewal: details.keyRenewal ?? "off",
      apiKeyExpiry:
        apiKeyExpiresAt === undefined ||
        apiKeyExpiresAt === null ||
        apiKeyExpirySource === undefined ||
        apiKeyExpirySource === null
          ? undefined
          : { expiresAt: apiKeyExpiresAt, source: apiKeyExpirySource },
    }))(DetailsAnswer.validate(input, context)),
  (details) => details,
);
export const Validation = t.intersection([
  Details,
  t.type({ valid: t.boolean }),
  t.partial({ type: t.keyof({ partner: null, customer: null }), reason: t.string }),
]);
export const Check = t.type({
  at: IsoTimeCodec,
  outcome: t.keyof({ valid: null, invalid: null, unreachable: null }),
  latencyMs: t.number,
  reason: t.union([t.string, t.null]),
});
export const Health = t.type({
  alias: AliasCodec,
  state: t.keyof({ unknown: null, valid: null, invalid: null, unreachable: null }),
  since: t.union([IsoTimeCodec, t.null]),
  checks: t.array(Check),
});
export const HealthAnswer = t.type({ connections: t.array(Health) });
export const AuditAnswer = t.type({
  entries: t.array(t.intersection([t.type({ at: IsoTimeCodec }), t.UnknownRecord])),
  next: t.union([t.string, t.null]),
});
export const Matches = t.type({ matches: t.boolean });
export const GrantAnswer = t.type({
  id: t.string,
  subject: SubjectCodec,
  pattern: AliasPatternCodec,
  verb: GrantVerbCodec,
});
export const FieldErrors = t.array(t.type({ field: t.string, message: t.string }));
export const ProblemBody = t.intersection([
  t.type({ type: t.string, detail: t.string }),
  t.partial({ errors: FieldErrors, cause: t.string, reason: t.string }),
]);

// The problem types of orchestrator errors (SPEC §3), by the error each stands for.
export const ORCHESTRATOR_PROBLEMS: Readonly<Record<string, OrchestratorError["_tag"]>> = {
  "orchestrator-rejected": "OrchestratorRejected",
  "orchestrator-failed": "OrchestratorFailed",
  "orchestrator-unreachable": "OrchestratorUnreachable",
  "orchestrator-timeout": "OrchestratorTimedOut",
  "orchestrator-garbage": "OrchestratorGarbage",
  "orchestrator-rate-limited": "OrchestratorRateLimited",
};
export const orchestratorError = (_tag: OrchestratorError["_tag"], reason: string): OrchestratorError => ({
  _tag,
  reason,
});

/** Why the service refused an add or update (422): the orchestrator problem that refused it, and its reason. */
export const refusalCause = (
  detail: string,
  cause: string | undefined,
  reason: string | undefined,
): OrchestratorError => orchestratorError(ORCHESTRATOR_PROBLEMS[cause ?? ""] ?? "OrchestratorFailed", reason ?? detail);

export const slugOf = (type: string): string => type.replace(/^urn:sdwan-connections:problem:/, "");
