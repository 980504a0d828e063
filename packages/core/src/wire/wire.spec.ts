import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as t from "io-ts";
import { describe, expect, it } from "vitest";
import { aCloudEvent, aCustomer, anAuditEntry, aWebhook } from "../../testing/index.js";
import * as wire from "./index.js";

const at = "2026-11-22T10:00:00.000Z";
/** A value of the domain as the service writes it: JSON (its Dates as RFC 3339 text). */
const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
const attempt = { at, status: 200, error: null, latencyMs: 12 };
const webhook = json(aWebhook()) as object;
const token = { id: "t1", name: "ci", role: null, expiresAt: at, lastUsedAt: null, createdBy: "admin", createdAt: at };
const grant = { id: "g1", subject: "group:emea", pattern: "emea-*", verb: "use" };
const details = {
  alias: "prod",
  orchestratorUrl: "https://vco.example",
  version: 3,
  apiKeySetAt: at,
  apiKeyFingerprint: "sha256:ab12",
  apiKeyExpiresAt: null,
  apiKeyExpirySource: null,
  keyRenewal: "off",
};
const entry = json(anAuditEntry({ version: 3 })) as { id: string };
const health = {
  alias: "prod",
  state: "valid",
  since: at,
  checks: [{ at, outcome: "valid", latencyMs: 5, reason: null }],
};

/** An answer of each codec the wire holds, as JSON says it (docs/interface.md). */
const SAMPLES: Readonly<Record<string, unknown>> = {
  ConnectionSummary: { alias: "prod", orchestratorUrl: "https://vco.example" },
  ConnectionDetails: { ...details, apiKeyRef: "file:prod.key" },
  Validation: { alias: "prod", orchestratorUrl: "https://vco.example", valid: true },
  VerboseValidation: { ...details, valid: false, reason: "The orchestrator refused the key." },
  KeyCheck: { matches: false },
  ConnectionKind: "partner",
  KeyExpirySource: "token",
  KeyRenewal: "auto",
  HealthState: "unreachable",
  HealthCheck: health.checks[0],
  ConnectionHealth: health,
  Health: { intervalSeconds: 60, connections: [health] },
  ConnectionAccess: { alias: "prod", subjects: [{ subject: "group:emea", verbs: ["read", "use"] }], grants: [grant] },
  AccessCheck: { subject: "user:ann", alias: "prod", verbs: ["read"] },
  Customer: json(aCustomer()),
  AuditEntry: entry,
  AuditPage: { entries: [entry], next: null },
  CloudEvent: json(aCloudEvent({ action: "health-change", from: "valid", to: "unreachable", reason: "timed out" })),
  Grant: grant,
  GrantVerb: "manage",
  Role: "viewer",
  Me: { user: "ann", role: null, grants: [{ pattern: "emea-*", verb: "read" }] },
  Session: { user: "ann", role: "admin", token: "sdc_1.YW5u.sig", expiresAt: at },
  AuthConfig: { oidc: { issuer: "https://idp.example", clientId: "console", scopes: ["openid"] } },
  ServiceToken: token,
  OperationStatus: { status: "ready" },
  IssuedToken: { ...token, token: "sdw_secret" },
  WebhookKind: "opennms",
  DeliveryStatus: "dead",
  Webhook: webhook,
  CreatedWebhook: { ...webhook, secret: "whsec_c2VjcmV0" },
  DeliveryAttempt: attempt,
  PingAnswer: { ...attempt, kind: "cloudevents" },
  Delivery: { id: "d1", webhookId: "w1", eventId: entry.id, status: "pending", nextAttemptAt: at, attempts: [attempt] },
  ProblemSlug: "version-mismatch",
  OrchestratorProblemSlug: "orchestrator-timeout",
  FieldError: { field: "apiKey", message: "must not be empty" },
  Problem: {
    type: "urn:sdwan-connections:problem:validation-refused",
    title: "Validation failed",
    status: 422,
    detail: "The orchestrator refused the request, so connection 'prod' was not saved: bad key",
    cause: "orchestrator-rejected",
    reason: "bad key",
  },
};

// The codecs the wire exports of its own (the domain's re-exported field codecs, as AliasCodec, are not answers).
const codecs = Object.entries(wire).filter(
  (entry): entry is [string, t.Mixed] => entry[1] instanceof t.Type && !entry[0].endsWith("Codec"),
);

describe("the wire", () => {
  it("has a sample of every answer it describes, and each decodes and encodes back to the same JSON", () => {
    expect(codecs.map(([name]) => name).sort()).toEqual(Object.keys(SAMPLES).sort());
    for (const [name, codec] of codecs) {
      const decoded = codec.decode(SAMPLES[name]);
      expect(decoded._tag, name).toBe("Right");
      if (decoded._tag === "Right")
        expect(JSON.parse(JSON.stringify(codec.encode(decoded.right))), name).toEqual(SAMPLES[name]);
    }
  });

  it("names each codec as the OpenAPI document names its component", () => {
    for (const [name, codec] of codecs) expect(codec.name).toBe(name);
  });

  it("refuses a value outside each enum, alone and inside an answer", () => {
    const enums = codecs.filter(([, codec]) => codec instanceof t.KeyofType);
    expect(enums.length).toBeGreaterThanOrEqual(9);
    for (const [name, codec] of enums) expect(codec.is("Admin"), name).toBe(false);
    const wrong: readonly [t.Mixed, unknown][] = [
      [wire.Webhook, { ...webhook, kind: "slack" }],
      [wire.Delivery, { ...(SAMPLES["Delivery"] as object), status: "failed" }],
      [wire.ServiceToken, { ...token, role: "owner" }],
      [wire.AuditEntry, { ...entry, action: "rename" }],
      [wire.ConnectionDetails, { ...details, keyRenewal: "on" }],
      [wire.ConnectionDetails, { ...details, apiKeyExpiresAt: at, apiKeyExpirySource: "guessed" }],
      [wire.Health, { intervalSeconds: null, connections: [{ ...health, state: "ok" }] }],
      [wire.Grant, { ...grant, verb: "write" }],
      [wire.Problem, { ...(SAMPLES["Problem"] as object), cause: "orchestrator-sad" }],
    ];
    for (const [codec, value] of wrong) expect(codec.decode(value)._tag, codec.name).toBe("Left");
  });

  it("tells a problem's kind by its type's slug, none for a type it does not know", () => {
    expect(wire.problemSlugOf(wire.problemType("grant-not-found"))).toBe("grant-not-found");
    expect(wire.problemSlugOf("urn:sdwan-connections:problem:toString")).toBeUndefined();
    expect(wire.problemSlugOf("about:blank")).toBeUndefined();
  });

  it("imports only io-ts, fp-ts and files that import nothing from Node (its whole module graph)", () => {
    const node = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
    const seen = new Set<string>();
    const outside = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = readFileSync(file, "utf8");
      for (const [, specifier = ""] of source.matchAll(/^(?:import|export)(?:[^;"]*?from)?\s*"([^"]+)"/gms)) {
        if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
        else outside.add(node.has(specifier) ? specifier : specifier.split("/")[0]!);
      }
    };
    visit(fileURLToPath(new URL("./index.ts", import.meta.url)));
    expect(seen.size).toBeGreaterThan(10);
    expect([...outside].sort()).toEqual(["fp-ts", "io-ts"]);
  });
});
